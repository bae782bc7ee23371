//! A trigram index of a tree: which files can hold a match of a regex
//! ([`Query`], a necessary condition read from the regex's syntax), so a
//! repeated search reads only those files and verifies them with its own
//! engine. The index is kept fresh from what changed, so its answers are
//! the answers of a search of the whole tree.

mod postings;
pub mod query;
mod tree;
pub mod trigram;
mod watch;

pub use query::{Query, Syntax};
pub use tree::{Entry, Stats, TreeIndex, Walk, Walked};
