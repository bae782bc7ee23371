//! The shell's reports: read off their FIFO one message at a time, and
//! parsed (the last status in a message, of the request's own tag).

use std::fs::File;
use std::io::Read;
use std::sync::mpsc;

/// A fresh marker no command can guess: a session's report nonce, a
/// request's tag.
pub(super) fn marker() -> String {
    aide_core::ids::new_execution_id().replace('-', "")
}

/// Reads reports off the FIFO, one message per report.
pub(super) fn report_reader(mut fifo: File, nonce: &str) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    let end = format!("\x1e{nonce} end\n").into_bytes();
    let quit = format!("\x1e{nonce} quit\n").into_bytes();
    std::thread::spawn(move || {
        let mut pending: Vec<u8> = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let Ok(n) = fifo.read(&mut buf) else { return };
            if n == 0 {
                return;
            }
            pending.extend_from_slice(&buf[..n]);
            while let Some(at) = find(&pending, &end) {
                let rest = pending.split_off(at + end.len());
                let report = std::mem::replace(&mut pending, rest);
                if tx.send(report).is_err() {
                    return;
                }
            }
            if find(&pending, &quit).is_some() {
                return;
            }
        }
    });
    rx
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// One report of the shell.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Report {
    /// The tag of the request it answers.
    pub(super) tag: String,
    pub(super) exit_code: i32,
    /// `$-` after the command.
    pub(super) flags: String,
    /// When the command started, in µs since the epoch.
    pub(super) started_us: f64,
    pub(super) working_dir: String,
    /// `declare -p`, `declare -f` and `alias -p` as bash printed them.
    pub(super) state: String,
    /// `set +o` and `shopt -p`.
    pub(super) options: String,
}

impl Report {
    pub(super) fn parse(bytes: &[u8], nonce: &str) -> Option<Report> {
        let text = String::from_utf8_lossy(bytes);
        let head = format!("\x1e{nonce} status ");
        // The last: whatever a command wrote before it (a forged report cut short) is not it.
        let start = text.rfind(&head)? + head.len();
        let (status, rest) = text[start..].split_once('\n')?;
        let mut fields = status.split(' ');
        let tag = fields.next()?.to_string();
        let exit_code = fields.next()?.parse().ok()?;
        let flags = fields.next()?.to_string();
        let started_us = fields.next().and_then(epoch_us)?;
        let (working_dir, rest) = rest.split_once("\0\n")?;
        let (state, rest) = rest.split_once(&format!("\x1e{nonce} options\n"))?;
        let (options, _) = rest.split_once(&format!("\x1e{nonce} end\n"))?;
        Some(Report {
            tag,
            exit_code,
            flags,
            started_us,
            working_dir: working_dir.to_string(),
            state: state.to_string(),
            options: options.to_string(),
        })
    }
}

/// `$EPOCHREALTIME` (seconds with a decimal point or comma) in µs.
fn epoch_us(s: &str) -> Option<f64> {
    s.replace(',', ".").parse::<f64>().ok().map(|x| x * 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_read_whole() {
        let raw =
            "\x1eN status T 3 hB 1.5 2.5\n/a dir\n\0\ndeclare -x A=\"1\"\n\x1eN options\nset +o errexit\n\x1eN end\n";
        let r = Report::parse(raw.as_bytes(), "N").unwrap();
        assert_eq!((r.tag.as_str(), r.exit_code, r.flags.as_str(), r.started_us), ("T", 3, "hB", 1.5e6));
        let cut_short = format!("\x1eN status X 0 hB 1 1\n/forged{raw}");
        assert_eq!(Report::parse(cut_short.as_bytes(), "N").unwrap(), r, "the last report in a message is read");
        assert_eq!(r.working_dir, "/a dir\n");
        assert_eq!(r.state, "declare -x A=\"1\"\n");
        assert_eq!(r.options, "set +o errexit\n");
        assert_eq!(Report::parse(raw.as_bytes(), "other"), None);
    }
}
