//! A command's output as it arrives: redacted as a stream, kept as a head
//! and a tail when long, and collected when the stream ends (or, when a
//! background child still holds it open, what arrived by a deadline).

use std::io::Read;
use std::sync::mpsc;
use std::time::Instant;

use aide_gate::redact::Redactor;
use aide_gate::redact::stream::StreamRedactor;

/// Output kept as head and tail.
#[derive(Clone)]
struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    total: u64,
    half: usize,
}

impl Capture {
    fn new(max: usize) -> Capture {
        Capture { head: Vec::new(), tail: Default::default(), total: 0, half: (max / 2).max(1) }
    }

    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = self.half.saturating_sub(self.head.len());
        let (to_head, rest) = chunk.split_at(room.min(chunk.len()));
        self.head.extend_from_slice(to_head);
        self.tail.extend(rest);
        while self.tail.len() > self.half {
            self.tail.pop_front();
        }
    }

    fn finish(self) -> (String, u64, bool) {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let truncated = kept < self.total;
        let mut bytes = self.head;
        if truncated {
            bytes.extend_from_slice(format!("\n…[{} bytes omitted]…\n", self.total - kept).as_bytes());
        }
        bytes.extend(self.tail);
        (String::from_utf8_lossy(&bytes).into_owned(), self.total, truncated)
    }
}

/// `bytes` kept as a head and a tail of `max` bytes in all, the cut marked;
/// and whether anything was cut.
pub(crate) fn head_and_tail(bytes: &[u8], max: usize) -> (String, bool) {
    let mut capture = Capture::new(max);
    capture.push(bytes);
    let (text, _, truncated) = capture.finish();
    (text, truncated)
}

/// One output stream as it arrives: redacted as a stream (when asked), so
/// the head and tail are cut from redacted text and no cut shows part of
/// a secret; what it wrote counted before redaction.
struct Received {
    capture: Capture,
    redactor: Option<StreamRedactor>,
    written: u64,
}

impl Received {
    fn push(&mut self, chunk: &[u8]) {
        self.written += chunk.len() as u64;
        match &mut self.redactor {
            Some(r) => {
                let mut safe = Vec::new();
                r.push(chunk, &mut safe);
                self.capture.push(&safe);
            }
            None => self.capture.push(chunk),
        }
    }

    /// Hands on what the redactor holds back: the stream ended, or is given up on.
    fn flush(&mut self) {
        if let Some(r) = &mut self.redactor {
            let mut rest = Vec::new();
            r.finish(&mut rest);
            self.capture.push(&rest);
        }
    }
}

/// What one stream gave: its text, the bytes the command wrote, whether the
/// text was cut, and the secrets replaced.
#[derive(Debug)]
pub(crate) struct Collected {
    pub text: String,
    pub written: u64,
    pub truncated: bool,
    pub redactions: usize,
}

/// A stream being read: what has arrived so far, and a message at its end.
pub(crate) struct Reading {
    received: std::sync::Arc<std::sync::Mutex<Received>>,
    ended: mpsc::Receiver<()>,
}

pub(crate) fn reader(mut pipe: impl Read + Send + 'static, max: usize, redactor: Option<Redactor>) -> Reading {
    let (tx, ended) = mpsc::channel();
    let received = std::sync::Arc::new(std::sync::Mutex::new(Received {
        capture: Capture::new(max),
        redactor: redactor.map(StreamRedactor::new),
        written: 0,
    }));
    let shared = received.clone();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            aide_core::sync::lock(&shared).push(&buf[..n]);
        }
        aide_core::sync::lock(&shared).flush();
        let _ = tx.send(());
    });
    Reading { received, ended }
}

/// What a stream gave: all of it once it ended, or — when a background
/// child still holds the pipe open after `deadline` — what arrived so far
/// (the second value is then false).
pub(crate) fn collect(reading: Option<Reading>, deadline: Instant) -> (Collected, bool) {
    let Some(r) = reading else {
        return (Collected { text: String::new(), written: 0, truncated: false, redactions: 0 }, true);
    };
    let ended = r.ended.recv_timeout(deadline.saturating_duration_since(Instant::now())).is_ok();
    let mut received = aide_core::sync::lock(&r.received);
    if !ended {
        received.flush();
    }
    let redactions = received.redactor.as_ref().map_or(0, StreamRedactor::count);
    let (text, _, truncated) = received.capture.clone().finish();
    (Collected { text, written: received.written, truncated, redactions }, ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_head_and_tail() {
        let mut c = Capture::new(10);
        c.push(b"0123456789abcdefghij");
        let (text, total, cut) = c.finish();
        assert_eq!((total, cut), (20, true));
        assert_eq!(text, "01234\n…[10 bytes omitted]…\nfghij");
        let mut c = Capture::new(100);
        c.push(b"short");
        assert_eq!(c.finish(), ("short".to_string(), 5, false));
    }
}
