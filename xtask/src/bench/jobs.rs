//! llm-jobs against pueue: spawn latency, and the delay from a job's end to `wait` returning.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Case, Cmd, Measured, Report, case, fresh_home, output_of, release_binary, round3, write_report};
use crate::{Result, say, workspace};

/// A pueue daemon of its own, in a temporary directory, for the jobs benchmark.
struct Pueue {
    config: PathBuf,
    daemon: std::process::Child,
}

impl Pueue {
    fn start(dir: &Path) -> Result<Pueue> {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let config = dir.join("pueue.yml");
        let d = dir.display();
        std::fs::write(
            &config,
            format!(
                "shared:\n  pueue_directory: {d}\n  runtime_directory: {d}\n  use_unix_socket: true\n  unix_socket_path: {d}/pueue.socket\n"
            ),
        )
        .map_err(|e| e.to_string())?;
        let daemon = Command::new("pueued")
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting pueued: {e}"))?;
        let p = Pueue { config, daemon };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !p.cmd(&["status"]).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success()) {
            if Instant::now() > deadline {
                return Err("pueued did not come up".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // Let every task run at once, as llm-jobs does by default.
        let _ = p.cmd(&["parallel", "0"]).stdout(Stdio::null()).status();
        Ok(p)
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("pueue");
        c.arg("--config").arg(&self.config).args(args);
        c
    }
}

impl Drop for Pueue {
    fn drop(&mut self) {
        let _ = self.cmd(&["shutdown"]).stdout(Stdio::null()).stderr(Stdio::null()).status();
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

fn now_ns() -> i128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128)
}

/// Median delay (ms) between a job's last command and `wait` returning,
/// over `runs` jobs. `start` spawns the job and returns its id; `wait` waits for it.
fn end_to_wait_delay(
    runs: usize,
    end_file: &Path,
    start: &dyn Fn(&str) -> Result<String>,
    wait: &dyn Fn(&str) -> Result<()>,
) -> Result<f64> {
    let mut delays = Vec::new();
    for _ in 0..runs {
        let _ = std::fs::remove_file(end_file);
        let id = start(&format!("sleep 0.3; date +%s%N > '{}'", end_file.display()))?;
        wait(&id)?;
        let returned = now_ns();
        let ended: i128 = std::fs::read_to_string(end_file)
            .map_err(|e| format!("job end marker: {e}"))?
            .trim()
            .parse()
            .map_err(|e| format!("job end marker: {e}"))?;
        delays.push((returned - ended) as f64 / 1e6);
    }
    delays.sort_by(f64::total_cmp);
    Ok(round3(delays[delays.len() / 2]))
}

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let ours = release_binary("llm-jobs", "llm-jobs")?;
    let dir = workspace().join("target/bench/jobs");
    let home = fresh_home("jobs")?;
    let ours_s = ours.display().to_string();
    let home_s = home.display().to_string();
    let pueue = match Pueue::start(&dir.join("pueue")) {
        Ok(p) => Some(p),
        Err(e) => {
            say(&format!("pueue unavailable ({e}); install it with `cargo install pueue` to compare"));
            None
        }
    };

    let mut spawn_cmds =
        vec![Cmd::new("llm-jobs spawn", &[&ours_s, "--json", "spawn", "--", "true"], &dir).env("AIDE_HOME", &home_s)];
    if let Some(p) = &pueue {
        let config = p.config.display().to_string();
        spawn_cmds.push(Cmd::new("pueue add", &["pueue", "--config", &config, "add", "--", "true"], &dir));
    }
    let mut spawn_case = case("spawn latency: `true`", spawn_cmds, runs.max(20), warmup)?;

    let end_file = dir.join("ended");
    let ours_delay = end_to_wait_delay(
        runs,
        &end_file,
        &|cmd| {
            let out = output_of(Command::new(&ours).env("AIDE_HOME", &home).args(["--json", "spawn", "--", cmd]))?;
            let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
            Ok(v["job_id"].to_string())
        },
        &|id| output_of(Command::new(&ours).env("AIDE_HOME", &home).args(["wait", id])).map(|_| ()),
    )?;
    say(&format!("  end-to-wait delay: llm-jobs {ours_delay:.2} ms"));
    let mut delay_results = vec![Measured {
        label: "llm-jobs wait".into(),
        command: "llm-jobs spawn -- 'sleep 0.3; …' && llm-jobs wait ID".into(),
        median_ms: ours_delay,
        p95_ms: ours_delay,
        mean_ms: ours_delay,
        min_ms: ours_delay,
        max_ms: ours_delay,
        peak_rss_mib: 0.0,
        exit_codes: vec![0],
    }];
    let mut delay_ratios = Vec::new();
    if let Some(p) = &pueue {
        let pueue_delay = end_to_wait_delay(
            runs,
            &end_file,
            &|cmd| output_of(&mut p.cmd(&["add", "--print-task-id", "--", cmd])),
            &|id| output_of(&mut p.cmd(&["wait", id])).map(|_| ()),
        )?;
        say(&format!("  end-to-wait delay: pueue {pueue_delay:.2} ms"));
        delay_ratios.push(("pueue wait".to_string(), round3(ours_delay / pueue_delay.max(1e-9))));
        delay_results.push(Measured {
            label: "pueue wait".into(),
            command: "pueue add -- 'sleep 0.3; …' && pueue wait ID".into(),
            median_ms: pueue_delay,
            p95_ms: pueue_delay,
            mean_ms: pueue_delay,
            min_ms: pueue_delay,
            max_ms: pueue_delay,
            peak_rss_mib: 0.0,
            exit_codes: vec![0],
        });
    }
    spawn_case.name = "spawn latency: `true` (the command's own wall time)".into();
    let delay_case = Case {
        name: "delay from a job's end to `wait` returning (median)".into(),
        first_results: None,
        notes: Vec::new(),
        verified: None,
        results: delay_results,
        ratios: delay_ratios,
    };
    drop(pueue);
    write_report(&Report::new("jobs", runs, warmup, &dir, vec![spawn_case, delay_case]))
}
