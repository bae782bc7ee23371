//! # Dialect: a small functional language for IDE queries
//!
//! A program is one expression, or several separated by `;` (then the value
//! is the list of their values). `//` starts a comment to the end of the line.
//!
//! ```text
//! program := expr (";" expr)* ";"?
//! expr    := call | string | integer
//! call    := IDENT "(" [ expr ("," expr)* ","? ] ")"
//! string  := "`" any character but "`" "`"       (raw: `#\[test\]` is the regex #\[test\])
//!          | "\"" JSON string body "\""          (escapes as in JSON)
//! integer := [0-9]+
//! ```
//!
//! | function | arguments | value |
//! |---|---|---|
//! | `findDefinitions(name)`, alias `findDefinition` | name: string or definitions | definitions |
//! | `findReferences(name)` | name: string or definitions | references |
//! | `findCallers(name)` | name: string, definitions or callers (theirs) | calls with their callers |
//! | `search(path, pattern)` | path: file or folder; pattern: regex | matches |
//! | `search(path, pattern, glob)` | glob: the folder's files to search (`*.rs`, `src/**/*.py`) | matches |
//! | `lines(path, start, end)` | 1-based, inclusive | range |
//!
//! A name is an identifier or the end of a name path (`Agent/run`,
//! `ns::K::m`). A definitions value can be passed wherever a name is
//! expected: `findReferences(findDefinition(`validateToken`))` finds the
//! references of every name defined. Matching is by name, not by type
//! resolution, unless the request's `engine` is `lsp` or `auto`: then
//! `findReferences` answers each name (a definition by its name path) as
//! `--references NAME --engine …` does — the language server's references
//! of the definition the name names, judged by types; else, with the
//! diagnostic saying why (`lsp_unavailable`, `lsp_failed`), the syntax
//! engine's, judged by scope, receiver and qualifier.
//!
//! `findCallers` answers each name as `--callers NAME --engine …` does:
//! each call with `"caller"` (a definition; null at module level),
//! `"matched"` and the `"engine"` that found it. Given callers, it finds
//! their callers: `findCallers(findCallers(`f`))` is who calls f's callers.
//!
//! Values (JSON, typed by [`DialectValue`]): definitions `[{ "name", "kind",
//! "name_path", "defined_at": { "path", "line", "column", "end_line",
//! "end_column" } }]`; references and matches are ranges `{ "path", "line",
//! "column", "end_line", "end_column" }` with `"name"`, `"kind"`,
//! `"enclosing"` or `"match"` and `"text"`; `lines` gives a range with its
//! `"content"`. Spans use the names every tool uses (docs/CONTRACT.md's
//! vocabulary): lines and columns 1-based, the end exclusive. Each range
//! also carries the seed's `start`/`end` points, deprecated.
//!
//! `search`'s third argument was an extension (`rs`, `.rs`); one without
//! glob characters is still read as `*.rs`, with a `deprecated_name`
//! diagnostic.
//!
//! The program is parsed and type-checked before anything runs. Errors are
//! `invalid_program` with the line and column in the program, what was
//! expected, and the closest function name for a misspelt one.

use aide_core::AideError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::lsp::CodeEngine;
use crate::refs::{RefKind, Resolution};
use crate::symbols::SymbolKind;

mod parse;

use parse::error;
pub(crate) use parse::{Expr, Pos, parse};

/// A 1-based line and column (columns count Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Point {
    pub line: usize,
    pub column: usize,
}

/// A range of a file, in the span names of every tool; the end is exclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Range {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    /// Deprecated: `line` and `column` (the seed's point form).
    pub start: Point,
    /// Deprecated: `end_line` and `end_column`.
    pub end: Point,
}

impl Range {
    pub fn new(path: impl Into<String>, start: Point, end: Point) -> Range {
        Range {
            path: path.into(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            start,
            end,
        }
    }
}

/// A definition found by `findDefinitions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Definition {
    pub name: String,
    pub kind: SymbolKind,
    /// The name with its enclosing symbols, `/`-separated (`Agent/run`).
    pub name_path: String,
    pub defined_at: Range,
}

/// A reference found by `findReferences`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ReferenceSite {
    #[serde(flatten)]
    pub range: Range,
    pub name: String,
    pub kind: RefKind,
    /// The name path of the innermost symbol containing the reference.
    pub enclosing: Option<String>,
    /// The line of the reference.
    pub text: String,
}

/// A call found by `findCallers`, and who makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CallerSite {
    #[serde(flatten)]
    pub range: Range,
    /// The name called, as written.
    pub name: String,
    /// The innermost function, method or other body holding the call; null at module level.
    pub caller: Option<Definition>,
    pub matched: Resolution,
    /// Which engine found the call: `syntax` or `lsp`.
    pub engine: CodeEngine,
    /// The line of the call.
    pub text: String,
}

/// A regex match found by `search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SearchMatch {
    #[serde(flatten)]
    pub range: Range,
    /// The matched text.
    #[serde(rename = "match")]
    pub matched: String,
    /// The line of the match.
    pub text: String,
}

/// Lines read by `lines`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LineRange {
    #[serde(flatten)]
    pub range: Range,
    pub content: String,
}

/// The value of a Dialect expression, or of a program of several (`Several`,
/// in order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum DialectValue {
    Definitions(Vec<Definition>),
    References(Vec<ReferenceSite>),
    Callers(Vec<CallerSite>),
    Matches(Vec<SearchMatch>),
    Lines(LineRange),
    Text(String),
    Integer(i64),
    Several(Vec<DialectValue>),
}

impl DialectValue {
    /// False for an empty list (of every value, for `Several`).
    pub fn is_found(&self) -> bool {
        match self {
            DialectValue::Definitions(v) => !v.is_empty(),
            DialectValue::References(v) => !v.is_empty(),
            DialectValue::Callers(v) => !v.is_empty(),
            DialectValue::Matches(v) => !v.is_empty(),
            DialectValue::Several(v) => !v.is_empty(),
            DialectValue::Lines(_) | DialectValue::Text(_) | DialectValue::Integer(_) => true,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            DialectValue::Text(s) => Some(s),
            _ => None,
        }
    }

    fn as_int(&self) -> Option<i64> {
        match self {
            DialectValue::Integer(n) => Some(*n),
            _ => None,
        }
    }
}

/// The types of Dialect values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    Str,
    Int,
    Definitions,
    References,
    Callers,
    Matches,
    Range,
}

impl Type {
    fn describe(self) -> &'static str {
        match self {
            Type::Str => "a string",
            Type::Int => "an integer",
            Type::Definitions => "definitions",
            Type::References => "references",
            Type::Callers => "callers",
            Type::Matches => "search matches",
            Type::Range => "a line range",
        }
    }
}

/// A parameter: its name and the types it accepts.
struct Param {
    name: &'static str,
    accepts: &'static [Type],
}

struct Function {
    name: &'static str,
    params: &'static [Param],
    /// How many trailing parameters may be left out.
    optional: usize,
    returns: Type,
}

const NAME: Param = Param { name: "name", accepts: &[Type::Str, Type::Definitions] };
const PATH: Param = Param { name: "path", accepts: &[Type::Str] };
const CALLED: Param = Param { name: "name", accepts: &[Type::Str, Type::Definitions, Type::Callers] };

const FUNCTIONS: &[Function] = &[
    Function { name: "findDefinitions", params: &[NAME], optional: 0, returns: Type::Definitions },
    Function { name: "findDefinition", params: &[NAME], optional: 0, returns: Type::Definitions },
    Function { name: "findReferences", params: &[NAME], optional: 0, returns: Type::References },
    Function { name: "findCallers", params: &[CALLED], optional: 0, returns: Type::Callers },
    Function {
        name: "search",
        params: &[
            PATH,
            Param { name: "pattern", accepts: &[Type::Str] },
            Param { name: "glob", accepts: &[Type::Str] },
        ],
        optional: 1,
        returns: Type::Matches,
    },
    Function {
        name: "lines",
        params: &[PATH, Param { name: "start", accepts: &[Type::Int] }, Param { name: "end", accepts: &[Type::Int] }],
        optional: 0,
        returns: Type::Range,
    },
];

/// What the interpreter asks of the tree: the tool's engines.
pub(crate) trait Backend {
    /// The definitions of a name.
    fn definitions(&self, name: &str) -> Result<Vec<Definition>, AideError>;
    /// The references of names (identifiers or name paths), by the request's engine.
    fn references(&self, names: &[String]) -> Result<Vec<ReferenceSite>, AideError>;
    /// The calls of names (identifiers, name paths or places) with their callers, by the request's engine.
    fn callers(&self, names: &[String]) -> Result<Vec<CallerSite>, AideError>;
    /// Matches of `pattern` in the file `path`, or in the files of the
    /// folder `path` that match `glob`.
    fn search(&self, path: &str, pattern: &str, glob: Option<&str>) -> Result<Vec<SearchMatch>, AideError>;
    fn lines(&self, path: &str, start: usize, end: usize) -> Result<LineRange, AideError>;
}

fn function(program: &str, name: &str, pos: Pos) -> Result<&'static Function, AideError> {
    FUNCTIONS.iter().find(|f| f.name == name).ok_or_else(|| {
        let names: Vec<&str> = FUNCTIONS.iter().map(|f| f.name).collect();
        let err = error(program, pos, format!("unknown function `{name}`"));
        match aide_core::suggest::closest(name, names.iter().copied()) {
            Some(c) => err.with_hint(format!("did you mean `{c}`? Functions: {}", names.join(", "))),
            None => err.with_hint(format!("functions: {}", names.join(", "))),
        }
    })
}

/// Type-checks an expression, returning its type.
pub(crate) fn check(program: &str, expr: &Expr) -> Result<Type, AideError> {
    match expr {
        Expr::Str(..) => Ok(Type::Str),
        Expr::Int(..) => Ok(Type::Int),
        Expr::Call { name, args, pos } => {
            let f = function(program, name, *pos)?;
            let (min, max) = (f.params.len() - f.optional, f.params.len());
            if args.len() < min || args.len() > max {
                let wanted = if min == max { format!("{min}") } else { format!("{min} or {max}") };
                let params: Vec<&str> = f.params.iter().map(|p| p.name).collect();
                return Err(error(
                    program,
                    *pos,
                    format!("`{name}` takes {wanted} argument{}, got {}", if max == 1 { "" } else { "s" }, args.len()),
                )
                .with_hint(format!("{name}({})", params.join(", "))));
            }
            for (arg, param) in args.iter().zip(f.params) {
                let t = check(program, arg)?;
                if !param.accepts.contains(&t) {
                    let accepted: Vec<&str> = param.accepts.iter().map(|t| t.describe()).collect();
                    return Err(error(
                        program,
                        arg.pos(),
                        format!(
                            "argument `{}` of `{name}` must be {}, found {}",
                            param.name,
                            accepted.join(" or "),
                            t.describe()
                        ),
                    ));
                }
            }
            Ok(f.returns)
        }
    }
}

/// The names a findReferences argument gives: a definition by its name
/// path, so that a server is asked about that one definition.
fn name_paths_of(value: &DialectValue) -> Vec<String> {
    match value {
        DialectValue::Definitions(items) => {
            let mut names: Vec<String> = items.iter().map(|d| d.name_path.clone()).collect();
            names.sort();
            names.dedup();
            names
        }
        other => names_of(other),
    }
}

/// The names a findCallers argument gives: a definition by its name path,
/// callers by theirs (a call at module level has none).
fn called_names(value: &DialectValue) -> Vec<String> {
    match value {
        DialectValue::Callers(calls) => {
            let mut names: Vec<String> =
                calls.iter().filter_map(|c| c.caller.as_ref()).map(|d| d.name_path.clone()).collect();
            names.sort();
            names.dedup();
            names
        }
        other => name_paths_of(other),
    }
}

/// Names a `name` argument stands for: a string, or the names of definitions.
fn names_of(value: &DialectValue) -> Vec<String> {
    match value {
        DialectValue::Text(s) => vec![s.clone()],
        DialectValue::Definitions(items) => {
            let mut names: Vec<String> = items.iter().map(|d| d.name.clone()).collect();
            names.sort();
            names.dedup();
            names
        }
        _ => Vec::new(),
    }
}

fn eval(program: &str, expr: &Expr, backend: &dyn Backend) -> Result<DialectValue, AideError> {
    let (name, args, pos) = match expr {
        Expr::Str(s, _) => return Ok(DialectValue::Text(s.clone())),
        Expr::Int(n, _) => return Ok(DialectValue::Integer(*n)),
        Expr::Call { name, args, pos } => (name.as_str(), args, *pos),
    };
    let values = args.iter().map(|a| eval(program, a, backend)).collect::<Result<Vec<_>, _>>()?;
    let at = |e: AideError| {
        let mut e = e;
        e.message = e.message.map(|m| format!("{name} at {}:{}: {m}", pos.line, pos.column));
        e
    };
    let str_arg = |i: usize| values.get(i).and_then(DialectValue::as_str);
    let int_arg = |i: usize| values.get(i).and_then(DialectValue::as_int).unwrap_or(0);
    // `check` has refused calls with too few arguments before anything ran.
    let Some(first) = values.first() else {
        return Err(AideError::internal(format!("`{name}` reached evaluation without arguments")));
    };
    match name {
        "findDefinitions" | "findDefinition" => {
            let mut out = Vec::new();
            for n in names_of(first) {
                out.extend(backend.definitions(&n).map_err(at)?);
            }
            Ok(DialectValue::Definitions(out))
        }
        "findReferences" => Ok(DialectValue::References(backend.references(&name_paths_of(first)).map_err(at)?)),
        "findCallers" => Ok(DialectValue::Callers(backend.callers(&called_names(first)).map_err(at)?)),
        "search" => Ok(DialectValue::Matches(
            backend.search(str_arg(0).unwrap_or(""), str_arg(1).unwrap_or(""), str_arg(2)).map_err(at)?,
        )),
        "lines" => {
            let (start, end) = (int_arg(1), int_arg(2));
            if start < 1 || end < start {
                return Err(error(
                    program,
                    args[1].pos(),
                    format!("lines {start} to {end} is not a range: lines are 1-based and start ≤ end"),
                ));
            }
            backend.lines(str_arg(0).unwrap_or(""), start as usize, end as usize).map(DialectValue::Lines).map_err(at)
        }
        other => Err(function(program, other, pos).err().unwrap_or_else(|| AideError::internal("unhandled function"))),
    }
}

/// Parses, checks and runs a program: one value, or a list of values for a
/// program of several expressions.
pub(crate) fn run(program: &str, backend: &dyn Backend) -> Result<DialectValue, AideError> {
    let exprs = parse(program)?;
    for e in &exprs {
        check(program, e)?;
    }
    let mut values = exprs.iter().map(|e| eval(program, e, backend)).collect::<Result<Vec<_>, _>>()?;
    Ok(if values.len() == 1 { values.remove(0) } else { DialectValue::Several(values) })
}

#[cfg(test)]
mod tests;
