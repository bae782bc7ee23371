//! Each file's imports (what it takes from other modules, as written) and
//! exports (the names it offers other modules, by its language's rule).
//! Imports are read from the import statements of the syntax tree
//! ([`lang`]); exports by llm-ast-search's rule of each language
//! ([`llm_ast_search::exports`]): the outline's top-level symbols where the
//! language marks them (`pub`, `public`, a capital letter, no `static`),
//! JavaScript's and TypeScript's `export` statements, or Python's
//! `__all__` as the module builds it, else the public names it binds at
//! module level.

mod exports;
mod lang;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use aide_core::{Lang, Span};
use llm_ast_search::SourceFile;
pub(crate) use llm_ast_search::exports::unquoted;
use schemars::JsonSchema;
use serde::Serialize;

/// How a file imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImportKind {
    /// Python `import m`, JavaScript/TypeScript `import … from "m"`, Java, Go.
    Import,
    /// Python `from m import a`.
    From,
    /// Java `import static`.
    StaticImport,
    /// Rust `use`.
    Use,
    /// Rust `mod m;`: a module in a file of its own.
    Mod,
    /// Rust `extern crate`.
    ExternCrate,
    /// C/C++ `#include "file"`.
    Include,
    /// C/C++ `#include <file>`.
    SystemInclude,
    /// CommonJS `require("m")`.
    Require,
    /// JavaScript/TypeScript `import("m")`: loaded when the call runs.
    DynamicImport,
    /// JavaScript/TypeScript `export … from "m"`: imported to be exported.
    Reexport,
}

impl ImportKind {
    /// Its name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportKind::Import => "import",
            ImportKind::From => "from",
            ImportKind::StaticImport => "static_import",
            ImportKind::Use => "use",
            ImportKind::Mod => "mod",
            ImportKind::ExternCrate => "extern_crate",
            ImportKind::Include => "include",
            ImportKind::SystemInclude => "system_include",
            ImportKind::Require => "require",
            ImportKind::DynamicImport => "dynamic_import",
            ImportKind::Reexport => "reexport",
        }
    }
}

/// One import.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Import {
    pub kind: ImportKind,
    /// The module, path or header as written, without quotes or brackets:
    /// `std::collections`, `os.path`, `./util`, `stdio.h`, `fmt`; for a
    /// `require` or `import()` of a computed specifier, the expression as
    /// written (`` `./locale/${lang}.js` ``, `name`).
    pub module: String,
    /// The names taken from it as written (`a`, `b as c`, `*`); empty when
    /// the module itself is imported.
    pub names: Vec<String>,
    /// The name the module is bound to (`import numpy as np`, Go's `f "fmt"`).
    pub alias: Option<String>,
    /// The import statement.
    #[serde(flatten)]
    pub span: Span,
}

/// Where a file's exports come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportRule {
    /// Python's `__all__`, as the module's module-level statements build
    /// it (`__all__ = […]`, `+=`, `.extend`, `.append`, `.remove`, in any
    /// `if`/`try`/`with` too).
    All,
    /// The language's rule for what other modules may use.
    Language,
}

/// One name a file offers other modules.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Export {
    /// The name as other modules use it (for a member, the outline's name path).
    pub name: String,
    /// The outline's kind of what it names (`Function`, `Class`, …), or
    /// `Variable`, `Import` (a name an import binds, re-offered),
    /// `Reexport` (`export … from`, `pub use`), `Default` (`export default`)
    /// or `Unknown` (a name of Python's `__all__` the module binds nowhere
    /// it can be read: by `from m import *`, `globals()`).
    pub kind: String,
    /// The definition, or the statement that exports it.
    #[serde(flatten)]
    pub span: Span,
}

/// A file's imports and exports.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileImports {
    pub path: String,
    pub language: Lang,
    /// SHA-256 of the file's bytes as parsed.
    pub checksum: Arc<str>,
    /// In source order.
    pub imports: Vec<Import>,
    /// In source order; from `__all__`, in the order it is built.
    pub exports: Vec<Export>,
    pub exports_from: ExportRule,
    /// False when Python's `__all__` also takes values known only at run
    /// time (`__all__.extend(f())`, `__all__ = other.__all__ + […]`): then
    /// `exports` holds the names written as strings, and the module exports
    /// more; false too when, without `__all__`, a module-level `from m
    /// import *` binds names the file does not write.
    pub exports_complete: bool,
}

/// The imports and exports of a parsed file.
pub(crate) fn of_file(file: &SourceFile) -> FileImports {
    let imports = lang::imports(file);
    let exports = exports::exports(file);
    FileImports {
        path: file.path.clone(),
        language: file.lang,
        checksum: file.checksum().clone(),
        imports,
        exports: exports.exports,
        exports_from: exports.rule,
        exports_complete: exports.complete,
    }
}

/// The text of a node, whitespace runs collapsed to one space.
pub(crate) fn text(node: tree_sitter::Node<'_>, source: &[u8]) -> String {
    String::from_utf8_lossy(&source[node.byte_range()]).split_whitespace().collect::<Vec<_>>().join(" ")
}
