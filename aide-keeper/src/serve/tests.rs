#![allow(clippy::disallowed_methods)] // the test's own callers, not programs of aide's

use super::*;
use crate::place::Place;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};

/// Not a test by itself: the caller the next test runs as a child. It
/// connects to `AIDE_KEEPER_TEST_SOCKET`, writes a line, and waits for
/// the keeper to close unless `AIDE_KEEPER_TEST_EXIT` says to exit at once.
#[test]
fn caller() {
    let Some(path) = std::env::var_os("AIDE_KEEPER_TEST_SOCKET") else { return };
    let mut stream = UnixStream::connect(path).unwrap();
    // The keeper may have looked and closed already: written or not, the same.
    let _ = stream.write_all(b"{}\n");
    if std::env::var_os("AIDE_KEEPER_TEST_EXIT").is_none() {
        let _ = stream.read_to_end(&mut Vec::new());
    }
}

/// What an unconfined keeper does with the caller this test binary
/// starts under `wrapper` (none, `setpriv --no-new-privs`, `unshare
/// --user`); `exit_first`: the caller is gone, and reaped, before it
/// is looked at.
fn admission(wrapper: &[&str], exit_first: bool) -> Admission {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(SOCKET);
    let listener = UnixListener::bind(&path).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut command = match wrapper {
        [program, args @ ..] => {
            let mut c = Command::new(program);
            c.args(args).arg(exe);
            c
        }
        [] => Command::new(exe),
    };
    command.args(["--exact", "serve::tests::caller", "--quiet"]).env("AIDE_KEEPER_TEST_SOCKET", &path);
    if exit_first {
        command.env("AIDE_KEEPER_TEST_EXIT", "1");
    }
    let mut child = command.stdout(Stdio::null()).spawn().unwrap();
    if exit_first {
        assert!(child.wait().unwrap().success());
    }
    let (stream, _) = listener.accept().unwrap();
    let admitted = admit(&stream, &crate::peer::Confinement { no_new_privs: false, ..crate::peer::Confinement::own() });
    drop(stream);
    let status = child.wait().unwrap();
    assert!(exit_first || status.success(), "the caller ({wrapper:?}): {status}");
    admitted
}

#[test]
fn an_unconfined_keeper_serves_only_callers_proven_unconfined() {
    if crate::peer::Confinement::own().no_new_privs {
        return; // These tests run confined themselves: every caller is.
    }
    assert_eq!(admission(&[], false), Admission::Serve);
    assert_eq!(admission(&[], true), Admission::Refuse, "a caller gone before it was looked at");
    let runs =
        |program: &str| Command::new(program).arg("--help").stdout(Stdio::null()).status().is_ok_and(|s| s.success());
    if runs("setpriv") {
        let confined = ["setpriv", "--no-new-privs"];
        assert_eq!(admission(&confined, false), Admission::Refuse, "a confined caller");
        assert_eq!(admission(&confined, true), Admission::Refuse, "a confined caller gone first");
    }
    // Where everything runs under another sandbox's no_new_privs, an
    // aide sandbox is told by its user namespace.
    if runs("unshare") && Command::new("unshare").args(["--user", "true"]).status().is_ok_and(|s| s.success()) {
        assert_eq!(
            admission(&["unshare", "--user"], false),
            Admission::Refuse,
            "a caller in a user namespace of its own"
        );
    }
}

#[test]
fn a_request_the_handler_panics_on_closes_its_connection_and_the_keeper_goes_on() {
    if crate::peer::Confinement::own().no_new_privs {
        return; // Run confined, the test's own connections are refused.
    }
    let dir = tempfile::tempdir().unwrap();
    let lock = std::fs::File::create(dir.path().join(LOCK)).unwrap();
    let socket = dir.path().join(SOCKET);
    let held = Held { _lock: lock, listener: UnixListener::bind(&socket).unwrap(), socket: socket.clone() };
    let handle = |stream: UnixStream, _: &AtomicBool| {
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(&stream), &mut line);
        assert!(line != "boom\n", "the handler panics on this request");
        let _ = (&stream).write_all(b"ok\n");
    };
    let ended = Arc::new(AtomicBool::new(false));
    let (end, gave_up) = (ended.clone(), Arc::new(AtomicBool::new(false)));
    let gave_up_here = gave_up.clone();
    let started = Instant::now();
    let server = std::thread::spawn(move || {
        serve(held, Vec::new(), handle, move |quiet| {
            // Ends once asked and idle; a keeper forever busy would
            // never end, so give up (and say so) after a long while.
            let give_up = started.elapsed() > Duration::from_secs(60);
            gave_up_here.store(give_up, Ordering::SeqCst);
            (end.load(Ordering::SeqCst) && !quiet.busy) || give_up
        })
    });
    let ask = |request: &[u8]| {
        let mut stream = UnixStream::connect(&socket).unwrap();
        stream.write_all(request).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    assert_eq!(ask(b"boom\n"), "", "closed, not left waiting");
    assert_eq!(ask(b"hello\n"), "ok\n", "still serving");
    ended.store(true, Ordering::SeqCst);
    drop(server.join().unwrap());
    assert!(!gave_up.load(Ordering::SeqCst), "the panicked request left the keeper busy");
}

#[test]
fn a_keeper_is_trusted_by_identity_and_a_stranger_on_its_socket_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let place = Place::new(dir.path());
    // A listener that holds no lock: not the keeper.
    let listener = UnixListener::bind(dir.path().join(SOCKET)).unwrap();
    let e = place.connect().unwrap_err();
    assert_eq!(e.code.name, "conflict");
    assert!(e.message.contains("not the process holding the keeper's lock"), "{}", e.message);
    // The same process holding the lock: the keeper.
    let lock = std::fs::File::create(dir.path().join(LOCK)).unwrap();
    lock.lock().unwrap();
    assert!(place.connect().unwrap().is_some());
    assert_eq!(place.pid(), Some(std::process::id() as i32));
    drop(listener);
    std::fs::remove_file(dir.path().join(SOCKET)).unwrap();
    assert!(place.connect().unwrap().is_none(), "none listens");
}
