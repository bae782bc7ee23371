//! A job's stdin: a pipe its supervisor holds open, fed by `send` through
//! a socket in the job's folder.
//!
//! The supervisor serves `keeper.sock` there with [`aide_keeper`]: callers
//! of this uid only, and none more confined than the supervisor (a
//! sandboxed command cannot type into a job that runs outside its
//! sandbox). One request a connection: the line `{"bytes": N, "eof":
//! bool}`, then the N bytes; one answer line `{"outcome": "sent" | "closed"
//! | "full" | "refused", "written": K}`. The bytes go to the pipe as they
//! are, and a job that does not read them is written to for at most
//! [`WRITE_WAIT`] (the pipe is non-blocking: a full one never holds the
//! supervisor). With `eof` the supervisor then closes its end: the command
//! reads end of file. When the command ends, the socket goes. A TERM, INT
//! or HUP sent to the supervisor ends this serving (aide_keeper's handling),
//! not the supervisor: the job goes on, its end is still recorded, and
//! `send` then finds nobody listening.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::ChildStdin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_core::sync::lock;
use serde::{Deserialize, Serialize};

use crate::error::{JobsError, MAX_SEND_BYTES};

/// How long the supervisor goes on writing to a job that does not read.
pub(crate) const WRITE_WAIT: Duration = Duration::from_secs(10);

/// How long either end waits for the other's request or bytes.
const TALK_WAIT: Duration = Duration::from_secs(5);

/// What `send` asks: `bytes` bytes follow this line.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    bytes: usize,
    eof: bool,
}

/// How a send ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    /// Every byte is in the pipe (and, with `eof`, the pipe is closed).
    Sent,
    /// The pipe is closed: the command closed its stdin or ended, or an
    /// earlier `eof` closed it.
    Closed,
    /// The command did not read for [`WRITE_WAIT`]: `written` are in the pipe.
    Full,
    /// The supervisor serves no caller more confined than itself.
    Refused,
}

/// The supervisor's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Reply {
    pub outcome: Outcome,
    pub written: usize,
}

/// The supervisor's end of a job's stdin, shared by the connections that
/// feed it.
pub(crate) struct Feed {
    pipe: Mutex<Option<ChildStdin>>,
    ended: AtomicBool,
}

impl Feed {
    /// The command ended: the socket goes, and the pipe.
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::SeqCst);
        lock(&self.pipe).take();
    }

    fn write(&self, bytes: &[u8], eof: bool) -> Reply {
        let mut pipe = lock(&self.pipe);
        let Some(writer) = pipe.as_mut() else { return Reply { outcome: Outcome::Closed, written: 0 } };
        let reply = write_within(writer, bytes, Instant::now() + WRITE_WAIT);
        if reply.outcome == Outcome::Closed || (eof && reply.outcome == Outcome::Sent) {
            pipe.take();
        }
        reply
    }
}

/// Serves the job's stdin `pipe` from the folder `dir`; None (the pipe
/// closed: the command reads end of file rather than wait for input that
/// cannot come) when the folder cannot be served.
pub(crate) fn serve(dir: &Path, pipe: ChildStdin) -> Option<Arc<Feed>> {
    rustix::fs::fcntl_setfl(&pipe, rustix::fs::OFlags::NONBLOCK).ok()?;
    // The socket's path must fit a socket's name.
    aide_keeper::Place::new(dir).socket()?;
    let held = aide_keeper::hold(dir)?;
    let feed = Arc::new(Feed { pipe: Mutex::new(Some(pipe)), ended: AtomicBool::new(false) });
    let (fed, watched) = (feed.clone(), feed.clone());
    let refusal = aide_keeper::json_line(&Reply { outcome: Outcome::Refused, written: 0 });
    std::thread::spawn(move || {
        let _ended = aide_keeper::serve(
            held,
            refusal,
            move |stream, _| answer(&fed, stream),
            move |_| watched.ended.load(Ordering::SeqCst),
        );
    });
    Some(feed)
}

/// Reads one request from `stream`, writes its bytes, answers.
fn answer(feed: &Feed, stream: UnixStream) {
    let _ = stream.set_read_timeout(Some(TALK_WAIT));
    let mut reader = BufReader::new(&stream);
    let mut line = Vec::new();
    if (&mut reader).take(4096).read_until(b'\n', &mut line).is_err() {
        return;
    }
    let Ok(header) = serde_json::from_slice::<Header>(&line) else { return };
    if header.bytes > MAX_SEND_BYTES {
        return;
    }
    let mut bytes = vec![0; header.bytes];
    if reader.read_exact(&mut bytes).is_err() {
        return;
    }
    let reply = feed.write(&bytes, header.eof);
    let _ = (&stream).write_all(&aide_keeper::json_line(&reply));
}

/// Writes `bytes` to a non-blocking `to` until all are written, it is
/// closed, or `deadline` passes while it is full.
fn write_within(to: &mut impl Write, bytes: &[u8], deadline: Instant) -> Reply {
    let mut written = 0;
    while written < bytes.len() {
        match to.write(&bytes[written..]) {
            Ok(0) => return Reply { outcome: Outcome::Closed, written },
            Ok(n) => written += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Reply { outcome: Outcome::Full, written };
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(_) => return Reply { outcome: Outcome::Closed, written },
        }
    }
    Reply { outcome: Outcome::Sent, written }
}

/// Sends `bytes` (then end of file with `eof`) to job `id`'s stdin through
/// its supervisor in `dir`; None when no supervisor listens there.
pub(crate) fn send(id: i64, dir: &Path, bytes: &[u8], eof: bool) -> Result<Option<Reply>, AideError> {
    let Some(stream) = aide_keeper::Place::new(dir).connect()? else { return Ok(None) };
    let failed = |e: std::io::Error| -> AideError { JobsError::StdinUnavailable { id, message: e.to_string() }.into() };
    stream.set_read_timeout(Some(WRITE_WAIT + TALK_WAIT)).map_err(failed)?;
    stream.set_write_timeout(Some(TALK_WAIT)).map_err(failed)?;
    let mut request = aide_keeper::json_line(&Header { bytes: bytes.len(), eof });
    request.extend_from_slice(bytes);
    (&stream).write_all(&request).map_err(failed)?;
    let mut line = Vec::new();
    BufReader::new(&stream).take(4096).read_until(b'\n', &mut line).map_err(failed)?;
    serde_json::from_slice(&line).map(Some).map_err(|e| {
        let message = format!("its supervisor answered no reply ({e})");
        JobsError::StdinUnavailable { id, message }.into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipe that takes `room` bytes, then is full, or closed.
    struct Pipe {
        taken: Vec<u8>,
        room: usize,
        closed: bool,
    }

    impl Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.closed {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            let n = buf.len().min(self.room - self.taken.len()).min(3);
            if n == 0 {
                return Err(std::io::ErrorKind::WouldBlock.into());
            }
            self.taken.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_byte_is_written_in_pieces_as_given() {
        let mut pipe = Pipe { taken: Vec::new(), room: 100, closed: false };
        let reply = write_within(&mut pipe, b"yes\nno", Instant::now());
        assert_eq!(reply, Reply { outcome: Outcome::Sent, written: 6 });
        assert_eq!(pipe.taken, b"yes\nno");
    }

    #[test]
    fn a_full_pipe_is_given_up_at_the_deadline_and_a_closed_one_at_once() {
        let mut full = Pipe { taken: Vec::new(), room: 4, closed: false };
        let reply = write_within(&mut full, b"0123456789", Instant::now() + Duration::from_millis(20));
        assert_eq!(reply, Reply { outcome: Outcome::Full, written: 4 });
        let mut closed = Pipe { taken: Vec::new(), room: 4, closed: true };
        assert_eq!(write_within(&mut closed, b"x", Instant::now()).outcome, Outcome::Closed);
    }

    #[test]
    fn the_wire_says_what_it_means() {
        let reply = Reply { outcome: Outcome::Full, written: 3 };
        assert_eq!(serde_json::to_string(&reply).unwrap(), r#"{"outcome":"full","written":3}"#);
        let header: Header = serde_json::from_str(r#"{"bytes":2,"eof":true}"#).unwrap();
        assert_eq!((header.bytes, header.eof), (2, true));
    }
}
