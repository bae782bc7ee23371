//! What a request asks of a sandbox and what a result says of it: the
//! modes, the network switch and the flags every command-running request
//! flattens in. Making and entering one is `aide-gate`'s job
//! (`aide_gate::sandbox`); `CONTRACT.md` says what each mode guarantees.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a command may write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// No file-system sandbox.
    #[default]
    Off,
    /// Writes only in its private temporary directory (and configured paths).
    ReadOnly,
    /// Writes beneath the root (or working directory), its private
    /// temporary directory and configured paths.
    WorkspaceWrite,
}

impl SandboxMode {
    /// Its name, as flags, JSON and aide.toml write it.
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
        }
    }

    /// How much it confines: off < workspace-write < read-only.
    pub fn strictness(self) -> u8 {
        match self {
            SandboxMode::Off => 0,
            SandboxMode::WorkspaceWrite => 1,
            SandboxMode::ReadOnly => 2,
        }
    }
}

/// Whether a command reaches the network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    #[default]
    On,
    /// A network namespace of its own: loopback only.
    Off,
}

impl Network {
    /// Its name, as flags, JSON and aide.toml write it.
    pub fn name(self) -> &'static str {
        match self {
            Network::On => "on",
            Network::Off => "off",
        }
    }
}

/// The sandbox a command ran in, as its result says it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SandboxUsed {
    pub mode: SandboxMode,
    pub network: Network,
}

/// The flags that ask for a sandbox, flattened into each command-running
/// request (`exec`, `session new`, `term start`, `llm-jobs spawn`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SandboxArgs {
    /// What the command may write: `off`, `read-only` (a private
    /// temporary directory only) or `workspace-write` (also beneath its
    /// working directory). Enforced by the kernel for it and all it
    /// starts; default off (in `aide mcp`, the server's: workspace-write).
    #[arg(long, value_enum, value_name = "MODE", hide_possible_values = true)]
    pub sandbox: Option<SandboxMode>,
    /// `off`: the command runs in a network namespace of its own, loopback
    /// only (default on).
    #[arg(long, value_enum, value_name = "on|off", hide_possible_values = true)]
    pub network: Option<Network>,
}

impl SandboxArgs {
    /// What was asked, or `fallback` for what was not.
    pub fn or(self, fallback: SandboxUsed) -> SandboxUsed {
        SandboxUsed { mode: self.sandbox.unwrap_or(fallback.mode), network: self.network.unwrap_or(fallback.network) }
    }
}

impl SandboxUsed {
    /// Whether it confines nothing.
    pub fn is_off(self) -> bool {
        self.mode == SandboxMode::Off && self.network == Network::On
    }
}

impl std::fmt::Display for SandboxUsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sandbox {}, network {}", self.mode.name(), self.network.name())
    }
}
