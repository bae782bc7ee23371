//! Dialect's syntax: the program's tokens, and its expressions parsed from
//! them, each with its position for the errors that point at it.

use aide_core::AideError;

use crate::error::AstError;

/// A position in the program, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    Str(String, Pos),
    Int(i64, Pos),
    Call { name: String, args: Vec<Expr>, pos: Pos },
}

impl Expr {
    pub(super) fn pos(&self) -> Pos {
        match self {
            Expr::Str(_, p) | Expr::Int(_, p) => *p,
            Expr::Call { pos, .. } => *pos,
        }
    }
}

pub(super) fn error(program: &str, pos: Pos, message: impl Into<String>) -> AideError {
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

// Long because: one arm per kind of character the Dialect lexer meets, each the token it makes.
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
pub(crate) fn parse(program: &str) -> Result<Vec<Expr>, AideError> {
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
