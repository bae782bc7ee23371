use super::*;

fn resolve(files: &[(&str, Lang, &str)], query: SymbolQuery) -> Result<Vec<(String, usize, Resolution)>, NotOne> {
    let parsed: Vec<SourceFile> = files
        .iter()
        .map(|(p, l, s)| SourceFile::parse(p.to_string(), *l, s.as_bytes().to_vec()).unwrap_or_else(|_| panic!()))
        .collect();
    let facts: Vec<FileFacts> = parsed.iter().map(|f| facts(f, &query)).collect();
    let resolver = Resolver::choose(&query, &facts)?;
    Ok(resolver
        .sites(facts)
        .into_iter()
        .map(|s| (s.reference.path, s.reference.span.line, s.reference.matched))
        .collect())
}

#[test]
fn another_types_field_of_the_same_name_is_not_a_reference() {
    // cobra's `Command.Name` against pflag's `Flag.Name`.
    let cmd = "package c\ntype Command struct{ use string }\nfunc (c *Command) Name() string { return c.use }\nfunc (c *Command) Title() string { return c.Name() }\n";
    let flag = "package f\ntype Flag struct{ Name string }\nfunc show(f *Flag) string { return f.Name }\nfunc any(v interface{ Name() string }) string { return v.Name() }\n";
    let query = SymbolQuery { name: "Command/Name".into(), ..Default::default() };
    let sites = resolve(&[("c.go", Lang::Go, cmd), ("f.go", Lang::Go, flag)], query);
    let sites = sites.unwrap_or_else(|_| panic!("one definition"));
    assert_eq!(
        sites,
        [
            ("c.go".into(), 3, Resolution::Resolved),
            ("c.go".into(), 4, Resolution::Resolved),
            ("f.go".into(), 4, Resolution::Unresolved),
        ]
    );
}

#[test]
fn a_printed_name_path_picks_its_symbol_over_a_method_of_the_name() {
    let src = "package f\ntype FlagSet struct{}\nfunc (f *FlagSet) PrintDefaults() {}\nfunc PrintDefaults() { CommandLine.PrintDefaults() }\n";
    let query = SymbolQuery { name: "PrintDefaults".into(), ..Default::default() };
    let sites = resolve(&[("flag.go", Lang::Go, src)], query).unwrap_or_else(|_| panic!("one definition"));
    assert_eq!(sites, [("flag.go".into(), 4, Resolution::Resolved)]);
}

#[test]
fn several_definitions_are_listed() {
    let a = "fn helper() {}\n";
    let query = SymbolQuery { name: "helper".into(), ..Default::default() };
    match resolve(&[("a.rs", Lang::Rust, a), ("b.rs", Lang::Rust, a)], query) {
        Err(NotOne::Several(c)) => assert_eq!(c.len(), 2),
        other => panic!("{other:?}"),
    }
}
