//! Property: for any tree and pattern, the output is the same on every run
//! and for every thread count.

use aide_core::Root;
use aide_core::tool::Context;
use llm_search::{SearchRequest, search};
use proptest::prelude::*;

fn tree_strategy() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = "[a-c]{1,2}(/[a-c]{1,2}){0,2}\\.txt";
    let body = proptest::collection::vec(prop_oneof!["ab", "ba", "a", "b", "\n", "é", "\r\n", " "], 0..40)
        .prop_map(|parts| parts.concat());
    proptest::collection::vec((name, body), 1..25)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn identical_across_runs_and_thread_counts(
        files in tree_strategy(),
        pattern in prop_oneof![Just("a"), Just("ab|ba"), Just("b+"), Just("^a"), Just("é\\w*")],
        context in 0usize..3,
    ) {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in &files {
            let p = dir.path().join(name);
            if p.parent().is_some_and(|d| d.is_file()) {
                continue; // a file already stands where this needs a folder
            }
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            if !p.is_dir() {
                std::fs::write(&p, body).unwrap();
            }
        }
        let root = Root::new(dir.path()).unwrap();
        let run = |threads: usize| {
            let req = SearchRequest {
                pattern: vec![pattern.to_string()],
                context: Some(context),
                threads: Some(threads),
                ..SearchRequest::default()
            };
            let outcome = search(&root, &req, &Context::new("test")).unwrap();
            (serde_json::to_string(&outcome.output).unwrap(), outcome.diagnostics)
        };
        let baseline = run(1);
        for threads in [1, 2, 3, 8] {
            prop_assert_eq!(&run(threads), &baseline);
        }
    }
}
