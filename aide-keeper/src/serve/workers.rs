//! The threads that serve a keeper's connections: each waits in `accept`
//! itself and serves what it accepted, and they are kept between
//! connections. A thread handed each connection by another cost a wake-up
//! more per request, and a new thread per connection its start and its
//! allocator's first requests (a fresh arena, an empty cache): more than a
//! small request's answer.

use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// What the serving threads share.
struct Shared {
    listener: UnixListener,
    /// Threads waiting in `accept`.
    waiting: AtomicUsize,
    /// Set when the keeper is going: a connection accepted then is closed unserved.
    ended: Arc<AtomicBool>,
    serve: Box<dyn Fn(UnixStream) + Send + Sync>,
}

/// Serves `listener`'s connections with `serve` until `ended`, each on a
/// thread of its own at the time: a thread that accepts one starts another
/// to wait when none is left waiting, so no connection waits for another's
/// answer.
pub(super) fn serve_on_threads(
    listener: UnixListener,
    ended: Arc<AtomicBool>,
    serve: impl Fn(UnixStream) + Send + Sync + 'static,
) {
    start(Arc::new(Shared { listener, waiting: AtomicUsize::new(0), ended, serve: Box::new(serve) }));
}

fn start(shared: Arc<Shared>) {
    std::thread::spawn(move || {
        loop {
            shared.waiting.fetch_add(1, Ordering::SeqCst);
            let accepted = shared.listener.accept();
            if shared.waiting.fetch_sub(1, Ordering::SeqCst) == 1 {
                start(shared.clone());
            }
            if shared.ended.load(Ordering::SeqCst) {
                return;
            }
            if let Ok((stream, _)) = accepted {
                (shared.serve)(stream);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::sync::Barrier;

    /// Connections served at once each get a thread, whichever threads
    /// wait after earlier ones: a slow answer holds up no other.
    #[test]
    fn connections_at_once_are_served_at_once() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("s");
        let listener = UnixListener::bind(&path).expect("a socket");
        let served = Arc::new(AtomicUsize::new(0));
        let together = Arc::new(Barrier::new(3));
        let (count, barrier) = (served.clone(), together.clone());
        serve_on_threads(listener, Arc::new(AtomicBool::new(false)), move |mut stream| {
            let mut byte = [0u8; 1];
            let _ = stream.read_exact(&mut byte);
            if byte[0] == b'w' {
                // Waits for the two others: served one after the other, it never would.
                barrier.wait();
            }
            count.fetch_add(1, Ordering::SeqCst);
            let _ = stream.write_all(b"ok");
        });
        let ask = |what: &[u8]| {
            let mut s = UnixStream::connect(&path).expect("connected");
            s.write_all(what).expect("sent");
            s
        };
        let answer = |mut s: UnixStream| {
            let mut out = String::new();
            s.read_to_string(&mut out).expect("read");
            out
        };
        assert_eq!(answer(ask(b"x")), "ok");
        let (first, second) = (ask(b"w"), ask(b"w"));
        together.wait();
        assert_eq!((answer(first), answer(second)), ("ok".to_string(), "ok".to_string()));
        assert_eq!(served.load(Ordering::SeqCst), 3);
    }
}
