//! llm-deps against outside oracles: its `list` equals `cargo metadata`'s
//! packages (less the workspace's members) and `npm ls --all`'s; its
//! `outdated` equals `npm outdated`'s; no registry is `network_unavailable`;
//! an audit without a database says so, and one with OSV files finds what
//! they name.

use std::collections::BTreeSet;
use std::process::Command;

use aide_tests::TestDir;
use serde_json::Value;

/// `llm-deps ARGS --json` in the tree, with its exit status checked.
fn deps(t: &TestDir, args: &[&str], code: i32) -> Value {
    t.cmd("llm-deps").args(args).json(code)
}

/// (name, version) of each package of an ecosystem in a `list`.
fn listed(list: &Value, ecosystem: &str) -> BTreeSet<(String, String)> {
    list["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["ecosystem"] == ecosystem)
        .map(|p| (p["name"].as_str().unwrap().to_string(), p["version"].as_str().unwrap().to_string()))
        .collect()
}

/// A program run in the tree: its stdout when it succeeded.
fn run(t: &TestDir, program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).current_dir(t.root()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

// Long because: one oracle comparison: the workspace written, cargo's own resolution read, and each of list's fields held to it in turn.
#[test]
fn a_cargo_workspace_lists_what_cargo_metadata_resolves() {
    if !aide_tests::oracle("cargo", "llm-deps list against cargo metadata") {
        return;
    }
    let t = TestDir::new();
    t.write(
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n\n[workspace.dependencies]\nmemchr = \"2\"\n",
    );
    t.write(
        "crates/app/Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nregex = \"1\"\nutil = { path = \"../util\" }\n\n[dev-dependencies]\nmemchr = { workspace = true }\n",
    );
    t.write("crates/app/src/lib.rs", "");
    t.write("crates/util/Cargo.toml", "[package]\nname = \"util\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nmemchr.workspace = true\n");
    t.write("crates/util/src/lib.rs", "");
    let Some(_) = run(&t, "cargo", &["generate-lockfile", "--offline"]) else {
        aide_tests::skip(
            "cargo",
            "llm-deps list: `cargo generate-lockfile --offline` needs regex and memchr in the local registry",
        );
        return;
    };
    let metadata: Value =
        serde_json::from_str(&run(&t, "cargo", &["metadata", "--format-version", "1", "--offline"]).unwrap()).unwrap();
    let members: BTreeSet<&str> =
        metadata["workspace_members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    let want: BTreeSet<(String, String)> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !members.contains(p["id"].as_str().unwrap()))
        .map(|p| (p["name"].as_str().unwrap().to_string(), p["version"].as_str().unwrap().to_string()))
        .collect();
    let list = deps(&t, &["list"], 0);
    assert_eq!(listed(&list, "cargo"), want, "{list}");
    // Direct: what the members' resolve nodes depend on, less the members.
    let resolved = metadata["resolve"]["nodes"].as_array().unwrap();
    let id_name = |id: &str| {
        metadata["packages"].as_array().unwrap().iter().find(|p| p["id"] == id).unwrap()["name"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let want_direct: BTreeSet<String> = resolved
        .iter()
        .filter(|n| members.contains(n["id"].as_str().unwrap()))
        .flat_map(|n| {
            n["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| !members.contains(d.as_str().unwrap()))
                .map(|d| id_name(d.as_str().unwrap()))
        })
        .collect();
    let direct: BTreeSet<String> = list["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["direct"] == true)
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(direct, want_direct);
    let regex = list["packages"].as_array().unwrap().iter().find(|p| p["name"] == "regex").unwrap();
    assert_eq!(regex["declared_in"][0]["path"], "crates/app/Cargo.toml");
    assert_eq!(regex["declared_in"][0]["line"], 7);
    let memchr = list["packages"].as_array().unwrap().iter().find(|p| p["name"] == "memchr").unwrap();
    assert_eq!(memchr["dev"], false, "util needs memchr as a normal dependency: {memchr}");
    assert_eq!(memchr["declared_in"].as_array().unwrap().len(), 2, "{memchr}");
    let projects: BTreeSet<&str> =
        list["projects"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(projects, BTreeSet::from(["app", "util"]));
    // The tree starts at each member and holds every package.
    let tree = deps(&t, &["tree"], 0);
    let in_tree: BTreeSet<(String, String)> = tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["depth"].as_u64() > Some(0))
        .map(|n| (n["name"].as_str().unwrap().to_string(), n["version"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(in_tree, want);
}

/// A small npm project resolved by npm itself (the registry is needed).
fn npm_project(install: bool) -> Option<TestDir> {
    if !aide_tests::oracle("npm", "llm-deps against npm") {
        return None;
    }
    let t = TestDir::new();
    t.write(
        "package.json",
        "{\n  \"name\": \"web\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {\n    \"debug\": \"~2.6.0\",\n    \"ms\": \"~2.0.0\"\n  },\n  \"devDependencies\": {\n    \"is-number\": \"^6.0.0\"\n  }\n}\n",
    );
    let args: &[&str] = if install {
        &["install", "--no-audit", "--no-fund"]
    } else {
        &["install", "--package-lock-only", "--no-audit", "--no-fund"]
    };
    if run(&t, "npm", args).is_none() {
        aide_tests::skip("npm", "llm-deps against npm: `npm install` could not reach the registry");
        return None;
    }
    Some(t)
}

/// Every name@version of `npm ls --all --json`'s tree.
fn npm_ls(node: &Value, out: &mut BTreeSet<(String, String)>) {
    for (name, dep) in node["dependencies"].as_object().into_iter().flatten() {
        if let Some(v) = dep["version"].as_str() {
            out.insert((name.clone(), v.to_string()));
        }
        npm_ls(dep, out);
    }
}

#[test]
fn an_npm_project_lists_what_npm_ls_shows() {
    let Some(t) = npm_project(false) else { return };
    let ls: Value =
        serde_json::from_str(&run(&t, "npm", &["ls", "--all", "--json", "--package-lock-only"]).unwrap()).unwrap();
    let mut want = BTreeSet::new();
    npm_ls(&ls, &mut want);
    let list = deps(&t, &["list"], 0);
    assert_eq!(listed(&list, "npm"), want, "{list}");
    let by_name = |n: &str| list["packages"].as_array().unwrap().iter().find(|p| p["name"] == n).unwrap().clone();
    let is_number = by_name("is-number");
    assert_eq!((&is_number["direct"], &is_number["dev"]), (&Value::Bool(true), &Value::Bool(true)));
    assert_eq!(is_number["declared_in"][0]["line"], 9);
    assert_eq!(is_number["declared_in"][0]["section"], "devDependencies");
    assert_eq!(by_name("debug")["declared_in"][0]["line"], 5);
}

#[test]
fn outdated_equals_npm_outdated() {
    let Some(t) = npm_project(true) else { return };
    // npm outdated exits 1 when something is outdated.
    let out = Command::new("npm").args(["outdated", "--json"]).current_dir(t.root()).output().unwrap();
    let npm: Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: BTreeSet<(String, String, String, String)> = npm
        .as_object()
        .unwrap()
        .iter()
        .map(|(n, d)| {
            (
                n.clone(),
                d["current"].as_str().unwrap_or("").into(),
                d["wanted"].as_str().unwrap_or("").into(),
                d["latest"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    assert!(!want.is_empty(), "the project is pinned to old versions: {npm}");
    let ours = deps(&t, &["outdated", "--ecosystem", "npm"], 0);
    let got: BTreeSet<(String, String, String, String)> = ours["outdated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or("").to_string();
            (s("name"), s("current"), s("wanted"), s("latest"))
        })
        .collect();
    assert_eq!(got, want, "{ours}");
}

#[test]
fn no_registry_reachable_is_network_unavailable() {
    let t = TestDir::new();
    t.write("package.json", "{\"name\":\"w\",\"dependencies\":{\"ms\":\"^2.0.0\"}}");
    t.write("package-lock.json", "{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"ms\":\"^2.0.0\"}},\"node_modules/ms\":{\"version\":\"2.0.0\"}}}");
    let out = t
        .cmd("llm-deps")
        .args(["outdated", "--json", "--timeout", "5"])
        .env("npm_config_registry", "http://127.0.0.1:9")
        .output();
    assert_eq!(out.status.code(), Some(4));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "network_unavailable", "{v}");
    assert!(v["error"]["hint"].as_str().unwrap().contains("npm_config_registry"), "{v}");
}

/// Requirements no lock resolves are said, not passed over: `outdated`
/// read "0 of 0" where three dependencies were declared.
#[test]
fn unresolved_requirements_are_said_not_checked() {
    let t = TestDir::new();
    t.write("requirements.txt", "flask>=2.0\nnumpy\n");
    // Nothing can be asked, so no registry is: this needs no network.
    let v = deps(&t, &["outdated", "--ecosystem", "pypi"], 0);
    assert_eq!(v["checked"], 0, "{v}");
    let said: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "not_checked")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(said.len(), 2, "{v}");
    assert!(said.iter().any(|m| m.contains("flask") && m.contains(">=2.0")), "{said:?}");
    assert!(said.iter().any(|m| m.contains("numpy")), "{said:?}");
}

#[test]
fn an_audit_says_when_it_has_no_database_and_finds_what_osv_names() {
    let t = TestDir::new();
    t.write("go.mod", "module example.com/m\n\ngo 1.22\n\nrequire golang.org/x/text v0.3.5\n");
    let none = t.cmd("llm-deps").args(["audit"]).env("AIDE_ADVISORY_DB", "").json::<Value>(0);
    assert_eq!(none["audit"], "not_configured");
    let (text, _) = t.cmd("llm-deps").args(["audit"]).env("AIDE_ADVISORY_DB", "").expect_exit(0);
    assert!(text.starts_with("audit: not configured"), "{text}");
    let db = TestDir::new();
    db.write(
        "GO-2021-0113.json",
        r#"{"id":"GO-2021-0113","summary":"Out-of-bounds read in golang.org/x/text","aliases":["CVE-2021-38561"],"affected":[{"package":{"ecosystem":"Go","name":"golang.org/x/text"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"0.3.7"}]}]}]}"#,
    );
    let found: Value = deps(&t, &["audit", "--advisory-db", db.root().to_str().unwrap()], 0);
    assert_eq!(found["audit"], "configured");
    assert_eq!(found["vulnerabilities"][0]["id"], "GO-2021-0113", "{found}");
    assert_eq!(found["vulnerabilities"][0]["patched"][0], "0.3.7");
    let missing = t.cmd("llm-deps").args(["audit", "--advisory-db", "/nonexistent/db"]).json::<Value>(2);
    assert_eq!(missing["error"]["code"], "not_found");
}
