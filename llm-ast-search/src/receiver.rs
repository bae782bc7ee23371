//! What syntax alone tells about a member access, for telling which
//! definition it can mean:
//!
//! * its **use**: a call (`x.f(…)`), a value (`x.f`) or a field initializer
//!   or pattern (`S { f: … }`, Go's `S{f: …}`). Where the language keeps
//!   fields and methods apart (Rust, Java; C and C++ for values), a value
//!   is never a method and, in Rust and Java, a call is never a field; an
//!   initializer is never a method anywhere.
//! * its **receiver's type** where a chain of calls shows it: from a
//!   constructor (`T::new(…)`, `new T(…)`, `T {…}`) or a typed local, each
//!   link typed by the return type its method declares in the files
//!   (`-> Self`, `-> &mut T`, `): T`, Java's `T name(…)`). A link whose
//!   method the files do not define, or define with two return types, ends
//!   the chain unknown.

use std::collections::HashMap;

use aide_core::Lang;
use tree_sitter::Node;

use crate::source::SourceFile;
use crate::symbols::{Symbol, SymbolKind};

/// How a member access uses the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemberUse {
    /// `x.f(…)` (and Java's `x::f`).
    Call,
    /// `x.f`, read or written.
    Value,
    /// `S { f: … }`, `S { f }`, a struct pattern's `f`, Go's `S{f: …}`.
    Initializer,
}

impl MemberUse {
    /// The use of the name at `start..end`; `initializer` when the access
    /// has no receiver (a field key).
    pub(crate) fn of(file: &SourceFile, start: usize, end: usize, initializer: bool) -> MemberUse {
        if initializer {
            return MemberUse::Initializer;
        }
        let after = file.source.get(end..).unwrap_or_default();
        let after = &after[after.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
        let before = file.source.get(..start).unwrap_or_default();
        let before = &before[..before.len() - before.iter().rev().take_while(|b| b.is_ascii_whitespace()).count()];
        let called = after.starts_with(b"(")
            || (file.lang == Lang::Rust && after.starts_with(b"::<"))
            || (file.lang == Lang::Java && before.ends_with(b"::"));
        if called { MemberUse::Call } else { MemberUse::Value }
    }

    /// Whether a symbol of `kind` can be what this use names in `lang`.
    pub(crate) fn can_mean(self, kind: SymbolKind, lang: Lang) -> bool {
        let method = matches!(kind, SymbolKind::Method | SymbolKind::Function);
        match self {
            MemberUse::Initializer => !method,
            MemberUse::Value => !(method && matches!(lang, Lang::Rust | Lang::Java | Lang::C | Lang::Cpp)),
            MemberUse::Call => !(kind == SymbolKind::Field && matches!(lang, Lang::Rust | Lang::Java)),
        }
    }

    /// Whether a module-level symbol can be reached by this use: `pkg.F()`
    /// in Go, `module.f()` in Python and JavaScript; never in Rust, Java, C
    /// and C++, whose member accesses reach members only.
    pub(crate) fn reaches_free_symbols(lang: Lang) -> bool {
        !matches!(lang, Lang::Rust | Lang::Java | Lang::C | Lang::Cpp)
    }
}

/// A receiver built by a chain of calls: its start and the methods called
/// on it in order (`T::new(a).x(b)` is `Constructed { T, via: new }` then
/// `x`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chain {
    start: ChainStart,
    calls: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ChainStart {
    /// A value of the type: `T {…}`, `new T(…)`, a local typed or built as `T`.
    Typed(String),
    /// `T::f(…)`: typed by what `f` returns.
    Associated { owner: String, function: String },
}

impl Chain {
    /// The chain behind `receiver`, where syntax shows one; a local's type
    /// comes from `local_type`.
    pub(crate) fn of(
        file: &SourceFile,
        receiver: Node<'_>,
        local_type: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Chain> {
        chain_of(file, receiver, local_type, 0)
    }

    /// The type the chain yields, by the return types in `returns`.
    pub(crate) fn yields(&self, returns: &ReturnTypes) -> Option<String> {
        let mut ty = match &self.start {
            ChainStart::Typed(t) => t.clone(),
            ChainStart::Associated { owner, function } => returns.of(owner, function)?,
        };
        for call in &self.calls {
            ty = returns.of(&ty, call)?;
        }
        Some(ty)
    }
}

/// Chains nest one node a link; a pathological one stops here.
const MAX_LINKS: usize = 64;

fn chain_of(
    file: &SourceFile,
    node: Node<'_>,
    local_type: &dyn Fn(&str) -> Option<String>,
    depth: usize,
) -> Option<Chain> {
    if depth > MAX_LINKS {
        return None;
    }
    let text = |n: Node<'_>| std::str::from_utf8(&file.source[n.byte_range()]).ok().map(str::to_string);
    let field = |name: &str| node.child_by_field_name(name);
    let typed = |t: Option<Node<'_>>| {
        let t = text(t?)?;
        let bare = t.trim_start_matches(['&', '*']).split(['<', '(', '{', ' ']).next()?.rsplit("::").next()?;
        let bare = bare.rsplit('.').next()?.to_string();
        capitalised(&bare).then_some(Chain { start: ChainStart::Typed(bare), calls: Vec::new() })
    };
    match node.kind() {
        "parenthesized_expression" => chain_of(file, node.named_child(0)?, local_type, depth + 1),
        "identifier" => {
            let name = text(node)?;
            local_type(&name).map(|t| Chain { start: ChainStart::Typed(t), calls: Vec::new() })
        }
        // Rust `T {…}`, Go `T{…}`, Java and TypeScript `new T(…)`.
        "struct_expression" => typed(field("name")),
        "composite_literal" | "object_creation_expression" => typed(field("type")),
        "new_expression" => typed(field("constructor")),
        // Rust, Go, C++, JavaScript and TypeScript calls; Python's `call`.
        "call_expression" | "call" => {
            let function = field("function")?;
            match function.kind() {
                "scoped_identifier" => {
                    let owner = text(function.child_by_field_name("path")?)?;
                    let owner = owner.split('<').next()?.rsplit("::").next()?.to_string();
                    let function = text(function.child_by_field_name("name")?)?;
                    capitalised(&owner)
                        .then_some(Chain { start: ChainStart::Associated { owner, function }, calls: vec![] })
                }
                // Python `T(…)` builds a T where T is a class (capitalised).
                "identifier" if file.lang == Lang::Python => typed(Some(function)),
                kind => {
                    let (object, name) = member_parts(function, kind)?;
                    let mut chain = chain_of(file, object, local_type, depth + 1)?;
                    chain.calls.push(text(name)?);
                    Some(chain)
                }
            }
        }
        // Java `o.m(…)`.
        "method_invocation" => {
            let mut chain = chain_of(file, field("object")?, local_type, depth + 1)?;
            chain.calls.push(text(field("name")?)?);
            Some(chain)
        }
        _ => None,
    }
}

/// The type a field key at `start..end` initializes or matches: `S` of
/// `S { f: … }`, a struct pattern `S { f, .. }`, Go's `S{f: …}`.
pub(crate) fn initializer_type(file: &SourceFile, start: usize, end: usize) -> Option<String> {
    let node = file.tree.root_node().descendant_for_byte_range(start, end)?;
    let literal = std::iter::successors(node.parent(), |n| n.parent())
        .take(4)
        .find(|n| matches!(n.kind(), "struct_expression" | "struct_pattern" | "composite_literal"))?;
    let ty = literal.child_by_field_name("name").or_else(|| literal.child_by_field_name("type"))?;
    let text = std::str::from_utf8(&file.source[ty.byte_range()]).ok()?;
    let bare = text.split('<').next()?.rsplit("::").next()?.rsplit('.').next()?;
    capitalised(bare).then(|| bare.to_string())
}

/// `(object, name)` of a member access node, per grammar.
fn member_parts<'t>(node: Node<'t>, kind: &str) -> Option<(Node<'t>, Node<'t>)> {
    let (object, name) = match kind {
        "field_expression" => ("value", "field"),
        "member_expression" => ("object", "property"),
        "attribute" => ("object", "attribute"),
        "selector_expression" => ("operand", "field"),
        _ => return None,
    };
    Some((node.child_by_field_name(object)?, node.child_by_field_name(name)?))
}

fn capitalised(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase) && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The type a member function declares it returns, as a bare type name
/// (`Self` read as its owner): `-> &mut Self`, `-> Option<T>` is `Option`.
pub(crate) fn declared_return(symbol: &Symbol, owner: &str, lang: Lang) -> Option<String> {
    let sig = symbol.signature.as_str();
    let ret = match lang {
        Lang::Rust | Lang::Python => sig.rsplit_once("->")?.1,
        Lang::TypeScript | Lang::Tsx => sig.rsplit_once("):")?.1,
        Lang::Java => {
            let head = sig.split_once(&format!("{}(", symbol.name))?.0;
            head.split_whitespace().last()?
        }
        _ => return None,
    };
    let ret = ret.split(['{', '=']).next()?.split(" where").next()?.trim().trim_matches(['"', '\'']);
    let ret = ret.trim_start_matches('&').trim_start();
    let ret = if ret.starts_with('\'') { ret.split_once(' ')?.1 } else { ret };
    let ret = ret.trim_start_matches("mut ").trim();
    let bare = ret.split(['<', '[', ' ', ';']).next()?.rsplit("::").next()?.rsplit('.').next()?;
    match bare {
        "Self" | "this" => Some(owner.to_string()),
        b if capitalised(b) => Some(b.to_string()),
        _ => None,
    }
}

/// What each `(owner, method)` of the files returns; a pair defined with
/// two different return types returns nothing known.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReturnTypes {
    by_member: HashMap<(String, String), Option<String>>,
}

impl ReturnTypes {
    pub(crate) fn add(&mut self, owner: String, method: String, returns: Option<String>) {
        self.by_member
            .entry((owner, method))
            .and_modify(|known| {
                if *known != returns {
                    *known = None;
                }
            })
            .or_insert(returns);
    }

    fn of(&self, owner: &str, method: &str) -> Option<String> {
        self.by_member.get(&(owner.to_string(), method.to_string())).cloned().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(lang: Lang, src: &str) -> SourceFile {
        SourceFile::parse("f".into(), lang, src.as_bytes().to_vec()).unwrap_or_else(|_| panic!("parse"))
    }

    fn returns_of(lang: Lang, src: &str, name: &str) -> Option<String> {
        let f = file(lang, src);
        let s = f.outline().iter().find(|s| s.name == name).cloned().unwrap_or_else(|| panic!("{name}"));
        declared_return(&s, "B", lang)
    }

    #[test]
    fn return_types_read_from_signatures() {
        let rust = "struct B;\nimpl<'a> B {\n fn a(&mut self) -> &mut B { self }\n fn b(&'a self) -> &'a Self { self }\n fn c(self) -> Option<B> { None }\n fn d(&self) {}\n fn e() -> Result<Self, E> where E: X { todo() }\n}\n";
        assert_eq!(returns_of(Lang::Rust, rust, "a").as_deref(), Some("B"));
        assert_eq!(returns_of(Lang::Rust, rust, "b").as_deref(), Some("B"));
        assert_eq!(returns_of(Lang::Rust, rust, "c").as_deref(), Some("Option"));
        assert_eq!(returns_of(Lang::Rust, rust, "d"), None);
        assert_eq!(returns_of(Lang::Rust, rust, "e").as_deref(), Some("Result"));
        let java = "class B { B sep(boolean y) { return this; } void run() {} }";
        assert_eq!(returns_of(Lang::Java, java, "sep").as_deref(), Some("B"));
        assert_eq!(returns_of(Lang::Java, java, "run"), None);
        let ts = "class B { sep(y: boolean): B { return this; } }";
        assert_eq!(returns_of(Lang::TypeScript, ts, "sep").as_deref(), Some("B"));
        let py = "class B:\n    def sep(self, y) -> \"B\":\n        return self\n";
        assert_eq!(returns_of(Lang::Python, py, "sep").as_deref(), Some("B"));
    }

    #[test]
    fn chains_are_typed_link_by_link() {
        let src = "fn f(x: Other) { B::new(1).a().sep(true); x.a().sep(true); B { y: 1 }.sep(true); }";
        let f = file(Lang::Rust, src);
        let mut returns = ReturnTypes::default();
        returns.add("B".into(), "new".into(), Some("B".into()));
        returns.add("B".into(), "a".into(), Some("B".into()));
        returns.add("Other".into(), "a".into(), Some("Other".into()));
        let chain_at = |nth: usize, returns: &ReturnTypes| {
            let at = src.match_indices("sep").nth(nth).map(|(i, _)| i).unwrap_or(0);
            let receiver = crate::scopes::receiver_node(&f, at, at + 3).unwrap_or_else(|| panic!("receiver"));
            let local = |name: &str| (name == "x").then(|| "Other".to_string());
            Chain::of(&f, receiver, &local).and_then(|c| c.yields(returns))
        };
        assert_eq!(chain_at(0, &returns).as_deref(), Some("B"));
        assert_eq!(chain_at(1, &returns).as_deref(), Some("Other"));
        assert_eq!(chain_at(2, &returns).as_deref(), Some("B"), "a struct literal is its type");
        // Two return types for one method: unknown.
        returns.add("B".into(), "a".into(), Some("C".into()));
        assert_eq!(chain_at(0, &returns), None);
    }

    #[test]
    fn uses_tell_calls_values_and_initializers() {
        let src = "fn f() { x.sep(1); x.sep; x.sep::<u8>(); }";
        let f = file(Lang::Rust, src);
        let uses: Vec<MemberUse> = src.match_indices("sep").map(|(i, _)| MemberUse::of(&f, i, i + 3, false)).collect();
        assert_eq!(uses, [MemberUse::Call, MemberUse::Value, MemberUse::Call]);
        assert!(!MemberUse::Value.can_mean(SymbolKind::Method, Lang::Rust));
        assert!(MemberUse::Value.can_mean(SymbolKind::Method, Lang::Go), "a Go method value");
        assert!(!MemberUse::Call.can_mean(SymbolKind::Field, Lang::Rust));
        assert!(MemberUse::Call.can_mean(SymbolKind::Field, Lang::Python), "a callable attribute");
        assert!(!MemberUse::Initializer.can_mean(SymbolKind::Method, Lang::Go));
    }
}
