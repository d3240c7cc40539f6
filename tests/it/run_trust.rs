//! A handed run folder runs nothing unasked (issue 39, item 4): its own `youra.toml` may
//! name a notice command, a webhook, an endpoint for the researcher's key, tool servers, but
//! `youra run`, `doctor`, `tools list` and `tui --run` refuse until `youra trust <run>`
//! recorded exactly those values (in the researcher's config folder, never the run), name
//! each with its file:line, and ask again after any change. Runs youra wrote itself (`init`,
//! `replay`) need no such step. Every test runs the real binary, against a loopback listener
//! that counts what reached it.

use crate::common;

use std::path::Path;
use std::process::Output;
use std::sync::atomic::Ordering;

use common::script::{SCOPING, Script, replay_run};

/// The binary with the researcher's config folder at `config` (the trust record's home).
fn youra(config: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out: Output = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .env("YOURA_CONFIG_DIR", config)
        .env_remove("YOURA_BASE_URL")
        .output()
        .expect("youra runs");
    let (stdout, stderr) = common::text(&out);
    (out.status.code(), stdout, stderr)
}

/// A replay run that stops at its first stage, with `extra` in its own youra.toml.
fn stopping_run(extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let mut s = Script::default();
    s.reply("executor", "problem_scoping", None, 1, SCOPING)
        .reply(
            "controller",
            "problem_scoping",
            None,
            1,
            r#"{"decision":"MUST_STOP","reason":"end of test"}"#,
        );
    replay_run(&s, extra)
}

/// The 1-based line of `youra.toml` in `run` that starts with `start`.
fn line_of(run: &Path, start: &str) -> usize {
    let text = std::fs::read_to_string(run.join("youra.toml")).unwrap();
    text.lines().position(|l| l.starts_with(start)).unwrap() + 1
}

#[test]
fn a_handed_runs_notice_command_and_webhook_wait_for_youra_trust_and_a_change_asks_again() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    let marker = tmp.path().join("notified");
    let (url, hits) = common::listener();
    let (_g, run) = stopping_run(&format!(
        "\n[notify]\ncommand = [\"touch\", {:?}]\nwebhook = \"{url}\"\ntimeout_s = 2\n",
        marker.display().to_string()
    ));
    let r = run.to_str().unwrap();
    let toml = run.join("youra.toml").display().to_string();

    let (code, stdout, stderr) = youra(&config, &["run", r]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let command_at = format!(
        "{toml}:{}: notify.command = [\"touch\", ",
        line_of(&run, "command")
    );
    let webhook_at = format!(
        "{toml}:{}: notify.webhook = \"{url}\"",
        line_of(&run, "webhook")
    );
    for named in [&command_at, &webhook_at] {
        assert!(stderr.contains(named.as_str()), "{named}:\n{stderr}");
    }
    assert!(
        stderr.contains("read them; if they are yours, run `youra trust"),
        "{stderr}"
    );
    assert!(!stdout.contains("MUST_STOP"), "no stage ran: {stdout}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!marker.exists(), "the notice command did not run");
    assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing was posted");
    assert!(
        std::fs::read_to_string(run.join("events.jsonl"))
            .unwrap()
            .is_empty(),
        "the engine never started"
    );

    // The researcher reads them and trusts them: the record is in their config folder.
    let (code, stdout, stderr) = youra(&config, &["trust", r]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&command_at) && stdout.contains(&webhook_at),
        "{stdout}"
    );
    assert!(config.join("trusted-runs.json").is_file());
    assert!(!run.join("trusted-runs.json").exists());

    let (code, stdout, stderr) = youra(&config, &["run", r]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("MUST_STOP: controller: end of test"),
        "the run went on: {stdout}\n{stderr}"
    );
    assert!(marker.exists(), "the trusted notice command ran");
    assert!(
        hits.load(Ordering::SeqCst) >= 1,
        "the trusted webhook was posted to"
    );

    // The command changes afterwards (a new argument): asked again, and it does not run.
    std::fs::remove_file(&marker).unwrap();
    let other = tmp.path().join("other");
    let text = std::fs::read_to_string(run.join("youra.toml")).unwrap();
    let text = text.replace(
        &format!("[\"touch\", {:?}]", marker.display().to_string()),
        &format!("[\"touch\", {:?}]", other.display().to_string()),
    );
    std::fs::write(run.join("youra.toml"), text).unwrap();
    let before = hits.load(Ordering::SeqCst);
    let (code, stdout, stderr) = youra(&config, &["run", r]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("changed what it runs or sends since you trusted it")
            && stderr.contains("(changed)"),
        "{stderr}"
    );
    assert!(!other.exists() && !marker.exists());
    assert_eq!(hits.load(Ordering::SeqCst), before);

    // Revoked, the old values are asked about again too.
    let (code, _, _) = youra(&config, &["trust", r]);
    assert_eq!(code, Some(0));
    let (_, listed, _) = youra(&config, &["trust", "--list"]);
    let real = std::fs::canonicalize(&run).unwrap();
    assert!(listed.contains(&real.display().to_string()), "{listed}");
    let (code, _, _) = youra(&config, &["trust", r, "--revoke"]);
    assert_eq!(code, Some(0));
    let (code, _, stderr) = youra(&config, &["run", r]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("you have not trusted them"), "{stderr}");
}

#[test]
fn doctor_sends_nothing_to_a_handed_runs_endpoint_until_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    let (url, hits) = common::listener();
    let run = tmp.path().join("handed");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(
        run.join("youra.toml"),
        format!(
            "[llm.default]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"{url}\"\napi_key_env = \"HOME\"\n"
        ),
    )
    .unwrap();
    let r = run.to_str().unwrap();
    let (code, stdout, stderr) = youra(&config, &["doctor", r]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let toml = run.join("youra.toml").display().to_string();
    assert!(
        stderr.contains(&format!("{toml}:4: llm.default.base_url = \"{url}\""))
            && stderr.contains(&format!("{toml}:5: llm.default.api_key_env = \"HOME\"")),
        "{stderr}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "no request reached the endpoint"
    );
    assert!(
        !run.join("youra.log").exists(),
        "doctor wrote nothing into the run"
    );

    // Trusted, the same doctor asks the endpoint.
    assert_eq!(youra(&config, &["trust", r]).0, Some(0));
    let (_, stdout, stderr) = youra(&config, &["doctor", r]);
    assert!(
        hits.load(Ordering::SeqCst) >= 1,
        "doctor reached the trusted endpoint:\n{stdout}\n{stderr}"
    );
}

#[test]
fn tools_list_and_tui_run_start_no_handed_server() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    let marker = tmp.path().join("started");
    let run = tmp.path().join("handed");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(
        run.join("youra.toml"),
        format!(
            "[[tools.servers]]\nname = \"probe\"\ncommand = \"touch\"\nargs = [{:?}]\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    let r = run.to_str().unwrap();
    let (code, stdout, stderr) = youra(&config, &["tools", "list", r]);
    assert_eq!(code, Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(":3: tools.servers[0].command = \"touch\"")
            && stderr.contains(":4: tools.servers[0].args = ["),
        "{stderr}"
    );
    // Refused before the terminal is even asked for.
    let (code, _, stderr) = youra(&config, &["tui", r, "--run"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("youra trust"), "{stderr}");
    assert!(!marker.exists(), "no server was started");
    // Reading a handed run needs no trust.
    let (code, _, stderr) = youra(&config, &["config", "show", r]);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn runs_youra_wrote_itself_need_no_trust_step() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    let marker = tmp.path().join("notified");
    // A recorded run with a notice command, copied with --keep-commands: the researcher
    // asked for it, `youra replay` listed it, and the copy runs it without another step.
    let (_g, recorded) = stopping_run(&format!(
        "\n[notify]\ncommand = [\"touch\", {:?}]\n",
        marker.display().to_string()
    ));
    let options = youra::engine::Options {
        exit_when_paused: true,
        ..Default::default()
    };
    let mut e = youra::engine::Engine::open(&recorded, options).expect("engine opens");
    let _ = e.run().expect("runs");
    drop(e);
    std::fs::remove_file(&marker).unwrap();
    let copy = tmp.path().join("copy");
    let (code, stdout, stderr) = youra(
        &config,
        &[
            "replay",
            recorded.to_str().unwrap(),
            copy.to_str().unwrap(),
            "--keep-commands",
        ],
    );
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let (code, stdout, stderr) = youra(&config, &["run", copy.to_str().unwrap()]);
    assert!(!stderr.contains("youra trust"), "{stderr}");
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("MUST_STOP"), "{stdout}");
    assert!(marker.exists(), "the copy's kept command ran");

    // `youra init` with an endpoint writes base_url itself: doctor asks it at once.
    let (url, hits) = common::listener();
    let fresh = tmp.path().join("fresh");
    let base = url.trim_end_matches("/hook").to_string() + "/v1";
    let (code, stdout, stderr) = youra(
        &config,
        &[
            "init",
            fresh.to_str().unwrap(),
            "--topic",
            "t",
            "--provider",
            "vllm",
            "--model",
            "m",
            "--base-url",
            &base,
        ],
    );
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let written = std::fs::read_to_string(fresh.join("youra.toml")).unwrap();
    assert!(written.contains(&base), "{written}");
    let (_, stdout, stderr) = youra(&config, &["doctor", fresh.to_str().unwrap()]);
    assert!(!stderr.contains("youra trust"), "{stderr}");
    assert!(
        hits.load(Ordering::SeqCst) >= 1,
        "doctor reached init's endpoint:\n{stdout}\n{stderr}"
    );
}
