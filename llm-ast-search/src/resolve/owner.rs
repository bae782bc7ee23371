//! Which type owns a member: read from its parent's name path, from the
//! file's outline, or from the member whose body holds an offset.

use crate::source::SourceFile;
use crate::symbols::{Symbol, SymbolKind, owner_of};

/// Kinds whose children are members.
fn is_type_kind(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Class
            | SymbolKind::Struct
            | SymbolKind::Impl
            | SymbolKind::Trait
            | SymbolKind::Interface
            | SymbolKind::Enum
            | SymbolKind::Union
    )
}

/// The owner type of a symbol, if it is a member of one.
pub fn member_owner(file: &SourceFile, s: &Symbol) -> Option<String> {
    let parent = s.parent.as_deref()?;
    let parent_kind = file.outline().iter().find(|p| &*p.name_path == parent).map(|p| p.kind);
    let member = match parent_kind {
        Some(k) => is_type_kind(k),
        // A Go method's parent is its receiver, not a symbol of the file.
        None => s.kind == SymbolKind::Method,
    };
    member.then(|| owner_of(parent))
}

/// The last segment of a qualifier: `crate::agent::Agent` → `Agent`, `Vec<T>` → `Vec`.
pub(super) fn last_segment(q: &str) -> &str {
    let q = q.split('<').next().unwrap_or(q);
    let q = q.rsplit("::").next().unwrap_or(q);
    q.rsplit('.').next().unwrap_or(q).trim()
}

/// The owner type of the member whose body holds `offset`.
pub(super) fn enclosing_owner(file: &SourceFile, offset: usize) -> Option<String> {
    let holds = |s: &&Symbol| s.span.byte_start <= offset && offset < s.span.byte_end;
    let outline = file.outline();
    outline
        .iter()
        .filter(holds)
        .filter(|s| is_type_kind(s.kind))
        .max_by_key(|s| s.depth)
        .map(|s| owner_of(&s.name_path))
        .or_else(|| {
            // A Go method: its receiver type.
            outline
                .iter()
                .filter(holds)
                .filter(|s| s.kind == SymbolKind::Method)
                .max_by_key(|s| s.depth)
                .and_then(|s| s.parent.as_deref().map(owner_of))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_read_from_parent_name_paths() {
        assert_eq!(owner_of("impl Agent"), "Agent");
        assert_eq!(owner_of("impl Display for Agent<T>"), "Agent");
        assert_eq!(owner_of("(*Command)"), "Command");
        assert_eq!(owner_of("net/Client"), "Client");
        assert_eq!(owner_of("mod/impl<T> Stack<T>"), "Stack");
    }
}
