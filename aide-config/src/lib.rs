//! `aide.toml`: the defaults every tool reads for what a flag does not say.
//!
//! Two files, read in this order: the root's (`aide.toml` in the directory a
//! run works in, or the nearest folder above it that has one), then the
//! user's (`$XDG_CONFIG_HOME/aide/aide.toml`, else
//! `~/.config/aide/aide.toml`). The root's wins, with one exception: a
//! project's file cannot loosen what the user's file, or aide's default,
//! holds — a sandbox, a network, a policy of `aide mcp` that is looser is
//! ignored (and `aide doctor` says so), and its writable paths must lie
//! inside the project. A flag overrides both.
//!
//! ```toml
//! sandbox = "workspace-write"   # off | read-only | workspace-write
//! network = "off"               # on | off
//! writable = ["~/.cache/cargo"] # more paths a sandboxed command may write
//! readable = ["~/.cargo"]       # read only beneath these (and the system's
//!                               # folders, the working and writable paths)
//! max_risk = "medium"           # aide mcp: low | medium | high | critical
//! allow = "auto"                # aide mcp: auto | gated
//! confirm = "gated"             # aide mcp: ask the user before a gated call
//! rate = "10/s"                 # aide mcp: calls a second (N/s) or minute (N/m)
//! call_timeout = 600            # aide mcp: seconds one call may run
//! exec_timeout = 120            # llm-shell exec: seconds a command may run
//!
//! [telemetry]                   # OpenTelemetry export (the user's file only;
//! endpoint = "http://collector:4318"  # each OTEL_ variable, when set, wins)
//! protocol = "http/protobuf"    # or grpc
//! service_name = "agents"
//! resource_attributes = "team=infra"
//! capture_content = false       # the redacted request and result on spans
//! ```
//!
//! `[telemetry]` is read from the user's file only: a repository's file
//! cannot send a user's runs anywhere.
//!
//! A file that does not parse, or names a key aide does not know, is an
//! `invalid_request` error naming the file and line: never half-read.

mod config;
mod error;
mod file;

pub use aide_core::home::settings::{FILE, root_file, user_file};
pub use config::{Config, DEFAULT_EXEC_TIMEOUT, Setting, Source, load};
pub use file::{ConfigFile, TelemetryTable, rate_per_second};

/// The user's `[telemetry]` table: None when the user's file is absent,
/// has none, or does not read (every tool reports a bad file itself).
pub fn user_telemetry() -> Option<TelemetryTable> {
    let path = user_file()?;
    if !path.is_file() {
        return None;
    }
    file::read(&path).ok()?.telemetry
}
