//! What a discovery asks: the query, the filters, and how many entries come back.

use aide_core::walk::WalkArgs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Results shown when `--limit` is not given (query and list modes).
pub const DEFAULT_LIMIT: usize = 100;
/// Entries shown in a tree when `--limit` is not given.
pub const DEFAULT_TREE_LIMIT: usize = 2000;

/// A discovery request: the flags, or the same fields as `--request` JSON.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DiscoverRequest {
    /// fzf syntax (`'exact`, `^prefix`, `suffix$`, `!not`; all
    /// space-separated terms match). Without it, files are listed.
    #[arg(long, short = 'q', value_name = "STRING")]
    pub query: Option<String>,
    /// Directory to search; every path in the output is relative to it.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(flatten)]
    #[serde(flatten)]
    pub walk: WalkArgs,
    #[arg(long, help = "Show the structure as a tree instead (with --max-depth to bound it)")]
    pub tree: bool,
    /// With --tree: the root's tree checksum too (every file and link
    /// beneath it, hidden and ignored ones too: what a recursive delete removes).
    #[arg(long, requires = "tree")]
    pub tree_checksum: bool,
    /// At most this many results (default 100; 2000 tree entries).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Skip this many results first (continue from a previous `next_offset`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Worker threads (default: the number of CPUs). The output does not depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for DiscoverRequest {}
