use super::*;
use crate::record::DEFAULT_MAX_RESULT_BYTES;
use crate::spool::{claim_spooled, spool_dir};
use aide_core::code;
use std::time::{Duration, SystemTime};

fn record(id: &str, tool: &str, started: SystemTime, result: &str) -> RunRecord {
    RunRecord {
        execution_id: id.into(),
        tool: tool.into(),
        version: "0.1.0".into(),
        argv: vec![tool.into(), "--json".into()],
        request: Some("{}".into()),
        cwd: Some("/tmp".into()),
        root: Some("/tmp".into()),
        origin: None,
        started,
        duration: Duration::from_millis(3),
        exit_code: 0,
        ok: true,
        error_code: None,
        result_json: result.into(),
        result_bytes: None,
        processes: Vec::new(),
    }
}

#[test]
fn a_version_1_log_gains_the_origin_column_and_keeps_its_runs() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("log.db");
    let old = crate::store::open(&path, &[schema::SCHEMA]).unwrap();
    old.execute(
        "INSERT INTO runs (execution_id, tool, version, argv, started_ms, started_at, finished_at, duration_ms,
                exit_code, ok, result, result_bytes) VALUES ('old', 't', '1', '[]', 0, 'x', 'x', 1.0, 0, 1, '{}', 2)",
        [],
    )
    .unwrap();
    drop(old);
    let mut log = ExecutionLog::open_in(home.path()).unwrap();
    assert_eq!(log.get("old").unwrap().summary.origin, None);
    let mut run = record("0190aaaa-0000-7000-8000-000000000001", "llm-search", SystemTime::now(), "{}");
    run.origin = Some("mcp:7".into());
    log.record(&run).unwrap();
    assert_eq!(log.get(&run.execution_id).unwrap().summary.origin.as_deref(), Some("mcp:7"));
}

#[test]
fn spooled_runs_reach_the_database_when_it_is_opened_and_leave_the_spool() {
    let home = tempfile::tempdir().unwrap();
    let now = SystemTime::now();
    spool_ready(home.path()).unwrap();
    // Eight writers at once: one file each, nothing shared.
    std::thread::scope(|s| {
        for w in 0..8 {
            let home = home.path();
            s.spawn(move || {
                for i in 0..25 {
                    let id = format!("0190aaaa-0000-7000-8000-{w:04}{i:08}");
                    spool_in(home, record(&id, "llm-search", now, r#"{"ok":true}"#)).unwrap();
                }
            });
        }
    });
    assert_eq!(spooled(home.path()), 200);
    // Garbage and a fresh temporary (a run writing now) are left alone or dropped, never ingested.
    std::fs::write(spool_dir(home.path()).join("junk.json"), b"not a record").unwrap();
    std::fs::write(spool_dir(home.path()).join(".x.json.tmp"), b"{").unwrap();
    let log = ExecutionLog::open_in(home.path()).unwrap();
    assert_eq!(log.list(&ListFilter { limit: 1000, ..Default::default() }).unwrap().len(), 200);
    assert_eq!(spooled(home.path()), 0);
    assert!(spool_dir(home.path()).join(".x.json.tmp").exists(), "in flight: kept");
    let got = log.get("0190aaaa-0000-7000-8000-000700000024").unwrap();
    assert_eq!(got.result_json.as_deref(), Some(r#"{"ok":true}"#));
}

/// A run's final record spooled while an ingest holds its provisional one (read, not yet committed) must survive:
/// the ingest once removed the path it had read, and with it the final
/// record that had replaced it, leaving the run `unfinished` forever.
#[test]
fn a_final_record_spooled_while_its_provisional_is_being_ingested_is_kept() {
    let home = tempfile::tempdir().unwrap();
    let now = SystemTime::now();
    let mut log = ExecutionLog::open_in(home.path()).unwrap();
    spool_ready(home.path()).unwrap();
    let id = "0190aaaa-0000-7000-8000-00000000abcd";
    let mut provisional = record(id, "llm-shell", now, "");
    provisional.ok = false;
    provisional.exit_code = -1;
    provisional.error_code = Some(UNFINISHED.into());
    spool_in(home.path(), provisional.clone()).unwrap();
    // The ingest takes the spool as it is now...
    let claimed = claim_spooled(&spool_dir(home.path()));
    assert_eq!(claimed.len(), 1);
    // ...the run ends and spools its own record meanwhile...
    let mut last = record(id, "llm-shell", now, r#"{"ok":false}"#);
    last.ok = false;
    last.error_code = Some("cancelled".into());
    spool_in(home.path(), last).unwrap();
    // ...and the ingest commits what it took: the final record stays spooled.
    log.ingest_claimed(&claimed, 4 << 20).unwrap();
    assert_eq!(spooled(home.path()), 1, "the final record was removed with the provisional one");
    log.ingest(home.path()).unwrap();
    assert_eq!(log.get(id).unwrap().summary.error_code.as_deref(), Some("cancelled"));
    // A provisional record arriving after the final one (two ingests at
    // once) never replaces it.
    log.record(&provisional).unwrap();
    assert_eq!(log.get(id).unwrap().summary.error_code.as_deref(), Some("cancelled"));
}

/// The final record takes the provisional one's place in the spool (one
/// file a run once it ended), and both ingested in either order leave
/// the run as it ended.
#[test]
fn a_final_record_removes_its_provisional_one_from_the_spool() {
    let home = tempfile::tempdir().unwrap();
    let now = SystemTime::now();
    spool_ready(home.path()).unwrap();
    let id = "0190aaaa-0000-7000-8000-00000000abce";
    let mut provisional = record(id, "llm-search", now, "");
    provisional.ok = false;
    provisional.error_code = Some(UNFINISHED.into());
    spool_in(home.path(), provisional).unwrap();
    assert_eq!(spooled(home.path()), 1);
    spool_in(home.path(), record(id, "llm-search", now, r#"{"ok":true}"#)).unwrap();
    let names: Vec<String> = std::fs::read_dir(spool_dir(home.path()))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [format!("{id}.json")]);
    let mut log = ExecutionLog::open_in(home.path()).unwrap();
    log.ingest(home.path()).unwrap();
    assert!(log.get(id).unwrap().summary.ok);
}

#[test]
fn a_spool_is_ingested_in_batches_bounded_by_bytes_and_loses_nothing() {
    let home = tempfile::tempdir().unwrap();
    let now = SystemTime::now();
    let mut log = ExecutionLog::open_in(home.path()).unwrap();
    spool_ready(home.path()).unwrap();
    for i in 0..5 {
        let id = format!("0190aaaa-0000-7000-8000-{i:012}");
        spool_in(home.path(), record(&id, "llm-search", now, &format!("{{\"n\":{i}}}"))).unwrap();
    }
    // Every record over the byte bound: a transaction each, all kept.
    assert_eq!(log.ingest_in_batches(home.path(), 1).unwrap(), 5);
    assert_eq!(spooled(home.path()), 0);
    let got = log.get("0190aaaa-0000-7000-8000-000000000004").unwrap();
    assert_eq!(got.result_json.as_deref(), Some(r#"{"n":4}"#));
}

#[test]
fn a_result_over_the_limit_is_spooled_without_its_body_and_stored_capped() {
    let home = tempfile::tempdir().unwrap();
    spool_ready(home.path()).unwrap();
    let big = format!("{{\"x\":\"{}\"}}", "y".repeat(DEFAULT_MAX_RESULT_BYTES));
    let id = "0190aaaa-0000-7000-8000-00000000000b";
    spool_in(home.path(), record(id, "llm-read", SystemTime::now(), &big)).unwrap();
    let file = std::fs::metadata(spool_dir(home.path()).join(format!("{id}.json"))).unwrap();
    assert!(file.len() < 4096, "the body is not written: {} bytes", file.len());
    let got = ExecutionLog::open_in(home.path()).unwrap().get(id).unwrap();
    assert!(got.summary.result_capped && got.result_json.is_none());
    assert_eq!(got.summary.result_bytes, big.len() as u64);
}

#[test]
fn about_one_run_in_64_ingests() {
    let ingesting =
        (0..=255u8).filter(|b| ingests_after(&format!("0190aaaa-0000-7000-8000-0000000000{b:02x}"))).count();
    assert_eq!(ingesting, 4);
}

#[test]
fn records_lists_and_gets_runs() {
    let home = tempfile::tempdir().unwrap();
    let mut log = ExecutionLog::open_in(home.path()).unwrap();
    let now = SystemTime::now();
    log.record(&record("0190aaaa-0000-7000-8000-000000000001", "llm-search", now, r#"{"a":1}"#)).unwrap();
    log.record(&record("0190aaaa-0000-7000-8000-000000000002", "llm-read", now + Duration::from_millis(5), "{}"))
        .unwrap();
    let all = log.list(&ListFilter { limit: 10, ..Default::default() }).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].tool, "llm-read", "newest first");
    let search = log.list(&ListFilter { limit: 10, tool: Some("llm-search".into()), ..Default::default() }).unwrap();
    assert_eq!(search.len(), 1);
    let got = log.get("0190aaaa-0000-7000-8000-000000000001").unwrap();
    assert_eq!(got.result_json.as_deref(), Some(r#"{"a":1}"#));
    assert_eq!(got.summary.argv, vec!["llm-search", "--json"]);
    // Unique prefix works; ambiguous prefix and unknown ids are errors.
    assert_eq!(log.get("0190aaaa-0000-7000-8000-00000000000").unwrap_err().code, code::INVALID_ARGUMENTS);
    assert_eq!(log.get("ffffffff").unwrap_err().code, code::NOT_FOUND);
    assert_eq!(log.get("x").unwrap_err().code, code::NOT_FOUND);
}

#[test]
fn prunes_by_age_and_count() {
    let home = tempfile::tempdir().unwrap();
    let mut log = ExecutionLog::open_in(home.path()).unwrap();
    let now = SystemTime::now();
    for i in 0..5u64 {
        let t = now - Duration::from_secs(3600 * 24 * (10 - i));
        log.record(&record(&format!("id-{i}"), "t", t, "{}")).unwrap();
    }
    let r = log.prune(Some(Duration::from_secs(3600 * 24 * 8 + 3600 * 12)), None).unwrap();
    assert_eq!((r.removed, r.remaining), (2, 3));
    let r = log.prune(Some(Duration::from_secs(3600 * 24 * 365)), Some(1)).unwrap();
    assert_eq!((r.removed, r.remaining), (2, 1));
    assert_eq!(log.list(&ListFilter { limit: 10, ..Default::default() }).unwrap()[0].execution_id, "id-4");
}

#[test]
fn prunes_by_total_size_keeping_the_newest() {
    let home = tempfile::tempdir().unwrap();
    let mut log = ExecutionLog::open_in(home.path()).unwrap();
    let now = SystemTime::now();
    let result = "x".repeat(100);
    for i in 0..4u64 {
        log.record(&record(&format!("id-{i}"), "t", now + Duration::from_millis(i), &result)).unwrap();
    }
    // 4 × 100 bytes is over a 250-byte limit: the oldest go until two fit.
    let limits = Retention { max_bytes: 250, ..Retention::from_env() };
    let r = log.prune_with(&limits).unwrap();
    assert_eq!((r.removed, r.remaining), (2, 2));
    let kept: Vec<_> = log
        .list(&ListFilter { limit: 10, ..Default::default() })
        .unwrap()
        .into_iter()
        .map(|r| r.execution_id)
        .collect();
    assert_eq!(kept, ["id-3", "id-2"]);
}

#[test]
fn each_result_gives_the_fields_of_matching_runs_newest_first() {
    let home = tempfile::tempdir().unwrap();
    let mut log = ExecutionLog::open_in(home.path()).unwrap();
    let t0 = SystemTime::now() - Duration::from_secs(60);
    let at = |s| t0 + Duration::from_secs(s);
    let runs = [
        record("a", "llm-shell", at(1), r#"{"dir":"/x","ms":1.5,"done":true}"#),
        record("b", "llm-shell", at(2), r#"{"dir":"/y","ms":2.5}"#),
        record("c", "llm-shell", at(3), r#"{"dir":"/x","ms":3.5,"done":false}"#),
        record("d", "llm-read", at(4), r#"{"dir":"/x","ms":4.5}"#),
        record("e", "llm-shell", at(5), "not json"),
    ];
    for run in &runs {
        log.record(run).unwrap();
    }
    let mut failed = record("f", "llm-shell", at(6), r#"{"dir":"/x","ms":9.0}"#);
    failed.ok = false;
    log.record(&failed).unwrap();
    let mut seen = Vec::new();
    log.each_result("llm-shell", "$.dir", &["/x", "/z"], &["$.ms", "$.done", "$.none"], |r| {
        seen.push((r.execution_id, r.values));
        true
    })
    .unwrap();
    let v = |ms: f64, done: i64| vec![serde_json::json!(ms), serde_json::json!(done), serde_json::Value::Null];
    assert_eq!(seen, vec![("c".to_string(), v(3.5, 0)), ("a".to_string(), v(1.5, 1))]);
    let mut first = Vec::new();
    log.each_result("llm-shell", "$.dir", &["/x"], &["$.ms"], |r| {
        first.push(r.execution_id);
        false
    })
    .unwrap();
    assert_eq!(first, ["c"]);
}
