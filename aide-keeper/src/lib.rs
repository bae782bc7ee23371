//! A keeper: a detached process that holds something costly to start (a
//! session's live bash, a language server) between runs of a command-line
//! tool, found through a folder of aide's state.
//!
//! The folder holds `keeper.lock` (one keeper a folder, held while it
//! lives), `keeper.pid` (for people: nothing trusts it) and `keeper.sock`
//! (0600 in the 0700 folder; a peer of another uid is refused). A caller that finds no keeper listening
//! starts one through the tool's hidden launcher (`TOOL LAUNCH DIR` starts
//! `TOOL KEEP DIR` and exits at once, so the keeper is orphaned to init
//! and nobody has to reap it), then connects. What goes over the socket is
//! the tool's own; the keeper ends when [`serve`]'s `should_end` says so
//! (idle, what it holds ended) or on TERM, INT and HUP.
//!
//! Both ends know each other by identity, not by path ([`crate::peer`]:
//! a process held by its pidfd). The keeper serves a caller only once it
//! proved the caller is not more confined than itself (a sandboxed command,
//! or one that exited before it could be looked at, is refused). A caller
//! trusts the socket only when the process listening on it is of its uid,
//! holds the folder's lock, and, for a caller that is not sandboxed, is
//! not sandboxed either (a keeper started from a sandbox, or whatever a
//! sandbox left listening there, answers nobody outside it). [`Place::stop`]
//! signals that proven process, never whatever pid a file names.

pub mod detach;
mod error;
mod peer;
mod place;
mod serve;

pub use detach::Words;
pub use place::{Place, run_internal_command};
pub use serve::{Ended, Held, Quiet, hold, json_line, serve};
