//! Cancellation and progress through each tool's entry point, in process
//! (as the MCP server will call them), and Ctrl-C on the command line.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aide_core::tool::{Cancel, Context, Outcome, ProgressSink, Tool};
use aide_core::{AideError, code};
use aide_tests::TestDir;
use serde_json::Value;

const FILES: usize = 400;

/// A tree of `FILES` Rust files, each defining and calling `helper`.
fn tree() -> TestDir {
    let t = TestDir::new();
    for i in 0..FILES {
        t.write(
            &format!("src/m{i:03}.rs"),
            format!("pub fn helper() -> u32 {{ {i} }}\npub fn f{i}() -> u32 {{ helper() + 1 }} // needle\n"),
        );
    }
    t
}

/// Runs `T` with a context whose progress sink raises the cancellation flag
/// at the `after`-th report; returns the result and the reports in all.
fn cancel_after<T: Tool>(request: T::Request, dir: &Path, after: u64) -> (Result<Outcome<T::Output>, AideError>, u64) {
    let cancel = Cancel::new();
    let reports = Arc::new(AtomicU64::new(0));
    let sink = {
        let (cancel, reports) = (cancel.clone(), reports.clone());
        ProgressSink::new(move |_| {
            if reports.fetch_add(1, Ordering::Relaxed) + 1 == after {
                cancel.cancel();
            }
        })
    };
    let ctx = Context::new("cancel-test").with_working_dir(dir).with_cancel(cancel).with_progress(sink);
    let result = T::run(request, &ctx);
    (result, reports.load(Ordering::Relaxed))
}

/// The run ended with `cancelled` well before it had seen every file.
#[track_caller]
fn assert_cancelled_early<O>(result: Result<Outcome<O>, AideError>, reports: u64) {
    match result {
        Ok(_) => panic!("the run finished although it was cancelled ({reports} reports)"),
        Err(e) => assert_eq!(e.code, code::CANCELLED, "{e}"),
    }
    assert!(reports < FILES as u64 / 2, "{reports} progress reports after a cancel at the 20th");
}

#[test]
fn every_long_read_only_run_stops_at_the_flag() {
    let t = tree();
    let search = llm_search::SearchRequest { pattern: vec!["needle".into()], threads: Some(2), ..Default::default() };
    let (r, n) = cancel_after::<llm_search::LlmSearch>(search, t.root(), 20);
    assert_cancelled_early(r, n);

    let ast = |f: fn(&mut llm_ast_search::AstRequest)| {
        let mut request = llm_ast_search::AstRequest { threads: Some(2), ..Default::default() };
        f(&mut request);
        cancel_after::<llm_ast_search::LlmAstSearch>(request, t.root(), 20)
    };
    let (r, n) = ast(|r| r.symbols = true);
    assert_cancelled_early(r, n);
    let (r, n) = ast(|r| r.references = Some("helper".into()));
    assert_cancelled_early(r, n);
    let (r, n) = ast(|r| r.definitions = Some("helper".into()));
    assert_cancelled_early(r, n);
    let (r, n) = ast(|r| r.dialect = Some("findReferences(`helper`)".into()));
    assert_cancelled_early(r, n);

    let discover = llm_discover::DiscoverRequest { threads: Some(2), ..Default::default() };
    let (r, n) = cancel_after::<llm_discover::LlmDiscover>(discover, t.root(), 20);
    assert_cancelled_early(r, n);

    let paths = (0..FILES).map(|i| format!("src/m{i:03}.rs")).collect();
    let read = llm_read::ReadRequest { paths, ..Default::default() };
    let (r, n) = cancel_after::<llm_read::LlmRead>(read, t.root(), 20);
    assert_cancelled_early(r, n);
}

#[test]
fn a_cancelled_transform_writes_nothing() {
    let t = tree();
    let operations: Vec<Value> = (0..FILES)
        .map(|i| {
            serde_json::json!({ "op": "patch", "path": format!("src/m{i:03}.rs"), "old_text": "// needle", "new_text": "// done" })
        })
        .collect();
    let request: llm_transform::TransformRequest =
        serde_json::from_value(serde_json::json!({ "operations": operations })).unwrap();
    let (r, n) = cancel_after::<llm_transform::LlmTransform>(request, t.root(), 20);
    assert_cancelled_early(r, n);
    for i in 0..FILES {
        let body = std::fs::read_to_string(t.root().join(format!("src/m{i:03}.rs"))).unwrap();
        assert!(body.contains("// needle"), "m{i:03}.rs was changed by a cancelled transform");
    }
}

#[test]
fn progress_counts_every_file_of_a_finished_run() {
    let t = tree();
    let request = llm_ast_search::AstRequest { symbols: true, threads: Some(2), ..Default::default() };
    let (r, n) = cancel_after::<llm_ast_search::LlmAstSearch>(request, t.root(), u64::MAX);
    let outcome = r.unwrap();
    assert!(matches!(outcome.output, llm_ast_search::AstOutput::Symbols { .. }));
    assert_eq!(n, FILES as u64);
}

#[test]
fn ctrl_c_ends_a_wait_with_a_cancelled_error() {
    let t = TestDir::new();
    let (out, _) = t.cmd("llm-jobs").args(["--json", "spawn", "--", "sleep 30"]).expect_exit(0);
    let id = serde_json::from_str::<Value>(&out).unwrap()["job_id"].to_string();
    let child = t
        .cmd("llm-jobs")
        .args(["--json", "wait", &id, "--timeout", "60"])
        .cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let signalled = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(signalled.elapsed() < Duration::from_secs(10), "the wait went on after Ctrl-C");
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["ok"].as_bool(), v["error"]["code"].as_str()), (Some(false), Some("cancelled")));
    t.cmd("llm-jobs").args(["--json", "kill", &id]).expect_exit(0);
}
