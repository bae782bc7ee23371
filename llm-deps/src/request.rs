//! The request: the root and one subcommand.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::Ecosystem;

/// Seconds a registry has to answer one question, by default.
pub const DEFAULT_TIMEOUT: f64 = 10.0;

/// A request: the root and one command.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct DepsRequest {
    /// The project's folder, holding its lock files; paths are relative to it.
    #[arg(long, global = true, value_name = "DIR")]
    #[serde(default)]
    pub root: Option<PathBuf>,
    #[command(subcommand)]
    pub command: DepsCommand,
}

/// No argument of it is a command or a sandbox: nothing it starts.
impl aide_core::govern::Governed for DepsRequest {}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DepsCommand {
    /// Every resolved package: ecosystem, version, direct or transitive, where declared.
    List(ListArgs),
    /// The dependency tree of each of the project's own packages.
    Tree(TreeArgs),
    /// Direct dependencies with newer versions, asking the registries (crates.io, npm, PyPI).
    Outdated(OutdatedArgs),
    /// Packages named by a local advisory database (RustSec advisory-db, OSV files).
    Audit(AuditArgs),
}

/// Which ecosystems, and whether only direct dependencies.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ListArgs {
    /// Only these ecosystems (default: every one found).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "ECOSYSTEM")]
    pub ecosystem: Vec<Ecosystem>,
    /// Only the project's direct dependencies.
    #[arg(long)]
    pub direct: bool,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TreeArgs {
    /// Only these ecosystems (default: every one found).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "ECOSYSTEM")]
    pub ecosystem: Vec<Ecosystem>,
    /// Levels below each project (default: all; a package already shown is marked `repeated`).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
}

#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct OutdatedArgs {
    /// Only these ecosystems (default: every one found).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "ECOSYSTEM")]
    pub ecosystem: Vec<Ecosystem>,
    /// Seconds each registry question may take.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT)]
    pub timeout: f64,
}

impl Default for OutdatedArgs {
    fn default() -> Self {
        OutdatedArgs { ecosystem: Vec::new(), timeout: DEFAULT_TIMEOUT }
    }
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct AuditArgs {
    /// Only these ecosystems (default: every one found).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "ECOSYSTEM")]
    pub ecosystem: Vec<Ecosystem>,
    /// A local advisory database: a clone of RustSec's advisory-db, or a
    /// folder of OSV JSON files (default: $AIDE_ADVISORY_DB).
    #[arg(long, value_name = "DIR")]
    pub advisory_db: Option<PathBuf>,
}
