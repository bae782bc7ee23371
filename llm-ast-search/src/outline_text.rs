//! The outline's text forms: every symbol nested (`Kind name/path
//! [start-end]`), the dense form (`--compact`), and a folder's exported
//! surface (the default for a folder or several files): per file, the names
//! its language's rule exports, grouped by kind, each with its start line.

use std::collections::HashMap;
use std::io::{self, Write};

use aide_core::color::{Paint, TextOut};
use aide_core::text::escape_controls;

use crate::symbols::{Symbol, SymbolKind};

/// How the text outline shows each file's symbols (JSON always holds
/// every symbol).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutlineView {
    /// Every symbol on its own line, indented by nesting.
    #[default]
    Full,
    /// Every symbol, dense (`--compact`).
    Compact,
    /// The exported top-level symbols only, names grouped by kind with
    /// their start lines: a folder's or several files' outline unless
    /// `--all`, `--kind`, `--name` or `--depth` asks for more.
    Surface,
}

/// Whether the surface view lists `symbol`: its file exports it.
pub(crate) fn on_surface(symbol: &Symbol) -> bool {
    symbol.exported == Some(true)
}

/// The outline of one file's symbols (in outline order) in `view`: its
/// path, then its symbols. A file with nothing to show in the view is left
/// out, path and all.
pub(crate) fn write_outline(w: &mut TextOut<'_>, symbols: &[Symbol], view: OutlineView) -> io::Result<()> {
    let Some(first) = symbols.first() else { return Ok(()) };
    if view == OutlineView::Surface && !symbols.iter().any(on_surface) {
        return Ok(());
    }
    w.paint(Paint::Path, escape_controls(&first.path))?;
    writeln!(w)?;
    match view {
        OutlineView::Compact => write_compact_outline(w, symbols),
        OutlineView::Surface => write_surface(w, symbols),
        OutlineView::Full => {
            for s in symbols {
                write!(w, "{:indent$}", "", indent = 2 * s.depth)?;
                w.paint(Paint::Kind, s.kind)?;
                writeln!(w, " {} [{}-{}]", s.name_path, s.span.line, s.span.end_line)?;
            }
            Ok(())
        }
    }
}

/// The surface of a file: a line a kind, in the order the kinds first
/// appear, each exported name once with its start lines in source order
/// (`fn from_str:12 to_string:40,58` — an overloaded name has several).
/// A member exported on its own (a C++ namespace's, a Go method) is named
/// by its name path (`net/connect`, `(*Client)/Do`).
fn write_surface(w: &mut TextOut<'_>, symbols: &[Symbol]) -> io::Result<()> {
    // (kind word, [(name, lines)]) in order of first appearance; where each
    // (kind word, name) is, so a file of thousands of names costs no square.
    let mut groups: Vec<(&'static str, Vec<NameLines<'_>>)> = Vec::new();
    let mut seen: HashMap<(&'static str, &str), (usize, usize)> = HashMap::new();
    for s in symbols.iter().filter(|s| on_surface(s)) {
        let word = kind_word(s.kind);
        let name: &str = if s.parent.is_some() { &s.name_path } else { &s.name };
        if let Some(&(group, at)) = seen.get(&(word, name)) {
            groups[group].1[at].1.push(s.span.line);
            continue;
        }
        let group = match groups.iter().position(|(k, _)| *k == word) {
            Some(group) => group,
            None => {
                groups.push((word, Vec::new()));
                groups.len() - 1
            }
        };
        seen.insert((word, name), (group, groups[group].1.len()));
        groups[group].1.push((name, vec![s.span.line]));
    }
    for (word, names) in groups {
        write!(w, "  ")?;
        w.paint(Paint::Kind, word)?;
        for (name, lines) in names {
            write!(w, " {name}:")?;
            for (i, line) in lines.iter().enumerate() {
                write!(w, "{}{line}", if i == 0 { "" } else { "," })?;
            }
        }
        writeln!(w)?;
    }
    Ok(())
}

/// A name of a surface and its start lines.
type NameLines<'a> = (&'a str, Vec<usize>);

/// The line after a surface: what it leaves out (how many top-level
/// symbols, and every symbol's members) and how to see them.
pub(crate) fn write_surface_note(w: &mut TextOut<'_>, left_out: usize) -> io::Result<()> {
    let all = w.voice().on("all");
    let s = if left_out == 1 { "" } else { "s" };
    let others = match left_out {
        0 => String::new(),
        n => format!("{n} other top-level symbol{s} and "),
    };
    w.paint(
        Paint::Dim,
        format_args!("(exported top-level symbols only: {others}members not shown; {all} lists every symbol)"),
    )?;
    writeln!(w)
}

/// Whether a symbol the surface leaves out is counted in its note: a
/// top-level one (members are left out whole, uncounted, so the surface
/// need not walk them).
pub(crate) fn counted_left_out(symbol: &Symbol) -> bool {
    symbol.depth == 1 && !on_surface(symbol)
}

/// The dense outline: a symbol with members is `kind name:start-end` and,
/// when its members have none of their own, `{member:line …}` on the same
/// line; leaves side by side (`fn top:7  const MAX:9`) on one line. Half
/// the bytes of the default or less; the JSON keeps the full ranges.
fn write_compact_outline(w: &mut TextOut<'_>, symbols: &[Symbol]) -> io::Result<()> {
    let mut i = 0;
    let mut leaves: Vec<String> = Vec::new();
    let mut leaves_depth = 0;
    let flush = |w: &mut TextOut<'_>, leaves: &mut Vec<String>, depth: usize| -> io::Result<()> {
        if !leaves.is_empty() {
            writeln!(w, "{:indent$}{}", "", leaves.join("  "), indent = 2 * depth)?;
            leaves.clear();
        }
        Ok(())
    };
    while i < symbols.len() {
        let s = &symbols[i];
        let subtree = symbols[i + 1..].iter().take_while(|c| c.depth > s.depth).count();
        let head = compact_head(s);
        if subtree == 0 {
            if leaves_depth != s.depth {
                flush(w, &mut leaves, leaves_depth)?;
                leaves_depth = s.depth;
            }
            leaves.push(format!("{head}:{}", s.span.line));
            i += 1;
            continue;
        }
        flush(w, &mut leaves, leaves_depth)?;
        let members = &symbols[i + 1..=i + subtree];
        write!(w, "{:indent$}", "", indent = 2 * s.depth)?;
        w.paint(Paint::Kind, &head)?;
        write!(w, ":{}-{}", s.span.line, s.span.end_line)?;
        if members.iter().all(|m| m.depth == s.depth + 1) {
            let listed: Vec<String> = members.iter().map(|m| format!("{}:{}", m.name, m.span.line)).collect();
            writeln!(w, " {{{}}}", listed.join(" "))?;
            i += 1 + subtree;
        } else {
            writeln!(w)?;
            i += 1;
        }
    }
    flush(w, &mut leaves, leaves_depth)
}

/// A symbol's short kind and name: `fn run`, `struct Agent`, `impl Agent`.
fn compact_head(s: &Symbol) -> String {
    match s.kind {
        // Its name says it: `impl Agent`, `impl Display for Agent`.
        SymbolKind::Impl => s.name.clone(),
        kind => format!("{} {}", kind_word(kind), s.name),
    }
}

/// The short word of a kind, as the dense forms write it.
fn kind_word(kind: SymbolKind) -> &'static str {
    use SymbolKind as K;
    match kind {
        K::Function | K::Method => "fn",
        K::Struct => "struct",
        K::Enum => "enum",
        K::Union => "union",
        K::TypeAlias => "type",
        K::Trait => "trait",
        K::Interface => "interface",
        K::Impl => "impl",
        K::Class => "class",
        K::Module => "mod",
        K::Namespace => "namespace",
        K::Constant => "const",
        K::Static => "static",
        K::Macro => "macro",
        K::Field => "field",
        K::Variant => "variant",
        K::Declaration => "decl",
    }
}
