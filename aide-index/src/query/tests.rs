use super::*;
use proptest::prelude::*;

fn plain(pattern: &str) -> Query {
    Query::of_patterns(&[pattern.to_string()], Syntax::default())
}

#[test]
fn a_literal_needs_its_trigrams() {
    assert_eq!(plain("CONFIG_SLUB"), Query::Trigrams(trigram::of_literal(b"config_slub")));
    assert_eq!(plain("ab"), Query::All);
    assert_eq!(plain("a.*b"), Query::All);
}

#[test]
fn concatenations_and_alternations_combine() {
    let foo_bar = plain("foo.*bar");
    assert!(foo_bar.passes(&trigram::of_text(b"foo x bar")));
    assert!(!foo_bar.passes(&trigram::of_text(b"foo only")));
    let either = plain("alpha|beta");
    assert!(either.passes(&trigram::of_text(b"beta")));
    assert!(!either.passes(&trigram::of_text(b"gamma")));
    assert_eq!(plain("alpha|b"), Query::All);
    assert_eq!(Query::of_patterns(&["x(".into()], Syntax::default()), Query::All);
}

#[test]
fn case_and_fixed_strings_are_read_as_the_search_reads_them() {
    let ci = Query::of_patterns(&["Kmem".into()], Syntax { case_insensitive: true, ..Syntax::default() });
    assert!(ci.passes(&trigram::of_text(b"KMEM")));
    let fixed = Query::of_patterns(&["a.b(c".into()], Syntax { fixed_strings: true, ..Syntax::default() });
    assert!(fixed.passes(&trigram::of_text(b"xa.b(cx")));
    assert!(!fixed.passes(&trigram::of_text(b"axb(c")));
}

fn pattern() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        "[abc]{1,4}",
        Just(".".to_string()),
        Just("[ab]".to_string()),
        Just("\\w".to_string()),
        Just("\\b".to_string()),
        Just("(?i)b".to_string()),
        Just("é".to_string()),
    ];
    let piece = (atom, prop_oneof![Just(""), Just("*"), Just("+"), Just("?"), Just("{2}")])
        .prop_map(|(a, q)| if a.starts_with("(?") || a == "\\b" { a } else { format!("(?:{a}){q}") });
    proptest::collection::vec(piece, 1..5).prop_flat_map(|pieces| {
        let joined = pieces.join("");
        prop_oneof![Just(joined.clone()), Just(format!("{joined}|abc")), Just(format!("x({joined})y"))]
    })
}

proptest! {
    /// The query never turns away a text the regex matches in.
    #[test]
    fn a_text_that_matches_passes(pattern in pattern(), text in "[abcxyAB é\n]{0,40}", ci in any::<bool>()) {
        let regex = regex::bytes::RegexBuilder::new(&pattern).case_insensitive(ci).build();
        prop_assume!(regex.is_ok());
        let query = Query::of_patterns(std::slice::from_ref(&pattern), Syntax { case_insensitive: ci, ..Syntax::default() });
        if regex.unwrap().is_match(text.as_bytes()) {
            prop_assert!(query.passes(&trigram::of_text(text.as_bytes())), "{pattern} matches {text:?} but {query:?}");
        }
    }
}
