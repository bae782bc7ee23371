//! What a tool runs: a shell command line, or an argv kept word for word.
//!
//! The rule is the one `ssh`, `watch` and `timeout` users expect: after `--`,
//! **one** argument is a shell command line (`llm-shell exec -- 'cd src && make'`),
//! **several** arguments are an argv whose words are passed literally
//! (`llm-jobs spawn -- printf '[%s]\n' 'a   b' 'c;d'` prints `[a   b]` and
//! `[c;d]`: nothing is split, expanded or run twice). A JSON request says
//! which it means: `"command": "a shell line"` or `"argv": ["word", …]`,
//! exactly one of them.
//!
//! The tools run everything through bash, so an argv becomes a bash line
//! with each word quoted ([`quote_word`]); quoting is lossless, non-UTF-8
//! bytes and control characters included (`$'\xff'`), so the line is also
//! what the tools show and log.

use std::ffi::OsString;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{AideError, CommandError};
pub use crate::quote::{quote_argv, quote_word};

/// The command of a request: `command` or `argv` in JSON, the words after
/// `--` on the command line. Flatten it into a request struct.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CommandArgs {
    /// A bash command line (on the command line: one word after `--`).
    #[arg(skip)]
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "shell_line")]
    pub command: Option<String>,
    /// An argv: the program and its arguments, each passed literally (on the command line: several words after `--`).
    #[arg(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// One word: a shell command line. Several words: an argv, each word
    /// passed literally (no splitting, globbing or expansion).
    #[arg(
        trailing_var_arg = true,
        value_name = "COMMAND",
        value_parser = clap::value_parser!(OsString)
    )]
    #[serde(skip)]
    #[schemars(skip)]
    pub words: Vec<OsString>,
}

/// `command` must be one string: a list would leave open whether its words
/// are an argv or pieces of a line.
fn shell_line<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s)),
        Some(serde_json::Value::Array(_)) => Err(serde::de::Error::custom(
            "`command` is one shell command line (a string); give a list of words as `argv`",
        )),
        Some(other) => Err(serde::de::Error::custom(format!("`command` must be a string, not {other}"))),
    }
}

impl CommandArgs {
    /// A shell command line.
    pub fn line(line: impl Into<String>) -> CommandArgs {
        CommandArgs { command: Some(line.into()), ..Default::default() }
    }

    /// Moves the words given after `--` into `command` (one word) or `argv`
    /// (several), and checks that exactly one of the two is set. Idempotent.
    pub fn normalize(&mut self) -> Result<(), AideError> {
        let words = std::mem::take(&mut self.words);
        if !words.is_empty() {
            if self.command.is_some() || self.argv.is_some() {
                return Err(CommandError::GivenTwice.into());
            }
            match <[OsString; 1]>::try_from(words) {
                Ok([one]) => {
                    let line = one.into_string().map_err(|_| CommandError::NotUtf8)?;
                    self.command = Some(line);
                }
                Err(words) => match words.iter().map(|w| w.to_str().map(str::to_string)).collect::<Option<Vec<_>>>() {
                    Some(argv) => self.argv = Some(argv),
                    // Words that are not UTF-8 cannot travel as JSON strings:
                    // keep them as the equivalent, quoted line.
                    None => self.command = Some(quote_argv(&words)),
                },
            }
        }
        match (&self.command, &self.argv) {
            (Some(_), Some(_)) => Err(CommandError::LineAndArgv.into()),
            (Some(c), None) if c.trim().is_empty() => Err(CommandError::Missing.into()),
            (None, Some(a)) if a.is_empty() => Err(CommandError::Missing.into()),
            (None, None) => Err(CommandError::Missing.into()),
            _ if self.shell_line().len() > MAX_COMMAND_BYTES => Err(CommandError::TooLong.into()),
            _ => Ok(()),
        }
    }

    /// The bash line that runs the command: `command` as written, or `argv`
    /// with each word quoted. Call after [`CommandArgs::normalize`].
    pub fn shell_line(&self) -> String {
        match (&self.command, &self.argv) {
            (Some(c), _) => c.clone(),
            (None, Some(argv)) => quote_argv(argv),
            (None, None) => quote_argv(&self.words),
        }
    }
}

/// The longest command line taken, from a flag, `--request` or MCP alike
/// (one argument of a command line is at most 128 KiB on Linux; a script
/// longer than this belongs in a file).
pub const MAX_COMMAND_BYTES: usize = 1 << 20;

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests start their oracles themselves
mod tests {
    use super::*;
    use crate::code;

    #[test]
    fn one_word_is_a_line_several_are_an_argv() {
        let mut one = CommandArgs { words: vec!["cd src && make".into()], ..Default::default() };
        one.normalize().unwrap();
        assert_eq!((one.command.as_deref(), one.argv.as_ref()), (Some("cd src && make"), None));
        assert_eq!(one.shell_line(), "cd src && make");

        let mut many =
            CommandArgs { words: vec!["printf".into(), "[%s]\\n".into(), "a   b".into()], ..Default::default() };
        many.normalize().unwrap();
        assert_eq!(many.argv.as_deref(), Some(&["printf".to_string(), "[%s]\\n".into(), "a   b".into()][..]));
        assert_eq!(many.shell_line(), r"printf '[%s]\n' 'a   b'");
        many.normalize().unwrap();
    }

    #[test]
    fn non_utf8_words_become_a_quoted_line_and_a_non_utf8_line_is_refused() {
        use std::os::unix::ffi::OsStringExt;
        let mut bytes =
            CommandArgs { words: vec!["echo".into(), OsString::from_vec(b"\xff".to_vec())], ..Default::default() };
        bytes.normalize().unwrap();
        assert_eq!(bytes.command.as_deref(), Some(r"echo $'\xff'"));
        let mut line = CommandArgs { words: vec![OsString::from_vec(b"echo \xff".to_vec())], ..Default::default() };
        assert_eq!(line.normalize().unwrap_err().code, code::INVALID_ARGUMENTS);
    }

    #[test]
    fn exactly_one_of_command_and_argv() {
        let both = CommandArgs { command: Some("x".into()), argv: Some(vec!["y".into()]), words: vec![] };
        assert_eq!(both.clone().normalize().unwrap_err().code, code::INVALID_REQUEST);
        assert_eq!(CommandArgs::default().normalize().unwrap_err().code, code::INVALID_ARGUMENTS);
        assert_eq!(CommandArgs::line("  ").normalize().unwrap_err().code, code::INVALID_ARGUMENTS);
        let list: Result<CommandArgs, _> = serde_json::from_str(r#"{"command": ["a", "b"]}"#);
        assert!(list.unwrap_err().to_string().contains("argv"));
        let argv: CommandArgs = serde_json::from_str(r#"{"argv": ["printf", "%s", "a b"]}"#).unwrap();
        assert_eq!(argv.shell_line(), "printf %s 'a b'");
    }
}
