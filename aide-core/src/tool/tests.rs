use super::*;

/// A `Write` the test can read back after `Live` has taken it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);
impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        crate::sync::lock(&self.0).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn streamed_records_are_byte_for_byte_what_the_harness_prints() {
    #[derive(Serialize)]
    struct Rec {
        path: &'static str,
        n: u64,
        x: f64,
        text: &'static str,
        list: Vec<Option<i32>>,
    }
    #[derive(Serialize)]
    struct Empty {}
    let out = Shared::default();
    let mut live = Live::new(Box::new(out.clone()), false);
    let recs = [Rec { path: "a\"b", n: 7, x: 0.1, text: "é\u{1}\n", list: vec![Some(1), None] }];
    let mut kept = Vec::new();
    let written = live.records("match", &recs, Some(&mut kept)).unwrap();
    live.records("match", &[Empty {}], Some(&mut kept)).unwrap();
    live.records("n", &[3], None).unwrap();
    let kept = String::from_utf8(kept).unwrap();
    assert_eq!(kept, format!("{},{{}}", serde_json::to_string(&recs[0]).unwrap()));
    let got = String::from_utf8(crate::sync::lock(&out.0).clone()).unwrap();
    let mut want = String::new();
    for value in [serde_json::to_value(&recs[0]).unwrap(), serde_json::json!({})] {
        want.push_str(&serde_json::to_string(&crate::envelope::with_type("match", value)).unwrap());
        want.push('\n');
    }
    want.push_str(&serde_json::to_string(&crate::envelope::with_type("n", serde_json::json!(3))).unwrap());
    want.push('\n');
    assert_eq!(got, want);
    assert_eq!(written, want.lines().next().unwrap().len() + 1);
}

#[test]
fn a_raised_flag_is_a_cancelled_error() {
    let ctx = Context::new("id");
    assert!(ctx.check_cancel().is_ok());
    let flag = ctx.cancel.clone();
    flag.cancel();
    let e = ctx.check_cancel().unwrap_err();
    assert_eq!(e.code, crate::code::CANCELLED);
    assert_eq!(e.exit_status(), ExitStatus::Cancelled);
}

#[test]
fn keep_range_clamps_to_the_items() {
    let mut v: Vec<u32> = (0..10).collect();
    keep_range(&mut v, 3..5);
    assert_eq!(v, vec![3, 4]);
    keep_range(&mut v, 1..99);
    assert_eq!(v, vec![4]);
    keep_range(&mut v, 5..9);
    assert!(v.is_empty());
}

#[test]
fn a_counter_reports_every_unit_with_its_total() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let seen = seen.clone();
        ProgressSink::new(move |p| seen.lock().unwrap().push(p))
    };
    let counter = sink.counter(Some(2));
    counter.tick();
    counter.tick();
    assert_eq!(*seen.lock().unwrap(), vec![Progress { done: 1, total: Some(2) }, Progress { done: 2, total: Some(2) }]);
}

#[test]
fn the_opened_root_is_resolved_against_the_working_dir() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let ctx = Context::new("id").with_working_dir(dir.path());
    let root = ctx.open_root(Some(Path::new("sub"))).unwrap();
    assert_eq!(root.path(), dir.path().canonicalize().unwrap().join("sub"));
    assert_eq!(ctx.opened_root(), Some(root.path().to_path_buf()));
}
