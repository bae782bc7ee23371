//! A terminal's input: what `send` types is queued, and a thread of the
//! terminal's own writes it to the PTY as fast as its program takes it. A
//! program that does not read holds up only its own input, never the
//! keeper or its other terminals; and what waits for it is bounded: a send
//! that would queue past [`MAX_QUEUED`] is refused whole.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex};

use aide_core::sync::lock;

/// Bytes that may wait for a program to read them (besides the chunk being written).
pub(crate) const MAX_QUEUED: usize = 64 * 1024;

/// The most written to the PTY at once.
const CHUNK: usize = 4096;

/// The queue between `send` and the writer thread.
#[derive(Default)]
struct Queue {
    bytes: VecDeque<u8>,
    /// The terminal is gone: the writer stops.
    closed: bool,
    /// Why the PTY took no more (its program and all holding it ended).
    broken: Option<String>,
}

type Shared = Arc<(Mutex<Queue>, Condvar)>;

/// Why a send was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Queuing would pass [`MAX_QUEUED`]: this many bytes wait already.
    Full { waiting: usize },
    /// The PTY takes no more input.
    Broken(String),
}

/// The input side of one terminal.
pub(crate) struct Input {
    shared: Shared,
}

impl Input {
    /// Starts the writer of `pty` (the master side).
    pub(super) fn start(pty: File) -> Input {
        let shared: Shared = Arc::default();
        let writer = shared.clone();
        std::thread::spawn(move || write_out(pty, &writer));
        Input { shared }
    }

    /// Queues `bytes`, all or nothing.
    pub(super) fn send(&self, bytes: &[u8]) -> Result<(), Refused> {
        let (queue, ready) = &*self.shared;
        let mut q = lock(queue);
        if let Some(why) = &q.broken {
            return Err(Refused::Broken(why.clone()));
        }
        if q.bytes.len() + bytes.len() > MAX_QUEUED {
            return Err(Refused::Full { waiting: q.bytes.len() });
        }
        q.bytes.extend(bytes);
        ready.notify_one();
        Ok(())
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        let (queue, ready) = &*self.shared;
        lock(queue).closed = true;
        ready.notify_one();
    }
}

/// The writer thread: takes the queue's bytes in chunks and writes them,
/// blocking on the PTY (only this thread) while its program does not read.
fn write_out(mut pty: File, shared: &Shared) {
    let (queue, ready) = &**shared;
    loop {
        let chunk: Vec<u8> = {
            let mut q = lock(queue);
            while q.bytes.is_empty() && !q.closed {
                q = ready.wait(q).unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            if q.closed {
                return;
            }
            let n = q.bytes.len().min(CHUNK);
            q.bytes.drain(..n).collect()
        };
        if let Err(e) = pty.write_all(&chunk) {
            let mut q = lock(queue);
            q.broken = Some(e.to_string());
            q.bytes.clear();
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn bytes_reach_the_reader_in_order_and_a_full_queue_refuses_whole() {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let input = Input::start(File::from(std::os::fd::OwnedFd::from(writer)));
        input.send(b"hello ").unwrap();
        input.send(b"world").unwrap();
        let mut got = [0u8; 11];
        reader.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"hello world");
        // Nobody reads now: the pipe fills, then the queue; past it, a send is refused.
        let block = vec![b'x'; 8192];
        let mut refused = None;
        for _ in 0..1000 {
            if let Err(e) = input.send(&block) {
                refused = Some(e);
                break;
            }
        }
        let Some(Refused::Full { waiting }) = refused else { panic!("never refused: {refused:?}") };
        assert!(waiting > MAX_QUEUED - block.len() && waiting <= MAX_QUEUED, "{waiting}");
        // What fits is still taken.
        assert!(input.send(&vec![b'y'; MAX_QUEUED - waiting]).is_ok());
        drop(reader);
    }
}
