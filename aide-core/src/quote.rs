//! Words quoted for bash, byte for byte: what makes an argv one shell line
//! that runs exactly that argv, and what the tools show and log of it.

/// The words as one bash line that runs exactly that argv.
pub fn quote_argv<S: AsRef<std::ffi::OsStr>>(words: &[S]) -> String {
    words.iter().map(|w| quote_word(w.as_ref().as_encoded_bytes())).collect::<Vec<_>>().join(" ")
}

/// One word quoted for bash, byte for byte: bare when it holds only
/// characters bash never interprets, in single quotes when it is printable
/// UTF-8, and in ANSI-C quotes (`$'…'`) when it holds control characters or
/// bytes that are not UTF-8.
pub fn quote_word(word: &[u8]) -> String {
    // No `=`: a bare first word `A=1` would be an assignment, not a program.
    let safe = |b: u8| b.is_ascii_alphanumeric() || b"_-+:,./@%".contains(&b);
    if !word.is_empty() && word.iter().all(|&b| safe(b)) {
        return String::from_utf8_lossy(word).into_owned();
    }
    match std::str::from_utf8(word) {
        Ok(s) if !s.chars().any(char::is_control) => format!("'{}'", s.replace('\'', r"'\''")),
        _ => {
            let mut out = String::from("$'");
            for chunk in word.utf8_chunks() {
                for c in chunk.valid().chars() {
                    match c {
                        '\\' => out.push_str(r"\\"),
                        '\'' => out.push_str(r"\'"),
                        '\n' => out.push_str(r"\n"),
                        '\t' => out.push_str(r"\t"),
                        '\r' => out.push_str(r"\r"),
                        c if c.is_control() => {
                            let mut buf = [0; 4];
                            for b in c.encode_utf8(&mut buf).bytes() {
                                out.push_str(&format!("\\x{b:02x}"));
                            }
                        }
                        c => out.push(c),
                    }
                }
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            out.push('\'');
            out
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests start their oracles themselves
mod tests {
    use super::*;

    /// The words bash makes of a line, as printf receives them.
    fn bash_words(line: &str) -> Vec<Vec<u8>> {
        let out =
            std::process::Command::new("bash").arg("-c").arg(format!("printf '%s\\0' {line}")).output().expect("bash");
        let mut words: Vec<Vec<u8>> = out.stdout.split(|&b| b == 0).map(<[u8]>::to_vec).collect();
        words.pop();
        words
    }

    #[test]
    fn quoted_words_reach_bash_byte_for_byte() {
        let words: Vec<&[u8]> = vec![
            b"plain",
            b"a   b",
            b"c;d",
            b"$HOME",
            b"'single'",
            b"\"double\"",
            b"*.rs",
            b"line\nbreak",
            b"",
            b"\xff\xfe bytes",
            b"tab\there",
            b"back\\slash",
            b"-n",
            b"caf\xc3\xa9",
            b"!bang",
            b"~",
            b"a{b,c}",
            b"`cmd`",
            b"$(cmd)",
            b"A=1",
        ];
        let line = words.iter().map(|w| quote_word(w)).collect::<Vec<_>>().join(" ");
        let expected: Vec<Vec<u8>> = words.iter().map(|w| w.to_vec()).collect();
        assert_eq!(bash_words(&line), expected, "{line}");
    }

    #[test]
    fn safe_words_stay_bare() {
        assert_eq!(quote_word(b"cargo"), "cargo");
        assert_eq!(quote_word(b"--release"), "--release");
        assert_eq!(quote_word(b"src/main.rs"), "src/main.rs");
        assert_eq!(quote_word(b"a b"), "'a b'");
        assert_eq!(quote_word(b"it's"), r"'it'\''s'");
        assert_eq!(quote_word(b""), "''");
        assert_eq!(quote_word(b"\xff"), r"$'\xff'");
    }
}
