//! Replacement templates: `$0`, `$1`, `${name}`, `$$`, read as the regex
//! crate reads them (`Captures::expand`), so a template means the same in
//! `replace_regex`, `--from-matches` and `rewrite`.
//!
//! A reference is the longest run of `[_0-9A-Za-z]` after `$`, or the text
//! inside `${…}`; all digits is a group number, anything else a name (so
//! `$1a` is the group named `1a`, as in regex, sd and fastmod: write `${1}a`).
//! `$$` is a literal `$`; a `$` that starts no reference stays as it is. A
//! group that did not take part, or does not exist, expands to nothing.

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Literal(String),
    Index(usize),
    Name(String),
}

/// A parsed replacement template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Template {
    pieces: Vec<Piece>,
}

impl Template {
    pub(crate) fn parse(text: &str) -> Template {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            literal.push_str(&rest[..at]);
            rest = &rest[at..];
            if rest.starts_with("$$") {
                literal.push('$');
                rest = &rest[2..];
                continue;
            }
            match reference(rest) {
                Some((name, used)) => {
                    if !literal.is_empty() {
                        pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                    }
                    pieces.push(match name.parse::<usize>() {
                        Ok(i) => Piece::Index(i),
                        Err(_) => Piece::Name(name.to_string()),
                    });
                    rest = &rest[used..];
                }
                None => {
                    literal.push('$');
                    rest = &rest[1..];
                }
            }
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        Template { pieces }
    }

    /// The template's references to groups, by number or name.
    pub(crate) fn references(&self) -> impl Iterator<Item = &Piece> {
        self.pieces.iter().filter(|p| !matches!(p, Piece::Literal(_)))
    }

    /// How long [`Template::expand`] makes it with the same `group`,
    /// without making it.
    pub(crate) fn expanded_len<'a>(&self, mut group: impl FnMut(&Piece) -> Option<&'a [u8]>) -> usize {
        self.pieces.iter().fold(0usize, |len, p| {
            len.saturating_add(match p {
                Piece::Literal(s) => s.len(),
                reference => group(reference).map_or(0, <[u8]>::len),
            })
        })
    }

    /// The template with each reference replaced by what `group` gives for
    /// it (nothing for a group that is absent).
    pub(crate) fn expand<'a>(&self, mut group: impl FnMut(&Piece) -> Option<&'a [u8]>) -> Vec<u8> {
        let mut out = Vec::new();
        for p in &self.pieces {
            match p {
                Piece::Literal(s) => out.extend_from_slice(s.as_bytes()),
                reference => out.extend_from_slice(group(reference).unwrap_or_default()),
            }
        }
        out
    }
}

/// The reference at the start of `text` (which starts with `$`): its name
/// and the bytes it takes.
fn reference(text: &str) -> Option<(&str, usize)> {
    let body = &text[1..];
    if let Some(inner) = body.strip_prefix('{') {
        let end = inner.find('}')?;
        // As regex: `${}` names the empty group, which expands to nothing.
        return Some((&inner[..end], end + 3));
    }
    let len = body.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    (len > 0).then(|| (&body[..len], len + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn expand_with_regex_groups(template: &str, re: &regex::bytes::Regex, hay: &[u8]) -> Vec<u8> {
        let caps = re.captures(hay).expect("a match");
        Template::parse(template).expand(|p| match p {
            Piece::Index(i) => caps.get(*i).map(|m| m.as_bytes()),
            Piece::Name(n) => caps.name(n).map(|m| m.as_bytes()),
            Piece::Literal(_) => None,
        })
    }

    #[test]
    fn references_read_as_regex_reads_them() {
        let re = regex::bytes::Regex::new(r"(?P<word>\w+)-(\d+)").unwrap();
        for t in ["$2:$1", "${word}x", "$wordx", "$1a", "${1}a", "$$1", "cost: $", "$}", "${}", "${unclosed", "$0!"] {
            let mut expected = Vec::new();
            re.captures(b"abc-42").unwrap().expand(t.as_bytes(), &mut expected);
            assert_eq!(expand_with_regex_groups(t, &re, b"abc-42"), expected, "template {t:?}");
        }
    }

    proptest! {
        /// Whatever the template, it expands exactly as regex's own expand.
        #[test]
        fn any_template_expands_as_regex_does(t in r"[a-z0-9_${}\- ]{0,24}") {
            let re = regex::bytes::Regex::new(r"(?P<a>x+)(y*)(?P<b_1>z?)").unwrap();
            let hay = b"xxyyz";
            let mut expected = Vec::new();
            re.captures(hay).unwrap().expand(t.as_bytes(), &mut expected);
            prop_assert_eq!(expand_with_regex_groups(&t, &re, hay), expected.clone());
            let caps = re.captures(hay).unwrap();
            let len = Template::parse(&t).expanded_len(|p| match p {
                Piece::Index(i) => caps.get(*i).map(|m| m.as_bytes()),
                Piece::Name(n) => caps.name(n).map(|m| m.as_bytes()),
                Piece::Literal(_) => None,
            });
            prop_assert_eq!(len, expected.len(), "its length measured without making it");
        }
    }
}
