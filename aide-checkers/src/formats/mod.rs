//! Each checker's own output format, read into [`crate::finding::RawDiagnostic`]s.
//! A format that cannot be read is an `Err` with what was wrong: never a
//! partial list.

pub mod eslint;
pub mod govet;
pub mod mypy;
pub mod pyflakes;
pub mod pyright;
pub mod ruff;
pub mod rustc;
pub mod shellcheck;
pub mod tsc;
