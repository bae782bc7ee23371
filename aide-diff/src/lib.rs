//! Diffs, one way for every tool: a line diff of two texts ([`LineDiff`]:
//! lines added and removed, the changed line ranges, where unchanged lines
//! moved, and `diff -u` text), the character similarity of two strings
//! ([`similarity`]), and a unified diff read back into files and hunks
//! ([`read`]: git's own output for llm-git, a model's patch for
//! llm-transform).
//!
//! Both run on imara-diff's Myers with the heuristics of git and GNU diff: a
//! minimal diff in ordinary cases, and no quadratic time when nearly every
//! line changed (100,000 edited lines of one file once took minutes with a
//! plain Myers here).

mod lines;
mod model;
mod read;
mod similarity;
mod unified;

pub use lines::{Change, LineDiff};
pub use model::{Extended, ExtendedKind, FileDiff, Form, Hunk, HunkLine, LineKind, Side, Status};
pub use read::{ReadError, read};
pub use similarity::similarity;
