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

use crate::error::AstError;
use crate::lsp::CodeEngine;
use crate::refs::{RefKind, Resolution};
use crate::symbols::SymbolKind;

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

/// A position in the program, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Str(String, Pos),
    Int(i64, Pos),
    Call { name: String, args: Vec<Expr>, pos: Pos },
}

impl Expr {
    fn pos(&self) -> Pos {
        match self {
            Expr::Str(_, p) | Expr::Int(_, p) => *p,
            Expr::Call { pos, .. } => *pos,
        }
    }
}

/// The types of Dialect values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
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
pub trait Backend {
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

fn error(program: &str, pos: Pos, message: impl Into<String>) -> AideError {
    let message = message.into();
    let line_text = program.lines().nth(pos.line - 1).unwrap_or("");
    let caret = format!("{}^", " ".repeat(line_text[..].chars().take(pos.column - 1).count()));
    AstError::InvalidProgram {
        message,
        line: pos.line,
        column: pos.column,
        offset: pos.offset,
        snippet: format!("{line_text}\n{caret}"),
    }
    .into()
}

/// The program's tokens.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Int(i64),
    LParen,
    RParen,
    Comma,
    Semi,
    End,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Str(_) => "a string".into(),
        Tok::Int(n) => format!("`{n}`"),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::Comma => "`,`".into(),
        Tok::Semi => "`;`".into(),
        Tok::End => "the end of the program".into(),
    }
}

fn lex(program: &str) -> Result<Vec<(Tok, Pos)>, AideError> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = program.char_indices().collect();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    let pos_at = |i: usize, line: usize, col: usize| Pos {
        offset: chars.get(i).map_or(program.len(), |c| c.0),
        line,
        column: col,
    };
    // Advances over chars[i], keeping line and column.
    let step = |i: &mut usize, line: &mut usize, col: &mut usize| {
        if chars[*i].1 == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i].1;
        let start = pos_at(i, line, col);
        match c {
            c if c.is_whitespace() => step(&mut i, &mut line, &mut col),
            '/' if chars.get(i + 1).map(|c| c.1) == Some('/') => {
                while i < chars.len() && chars[i].1 != '\n' {
                    step(&mut i, &mut line, &mut col);
                }
            }
            '(' | ')' | ',' | ';' => {
                out.push((
                    match c {
                        '(' => Tok::LParen,
                        ')' => Tok::RParen,
                        ',' => Tok::Comma,
                        _ => Tok::Semi,
                    },
                    start,
                ));
                step(&mut i, &mut line, &mut col);
            }
            '`' | '\'' => {
                step(&mut i, &mut line, &mut col);
                let mut s = String::new();
                loop {
                    match chars.get(i) {
                        None => {
                            return Err(error(program, start, format!("unterminated string: expected a closing {c}")));
                        }
                        Some(&(_, d)) if d == c => break,
                        Some(&(_, d)) => {
                            s.push(d);
                            step(&mut i, &mut line, &mut col);
                        }
                    }
                }
                step(&mut i, &mut line, &mut col);
                out.push((Tok::Str(s), start));
            }
            '"' => {
                let from = chars[i].0;
                step(&mut i, &mut line, &mut col);
                let mut escaped = false;
                loop {
                    match chars.get(i) {
                        None => return Err(error(program, start, "unterminated string: expected a closing \"")),
                        Some(&(_, '"')) if !escaped => break,
                        Some(&(_, d)) => {
                            escaped = d == '\\' && !escaped;
                            step(&mut i, &mut line, &mut col);
                        }
                    }
                }
                let to = chars[i].0 + 1;
                step(&mut i, &mut line, &mut col);
                let s: String = serde_json::from_str(&program[from..to])
                    .map_err(|e| error(program, start, format!("invalid escape in string: {e}")))?;
                out.push((Tok::Str(s), start));
            }
            c if c.is_ascii_digit() => {
                let mut n = String::new();
                while let Some(&(_, d)) = chars.get(i).filter(|c| c.1.is_ascii_digit()) {
                    n.push(d);
                    step(&mut i, &mut line, &mut col);
                }
                let value = n.parse().map_err(|_| error(program, start, format!("integer {n} is too large")))?;
                out.push((Tok::Int(value), start));
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut s = String::new();
                while let Some(&(_, d)) = chars.get(i).filter(|c| c.1.is_alphanumeric() || c.1 == '_') {
                    s.push(d);
                    step(&mut i, &mut line, &mut col);
                }
                out.push((Tok::Ident(s), start));
            }
            other => {
                return Err(error(program, start, format!("unexpected character `{other}`"))
                    .with_hint("write strings in backticks (`like this`), e.g. findDefinitions(`MyClass`)"));
            }
        }
    }
    out.push((Tok::End, pos_at(chars.len(), line, col)));
    Ok(out)
}

struct Parser<'p> {
    program: &'p str,
    toks: Vec<(Tok, Pos)>,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &(Tok, Pos) {
        &self.toks[self.at.min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> (Tok, Pos) {
        let t = self.peek().clone();
        self.at += 1;
        t
    }

    fn expected(&self, what: &str) -> AideError {
        let (tok, pos) = self.peek();
        error(self.program, *pos, format!("expected {what}, found {}", describe(tok)))
    }

    fn expr(&mut self) -> Result<Expr, AideError> {
        match self.bump() {
            (Tok::Str(s), pos) => Ok(Expr::Str(s, pos)),
            (Tok::Int(n), pos) => Ok(Expr::Int(n, pos)),
            (Tok::Ident(name), pos) => {
                if self.peek().0 != Tok::LParen {
                    return Err(self
                        .expected(&format!("`(` after the function name `{name}`"))
                        .with_hint("call a function, e.g. findDefinitions(`Name`); names are written in backticks"));
                }
                self.bump();
                let mut args = Vec::new();
                loop {
                    if self.peek().0 == Tok::RParen {
                        self.bump();
                        break;
                    }
                    args.push(self.expr()?);
                    match self.peek().0 {
                        Tok::Comma => {
                            self.bump();
                        }
                        Tok::RParen => {}
                        _ => return Err(self.expected("`,` or `)` after an argument")),
                    }
                }
                Ok(Expr::Call { name, args, pos })
            }
            _ => {
                self.at -= 1;
                Err(self
                    .expected("a function call, a string or an integer")
                    .with_hint("e.g. findDefinitions(`MyClass`) or lines(`src/main.rs`, 10, 15)"))
            }
        }
    }
}

/// Parses a program into its expressions.
pub fn parse(program: &str) -> Result<Vec<Expr>, AideError> {
    aide_core::text::check_depth("the program", aide_core::text::bracket_depth(program))?;
    let toks = lex(program)?;
    let mut p = Parser { program, toks, at: 0 };
    let mut exprs = Vec::new();
    loop {
        if p.peek().0 == Tok::End {
            break;
        }
        exprs.push(p.expr()?);
        match p.peek().0 {
            Tok::Semi => {
                p.bump();
            }
            Tok::End => break,
            _ => return Err(p.expected("`;` or the end of the program")),
        }
    }
    if exprs.is_empty() {
        return Err(error(program, p.peek().1, "the program is empty").with_hint("e.g. findDefinitions(`MyClass`)"));
    }
    Ok(exprs)
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
pub fn check(program: &str, expr: &Expr) -> Result<Type, AideError> {
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
pub fn run(program: &str, backend: &dyn Backend) -> Result<DialectValue, AideError> {
    let exprs = parse(program)?;
    for e in &exprs {
        check(program, e)?;
    }
    let mut values = exprs.iter().map(|e| eval(program, e, backend)).collect::<Result<Vec<_>, _>>()?;
    Ok(if values.len() == 1 { values.remove(0) } else { DialectValue::Several(values) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aide_core::code;
    use serde_json::json;

    /// A backend that records what it was asked: the arguments come back
    /// in the fields of its values.
    struct Echo;

    fn range(path: &str) -> Range {
        Range::new(path, Point { line: 1, column: 1 }, Point { line: 1, column: 1 })
    }

    impl Backend for Echo {
        fn definitions(&self, name: &str) -> Result<Vec<Definition>, AideError> {
            Ok(vec![Definition {
                name: name.into(),
                kind: SymbolKind::Function,
                name_path: name.into(),
                defined_at: range("d"),
            }])
        }
        fn references(&self, names: &[String]) -> Result<Vec<ReferenceSite>, AideError> {
            Ok(names
                .iter()
                .map(|n| ReferenceSite {
                    range: range("r"),
                    name: n.clone(),
                    kind: RefKind::Usage,
                    enclosing: None,
                    text: String::new(),
                })
                .collect())
        }
        fn callers(&self, names: &[String]) -> Result<Vec<CallerSite>, AideError> {
            Ok(names
                .iter()
                .map(|n| CallerSite {
                    range: range("c"),
                    name: n.clone(),
                    caller: Some(Definition {
                        name: format!("{n}_caller"),
                        kind: SymbolKind::Function,
                        name_path: format!("{n}_caller"),
                        defined_at: range("c"),
                    }),
                    matched: Resolution::NameOnly,
                    engine: CodeEngine::Syntax,
                    text: String::new(),
                })
                .collect())
        }
        fn search(&self, path: &str, pattern: &str, ext: Option<&str>) -> Result<Vec<SearchMatch>, AideError> {
            Ok(vec![SearchMatch { range: range(path), matched: pattern.into(), text: ext.unwrap_or("-").into() }])
        }
        fn lines(&self, path: &str, start: usize, end: usize) -> Result<LineRange, AideError> {
            Ok(LineRange { range: range(path), content: format!("{start}-{end}") })
        }
    }

    fn err(program: &str) -> AideError {
        run(program, &Echo).unwrap_err()
    }

    /// The value as JSON, as the tool prints it.
    fn json_of(program: &str) -> serde_json::Value {
        serde_json::to_value(run(program, &Echo).unwrap()).unwrap()
    }

    #[test]
    fn every_seed_program_runs() {
        assert_eq!(json_of("findDefinitions(`MyClass`)")[0]["name"], "MyClass");
        assert_eq!(json_of("findDefinition(`MyClass`)")[0]["name_path"], "MyClass");
        assert_eq!(json_of("findReferences(`validateToken`)")[0]["name"], "validateToken");
        let m = json_of("search(`src/auth.rs`, `async fn`)");
        assert_eq!(
            (&m[0]["path"], &m[0]["match"], &m[0]["text"]),
            (&json!("src/auth.rs"), &json!("async fn"), &json!("-"))
        );
        let m = json_of("search(`src`, `struct.*User`, `.rs`)");
        assert_eq!(
            (&m[0]["path"], &m[0]["match"], &m[0]["text"]),
            (&json!("src"), &json!("struct.*User"), &json!(".rs"))
        );
        assert_eq!(json_of(r"search(`tests`, `#\[test\]`)")[0]["match"], r"#\[test\]");
        let l = json_of("lines(`src/main.rs`, 10, 15)");
        assert_eq!((&l["path"], &l["content"]), (&json!("src/main.rs"), &json!("10-15")));
        let r = json_of("findReferences(findDefinition(`validateToken`))");
        assert_eq!((r[0]["name"].as_str(), r[0]["kind"].as_str()), (Some("validateToken"), Some("usage")));
    }

    #[test]
    fn find_callers_takes_a_name_definitions_or_callers_whose_callers_it_finds() {
        let c = json_of("findCallers(`f`)");
        assert_eq!((&c[0]["name"], &c[0]["caller"]["name_path"]), (&json!("f"), &json!("f_caller")));
        assert_eq!((&c[0]["matched"], &c[0]["engine"]), (&json!("name_only"), &json!("syntax")));
        assert_eq!(json_of("findCallers(findDefinition(`g`))")[0]["name"], "g");
        assert_eq!(json_of("findCallers(findCallers(`f`))")[0]["name"], "f_caller", "the callers' callers");
        let e = err("findReferences(findCallers(`f`))");
        assert!(e.message.contains("must be a string or definitions, found callers"), "{}", e.message);
    }

    #[test]
    fn several_expressions_comments_and_json_strings() {
        let v = json_of("// two\nfindDefinitions(\"A\\u0042\");\nlines('x', 1, 1);");
        assert_eq!(v[0][0]["name"], "AB");
        assert_eq!(v[1]["content"], "1-1");
    }

    proptest::proptest! {
        /// No program, however broken, panics: it runs or is an `invalid_program` (or a backend error).
        #[test]
        fn any_text_is_a_value_or_an_error(program in r#"[a-zA-Z(),;`'"0-9 \n/\\é#]{0,40}"#) {
            if let Err(e) = run(&program, &Echo) {
                proptest::prop_assert!(!e.message.is_empty());
            }
        }

        /// Any characters at all (multi-byte, control, a newline in a
        /// string, a number past i64) are a value or an error with a place.
        #[test]
        fn any_characters_are_a_value_or_an_error(program in "(?s).{0,120}") {
            if let Err(e) = run(&program, &Echo) {
                proptest::prop_assert!(!e.message.is_empty());
            }
        }

        /// Programs built from the grammar, nested and with any string
        /// contents, parse; running them never panics.
        #[test]
        fn programs_of_the_grammar_parse(program in grammar()) {
            proptest::prop_assert!(parse(&program).is_ok(), "{program}");
            let _ = run(&program, &Echo);
        }
    }

    /// A program of the grammar: calls of any name (known or not) with
    /// strings of any characters but the backtick, integers that fit i64,
    /// nested calls, separated by `;`.
    fn grammar() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            "[^`]{0,12}".prop_map(|s| format!("`{s}`")),
            "[0-9]{1,18}",
            any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
        ];
        let expr = leaf.prop_recursive(4, 24, 3, |inner| {
            ("[a-zA-Z_][a-zA-Z0-9_]{0,14}", proptest::collection::vec(inner, 0..4))
                .prop_map(|(name, args)| format!("{name}({})", args.join(", ")))
        });
        proptest::collection::vec(expr, 1..4).prop_map(|exprs| exprs.join(";\n"))
    }

    #[test]
    fn typos_get_the_closest_function() {
        let e = err("findDefintions(`X`)");
        assert_eq!(e.code, code::INVALID_PROGRAM);
        assert!(e.message.contains("unknown function `findDefintions`") && e.message.contains("1:1"), "{}", e.message);
        assert!(e.hint.unwrap().contains("did you mean `findDefinitions`"));
    }

    #[test]
    fn errors_point_at_the_position_and_say_what_was_expected() {
        let e = err("findDefinitions(`X`");
        assert!(e.message.contains("expected `,` or `)`") && e.message.contains("1:20"), "{}", e.message);
        let e = err("lines(`a`, `b`, 3)");
        assert!(
            e.message.contains("argument `start` of `lines` must be an integer, found a string (at 1:12)"),
            "{}",
            e.message
        );
        let e = err("search(`a`)");
        assert!(e.message.contains("`search` takes 2 or 3 arguments, got 1"), "{}", e.message);
        let e = err("findDefinitions(`a`) findReferences(`b`)");
        assert!(e.message.contains("expected `;` or the end of the program, found `findReferences`"), "{}", e.message);
        let e = err("findDefinitions(MyClass)");
        assert!(e.message.contains("expected `(` after the function name `MyClass`"), "{}", e.message);
        let e = err("findDefinitions(`unterminated)");
        assert!(e.message.contains("unterminated string") && e.message.contains("1:17"), "{}", e.message);
        let e = err("lines(`a`, 5, 2)");
        assert!(e.message.contains("not a range"), "{}", e.message);
        let e = err("findReferences(lines(`a`, 1, 2))");
        assert!(e.message.contains("must be a string or definitions, found a line range"), "{}", e.message);
        assert!(err("  ").message.contains("empty"));
        assert!(err("find#").message.contains("unexpected character `#`"));
    }
}
