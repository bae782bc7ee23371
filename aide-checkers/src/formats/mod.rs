//! Each checker's own output format, read into [`crate::finding::RawDiagnostic`]s.
//! A format that cannot be read is an `Err` with what was wrong: never a
//! partial list.

pub(crate) mod eslint;
pub(crate) mod govet;
pub(crate) mod mypy;
pub(crate) mod pyflakes;
pub(crate) mod pyright;
pub(crate) mod ruff;
pub(crate) mod rustc;
pub(crate) mod shellcheck;
pub(crate) mod tsc;
