//! One name per concept: the field names every tool's request and output
//! and the Dialect use for the same thing, each with what it means, and the
//! old names still taken for it (as request aliases, with a
//! `deprecated_name` diagnostic).
//!
//! docs/CONTRACT.md lists the same table (a test holds them equal); `aide
//! mcp` says it once in its instructions instead of in every tool's schema.

/// A name of the shared vocabulary.
#[derive(Debug, Clone, Copy)]
pub struct Term {
    pub name: &'static str,
    pub meaning: &'static str,
    /// Names some tool took for it before, still accepted in requests.
    pub old_names: &'static [&'static str],
}

/// The shared names, in the order CONTRACT lists them.
pub const TERMS: &[Term] = &[
    Term {
        name: "root",
        meaning: "the directory a run works in; every path of its request and result is relative to it",
        old_names: &[],
    },
    Term { name: "path", meaning: "one file (or directory), relative to the root", old_names: &["file"] },
    Term { name: "paths", meaning: "files or directories, relative to the root; one or a list", old_names: &["path"] },
    Term {
        name: "glob",
        meaning: "globs of the files to include, `!glob` to exclude (gitignore syntax, relative to the root); one or a list",
        old_names: &["file_glob", "pattern", "ext"],
    },
    Term {
        name: "type",
        meaning: "only files of these languages (rust, python, typescript, tsx, javascript, c, cpp, java, go); one or a list",
        old_names: &[],
    },
    Term {
        name: "language",
        meaning: "the one language a query, template or named file is parsed as",
        old_names: &["lang"],
    },
    Term { name: "hidden", meaning: "include hidden files and directories", old_names: &[] },
    Term {
        name: "engine",
        meaning: "who answers references, callers, implementations, hover and rename_symbol: `syntax` (tree-sitter; the default), `lsp` (the language's server, kept warm; without one the syntax engine answers, with an `lsp_unavailable` diagnostic) or `auto` (a server where one is installed)",
        old_names: &[],
    },
    Term { name: "no_ignore", meaning: "do not honour .gitignore, .ignore and similar files", old_names: &[] },
    Term { name: "follow", meaning: "follow symbolic links (never out of the root)", old_names: &[] },
    Term { name: "max_depth", meaning: "descend at most this many directories below the root", old_names: &[] },
    Term { name: "max_filesize", meaning: "skip files over this many bytes", old_names: &[] },
    Term {
        name: "changed",
        meaning: "only files git says changed against this revision (HEAD: the working tree and index), untracked included",
        old_names: &[],
    },
    Term { name: "line", meaning: "1-based line of a span's start", old_names: &["start.line"] },
    Term {
        name: "column",
        meaning: "1-based column of a span's start, in Unicode scalar values",
        old_names: &["start.column"],
    },
    Term {
        name: "end_line",
        meaning: "the line a span ends on: its end is (end_line, end_column), exclusive",
        old_names: &["end.line"],
    },
    Term {
        name: "end_column",
        meaning: "the column of a span's exclusive end: the character there is not in the span",
        old_names: &["end.column"],
    },
    Term { name: "byte_start", meaning: "0-based byte offset of a span's start in the file", old_names: &[] },
    Term { name: "byte_end", meaning: "0-based byte offset of a span's end, exclusive", old_names: &[] },
    Term {
        name: "checksum",
        meaning: "SHA-256 (lowercase hex) of a file's bytes as the tool read them",
        old_names: &[],
    },
    Term {
        name: "checksum_before",
        meaning: "the checksum a file must still have for an edit to apply",
        old_names: &[],
    },
    Term { name: "limit", meaning: "at most this many records (lines, for a read)", old_names: &[] },
    Term {
        name: "offset",
        meaning: "skip this many records (lines, for a read) first: a previous result's `next_offset`",
        old_names: &[],
    },
    Term {
        name: "next_offset",
        meaning: "the `offset` that continues a result cut by `limit`; null when nothing is left",
        old_names: &[],
    },
    Term {
        name: "tree_checksum",
        meaning: "SHA-256 of the sorted `<checksum>  <path>` lines of every file and link beneath a directory (`read` of a directory gives it)",
        old_names: &[],
    },
    Term {
        name: "expected_tree_checksum",
        meaning: "the tree checksum a directory must still have for an operation on it to apply",
        old_names: &[],
    },
    Term {
        name: "argv",
        meaning: "a list of strings: the program and its arguments, each passed literally (instead of a shell `command`)",
        old_names: &[],
    },
    Term {
        name: "max_risk",
        meaning: "refuse a command above this risk (`low` runs only read-only commands): `risk_denied`, nothing run",
        old_names: &[],
    },
    Term {
        name: "max_line_len",
        meaning: "cut shown lines longer than this many characters (0: never)",
        old_names: &[],
    },
    Term {
        name: "no_redact",
        meaning: "show secrets' values instead of `[REDACTED]` (output, environment)",
        old_names: &[],
    },
    Term { name: "terminal_id", meaning: "a terminal's id, as term_start answered it", old_names: &[] },
];

/// The term named `name`, if it is one.
pub fn term(name: &str) -> Option<&'static Term> {
    TERMS.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_is_one_term_and_no_old_name_is_a_current_one_of_another_concept() {
        let mut seen = std::collections::BTreeSet::new();
        for t in TERMS {
            assert!(seen.insert(t.name), "{} twice", t.name);
            assert!(!t.meaning.is_empty());
        }
        // `path` is both: the one-file name, and the old name of `paths`
        // where a tool took several (llm-read, llm-ast-search).
        for t in TERMS {
            for old in t.old_names {
                assert!(*old == "path" || term(old).is_none(), "{old} is an old name and a current one");
            }
        }
    }
}
