use super::*;
use aide_core::home::settings::FILE;

fn file(text: &str) -> ConfigFile {
    toml::from_str(text).unwrap()
}

#[test]
fn a_project_tightens_but_never_loosens_what_the_user_set() {
    let mut config = Config::default();
    let user = Path::new("/home/u/.config/aide/aide.toml");
    apply(&mut config, &file("sandbox = \"read-only\"\nrate = \"10/s\"\nallow = \"auto\""), user, None);
    let project = Path::new("/work/p");
    let looser = file(
        "sandbox = \"off\"\nnetwork = \"on\"\nrate = \"100/s\"\nallow = \"gated\"\nwritable = [\"/etc\", \"build\"]",
    );
    apply(&mut config, &looser, &project.join(FILE), Some(project));
    assert_eq!(config.sandbox.value, SandboxMode::ReadOnly);
    assert_eq!(config.sandbox.source, Source::File(user.to_path_buf()));
    assert_eq!(config.rate.value.as_deref(), Some("10/s"));
    assert_eq!(config.allow.value.as_deref(), Some("auto"));
    assert_eq!(config.writable_paths(), [project.join("build")], "inside the project only");
    assert_eq!(config.ignored.len(), 4, "{:?}", config.ignored);
    let tighter = file("network = \"off\"\nrate = \"1/s\"");
    apply(&mut config, &tighter, &project.join(FILE), Some(project));
    assert_eq!((config.network.value, config.rate.value.as_deref()), (Network::Off, Some("1/s")));
}

#[test]
fn a_projects_writable_path_is_where_it_leads_and_one_leading_outside_is_refused() {
    let dir = aide_core::fsutil::TempDir::new("aide-config").unwrap();
    let project = dir.path().join("p");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(project.join("build")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("escape")).unwrap();
    std::os::unix::fs::symlink(project.join("build"), project.join("out")).unwrap();
    let mut config = Config::default();
    let text = "writable = [\"escape\", \"escape/deeper\", \"out\", \"build/new\"]";
    apply(&mut config, &file(text), &project.join(FILE), Some(&project));
    let real = |p: &Path| aide_gate::sandbox::resolved(p);
    assert_eq!(config.writable_paths(), [real(&project.join("build")), real(&project.join("build/new"))]);
    assert_eq!(config.ignored.len(), 2, "{:?}", config.ignored);
    assert!(config.ignored[0].contains("writable \"escape\" resolves to ") && config.ignored[0].contains("outside"));
    assert!(config.ignored[1].contains("writable \"escape/deeper\" resolves to "), "{:?}", config.ignored);
    // The user's own file may name any folder; a link in it is followed once, here.
    let mut config = Config::default();
    let user = format!("writable = [{:?}]", project.join("escape"));
    apply(&mut config, &file(&user), &dir.path().join("user.toml"), None);
    assert_eq!(config.writable_paths(), [real(&outside)]);
}

#[test]
fn exec_timeout_is_two_minutes_unless_set_and_a_project_may_only_shorten_it() {
    let mut config = Config::default();
    assert_eq!((config.exec_timeout.value, &config.exec_timeout.source), (120.0, &Source::Default));
    let project = Path::new("/work/p");
    apply(&mut config, &file("exec_timeout = 600"), &project.join(FILE), Some(project));
    assert_eq!(config.exec_timeout.value, 120.0, "a project cannot lengthen the default");
    assert!(config.ignored[0].contains("exec_timeout = 600 is looser than 120"), "{:?}", config.ignored);
    apply(&mut config, &file("exec_timeout = 0.5"), &project.join(FILE), Some(project));
    assert_eq!(config.exec_timeout.value, 0.5);
    let mut config = Config::default();
    let user = Path::new("/home/u/.config/aide/aide.toml");
    apply(&mut config, &file("exec_timeout = 600"), user, None);
    assert_eq!((config.exec_timeout.value, &config.exec_timeout.source), (600.0, &Source::File(user.into())));
    let shown = config.described().into_iter().find(|(k, _, _)| k == "exec_timeout").unwrap();
    assert_eq!((shown.1.as_str(), shown.2.as_str()), ("600 s", "/home/u/.config/aide/aide.toml"));
}

#[test]
fn a_project_may_turn_the_sandbox_on_from_the_default() {
    let mut config = Config::default();
    let project = Path::new("/work/p");
    apply(&mut config, &file("sandbox = \"workspace-write\""), &project.join(FILE), Some(project));
    assert_eq!(config.sandbox.value, SandboxMode::WorkspaceWrite);
    assert!(config.ignored.is_empty());
}

#[test]
fn an_unknown_key_or_bad_value_names_the_file_and_line() {
    let dir = aide_core::fsutil::TempDir::new("aide-config").unwrap();
    let path = dir.path().join(FILE);
    std::fs::write(&path, "network = \"off\"\nsandbox = \"everything\"\n").unwrap();
    let e = read(&path).unwrap_err();
    assert_eq!(e.code.name, "invalid_request");
    assert!(e.message.contains(":2:"), "{}", e.message);
    std::fs::write(&path, "sandboxx = \"off\"\n").unwrap();
    assert!(read(&path).unwrap_err().message.contains("sandboxx"));
    // A value only aide mcp takes is checked as surely, for every tool.
    std::fs::write(&path, "network = \"off\"\nmax_risk = \"extreme\"\n").unwrap();
    let e = read(&path).unwrap_err();
    assert!(e.message.contains(":2: max_risk = \"extreme\""), "{}", e.message);
    std::fs::write(&path, "rate = \"fast\"\n").unwrap();
    assert!(read(&path).unwrap_err().message.contains("rate"));
    // Seconds that are none, or too many for a Duration, are refused for both timeouts.
    for bad in ["exec_timeout = 0", "exec_timeout = -1", "exec_timeout = 1e300", "call_timeout = 1e300"] {
        std::fs::write(&path, format!("network = \"off\"\n{bad}\n")).unwrap();
        let e = read(&path).unwrap_err();
        assert!(e.message.contains(":2: ") && e.message.contains("seconds above 0"), "{bad}: {}", e.message);
    }
    std::fs::write(&path, "exec_timeout = \"soon\"\n").unwrap();
    assert!(read(&path).unwrap_err().message.contains(":1:"));
}
