//! What a run says besides its result: diagnostics (warnings with stable
//! codes) and the expected skips counted instead of warned.
//!
//! Expected skips are files a walk passes over as rg and fd do (binary files,
//! links it does not follow, FIFOs and devices). None of them changes the
//! answer, so they are counted in the result's `stats.skipped` instead of
//! warned on every call; a warning stays for what does change it (a file
//! that stopped mid-way, one that could not be read, a cut result).

use serde::Serialize;

/// Stable diagnostic codes. Part of the wire format: add, never rename.
pub mod diag {
    /// A file with NUL bytes was skipped (counted in `stats.skipped`, not warned).
    pub const BINARY_FILE: &str = "binary_file";
    /// A file's search stopped at a NUL byte after it had matched: the
    /// matches before it are kept, the rest of the file was not searched.
    pub const BINARY_STOPPED: &str = "binary_stopped";
    /// A file over the size limit was skipped.
    pub const FILE_TOO_LARGE: &str = "file_too_large";
    /// A file could not be read.
    pub const UNREADABLE: &str = "unreadable";
    /// A symlink whose target does not exist was skipped (counted in `stats.skipped`).
    pub const BROKEN_SYMLINK: &str = "broken_symlink";
    /// A symlink was not followed (counted in `stats.skipped`; `follow` follows them).
    pub const SYMLINK_NOT_FOLLOWED: &str = "symlink_not_followed";
    /// A followed symlink led outside the root.
    pub const OUTSIDE_ROOT: &str = "outside_root";
    /// The walk could not read a directory or ignore file.
    pub const WALK_ERROR: &str = "walk_error";
    /// A file in an encoding the tool does not search (UTF-16) was skipped.
    pub const UNSUPPORTED_ENCODING: &str = "unsupported_encoding";
    /// Text that is not valid UTF-8 was shown lossily.
    pub const LOSSY_UTF8: &str = "lossy_utf8";
    /// A file did not parse cleanly.
    pub const PARSE_ERROR: &str = "parse_error";
    /// A registry did not answer for one package (llm-deps `outdated`): it is left out.
    pub const REGISTRY_FAILED: &str = "registry_failed";
    /// A direct dependency with no version a registry's can be compared with
    /// (llm-deps `outdated`: a requirement no lock file resolves): not checked.
    pub const NOT_CHECKED: &str = "not_checked";
    /// The run could not be written to the execution log.
    pub const LOG_FAILED: &str = "log_failed";
    /// The output was cut to respect a limit.
    pub const OUTPUT_TRUNCATED: &str = "output_truncated";
    /// rustfmt was asked for but could not run or failed; the file is written unformatted.
    pub const RUSTFMT_FAILED: &str = "rustfmt_failed";
    /// `--threads` asked for more worker threads than the cap; the cap was used.
    pub const THREADS_CAPPED: &str = "threads_capped";
    /// A FIFO, socket or device met in a walk was skipped (never opened: it could block;
    /// counted in `stats.skipped`).
    pub const NOT_A_REGULAR_FILE: &str = "not_a_regular_file";
    /// A followed symlink leads back into a directory the walk is already in.
    pub const SYMLINK_LOOP: &str = "symlink_loop";
    /// An interrupted transform of this root was completed (or rolled back) before this run.
    pub const TRANSFORM_RECOVERED: &str = "transform_recovered";
    /// An interrupted transform of this root awaits recovery (a dry run reports it, writing nothing).
    pub const TRANSFORM_PENDING: &str = "transform_pending";
    /// A file's content before a transform was too large to keep for undo.
    pub const UNDO_NOT_KEPT: &str = "undo_not_kept";
    /// A file nested too deep for the query asked (the cost grows with the
    /// product of both depths): not searched.
    pub const QUERY_TOO_DEEP: &str = "query_too_deep";
    /// Item-position macro bodies that do not parse as items: what they
    /// define is not in the outline, definitions or block edits.
    pub const MACRO_NOT_INDEXED: &str = "macro_not_indexed";
    /// `--engine lsp` found no language server for the language: the syntax engine answered.
    pub const LSP_UNAVAILABLE: &str = "lsp_unavailable";
    /// The language server could not start, crashed, timed out, erred, had not loaded its project in
    /// time, or its answer left out sites the syntax engine ties to the symbol: the syntax engine answered.
    pub const LSP_FAILED: &str = "lsp_failed";
    /// Settings of a repository's own configuration that name a program (a filter driver, a signing
    /// program) were not honoured: git ran without them (llm-git).
    pub const GIT_CONFIG_IGNORED: &str = "git_config_ignored";
    /// A git hook that runs after a change (post-commit, post-checkout) failed; the change stands.
    pub const HOOK_FAILED: &str = "hook_failed";
    /// A git hook the operation would trigger in git (reference-transaction, post-index-change) was not run.
    pub const HOOK_NOT_RUN: &str = "hook_not_run";
    /// A name was read as the one symbol whose name path it is exactly;
    /// other symbols share its name (their name paths listed): ask for one
    /// of them by its name path.
    pub const OTHERS_NAMED: &str = "others_named";
}

/// A warning attached to a result: the run succeeded, but something was
/// skipped or approximated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// Stable snake_case code.
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
}

impl Diagnostic {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Diagnostic { code: code.to_string(), path: None, message: message.into() }
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

/// How many files of each kind the run passed over, by the code their
/// diagnostic had. Only the kinds met are printed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Skipped {
    /// Binary files (a NUL byte before any match): not searched.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub binary_file: u64,
    /// Symbolic links not followed (the `follow` option follows them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub symlink_not_followed: u64,
    /// Symbolic links whose target does not exist.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub broken_symlink: u64,
    /// FIFOs, sockets and devices: never opened (a FIFO would block).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_a_regular_file: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Skipped {
    /// Whether nothing was skipped.
    pub fn is_empty(&self) -> bool {
        *self == Skipped::default()
    }

    /// The counter of an expected skip's code; `None` for a diagnostic that
    /// stays a warning.
    fn counter(&mut self, code: &str) -> Option<&mut u64> {
        match code {
            diag::BINARY_FILE => Some(&mut self.binary_file),
            diag::SYMLINK_NOT_FOLLOWED => Some(&mut self.symlink_not_followed),
            diag::BROKEN_SYMLINK => Some(&mut self.broken_symlink),
            diag::NOT_A_REGULAR_FILE => Some(&mut self.not_a_regular_file),
            _ => None,
        }
    }

    /// Takes the expected skips out of `diagnostics` and counts them here.
    pub fn take_from(&mut self, diagnostics: &mut Vec<Diagnostic>) {
        diagnostics.retain(|d| match self.counter(&d.code) {
            Some(n) => {
                *n += 1;
                false
            }
            None => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_skips_are_counted_and_warnings_stay() {
        let at = |code: &str, p: &str| Diagnostic::new(code, "m").with_path(p);
        let mut d = vec![
            at(diag::BINARY_FILE, "a.dat"),
            at(diag::UNREADABLE, "locked"),
            at(diag::BINARY_FILE, "b.dat"),
            at(diag::SYMLINK_NOT_FOLLOWED, "link"),
            at(diag::BROKEN_SYMLINK, "dangling"),
            at(diag::NOT_A_REGULAR_FILE, "fifo"),
            at(diag::OUTPUT_TRUNCATED, "x"),
        ];
        let mut skipped = Skipped::default();
        skipped.take_from(&mut d);
        let codes: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, [diag::UNREADABLE, diag::OUTPUT_TRUNCATED]);
        assert_eq!(
            serde_json::to_value(&skipped).unwrap(),
            serde_json::json!({"binary_file": 2, "symlink_not_followed": 1, "broken_symlink": 1, "not_a_regular_file": 1})
        );
        assert!(Skipped::default().is_empty() && !skipped.is_empty());
        assert_eq!(serde_json::to_string(&Skipped::default()).unwrap(), "{}");
    }
}
