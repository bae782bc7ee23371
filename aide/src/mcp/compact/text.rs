//! Descriptions for a model: the first sentence, without the command line's remarks.

/// The first sentence of a doc comment, on one line: what the field is.
/// Later sentences (flag syntax, edge cases) are for `--help`.
pub(super) fn first_sentence(text: &str) -> String {
    let paragraph = text.split("\n\n").next().unwrap_or("");
    let line = without_command_line_notes(&paragraph.split_whitespace().collect::<Vec<_>>().join(" "));
    let line = flags_as_fields(&line);
    let bytes = line.as_bytes();
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'.' if depth <= 0 && bytes.get(i + 1).is_some_and(|n| *n == b' ') => {
                let before = &line[..i];
                let abbreviation = ["e.g", "i.e", "etc", "vs"].iter().any(|a| before.ends_with(a));
                if !abbreviation {
                    return line[..=i].to_string();
                }
            }
            _ => {}
        }
    }
    line
}

/// A flag named in a description (`--max-depth`) as the field a model
/// passes (`max_depth`).
fn flags_as_fields(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        let name_len =
            rest[at + 2..].find(|c: char| !(c.is_ascii_lowercase() || c == '-')).unwrap_or(rest.len() - at - 2);
        let name = &rest[at + 2..at + 2 + name_len];
        let starts_word = rest[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        out.push_str(&rest[..at]);
        if starts_word && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push_str(&name.replace('-', "_"));
        } else {
            out.push_str(&rest[at..at + 2 + name_len]);
        }
        rest = &rest[at + 2 + name_len..];
    }
    out.push_str(rest);
    out
}

/// A description without its parenthesised remarks about the command line
/// (`(on the command line: one word after --)`): a model calls the tool
/// with JSON.
fn without_command_line_notes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" (") {
        let Some(len) = rest[at..].find(')') else { break };
        let end = at + len + 1;
        out.push_str(&rest[..at]);
        let remark = &rest[at..end];
        if !remark.contains("command line") {
            out.push_str(remark);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The compact output schema of a tool's document (`document`, the whole
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentences_keep_abbreviations_and_parentheses() {
        assert_eq!(first_sentence("Match case.\nMore here."), "Match case.");
        assert_eq!(first_sentence("A name, e.g. Foo. Then."), "A name, e.g. Foo.");
        assert_eq!(first_sentence("Skip (see a. b) this. No."), "Skip (see a. b) this.");
        assert_eq!(first_sentence("No full stop"), "No full stop");
        assert_eq!(first_sentence("An argv (on the command line: after `--`)."), "An argv.");
        // Every command-line remark goes, not only a first parenthesis.
        assert_eq!(first_sentence("Bytes (at most) to keep (on the command line: K, M)."), "Bytes (at most) to keep.");
        assert_eq!(first_sentence("One\nline wrapped. Two."), "One line wrapped.");
        // A model passes fields, not flags.
        assert_eq!(first_sentence("With --max-depth, bound it."), "With max_depth, bound it.");
        assert_eq!(first_sentence("After `--` and a--b."), "After `--` and a--b.");
    }
}
