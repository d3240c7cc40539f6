//! The `youra` binary end to end: what a user types, what they see, and the exit codes.

use crate::common;

use common::*;

#[test]
fn status_of_the_example_run_leads_with_what_waits() {
    let run = example_run();
    let o = youra(&["status", run.to_str().unwrap()]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    assert!(out.contains("Stage:      Phase 4"));
    assert!(out.contains("Workflow:   AWAITING_APPROVAL (INTERACTIVE)"));
    assert!(out.contains(">> WAITING FOR YOU: an escalation waits for approval"));
    assert!(
        out.contains("h-m1         MECHANISM  MUST_WORK          FAILED         FAIL     h-e1")
    );
    assert!(
        out.contains("failed check: spearman_rho_decay_vs_step: required <= -0.8, actual -0.31")
    );
    assert!(out.contains("Memory:     1 failure"));
    assert!(out.contains("Archives:   1 -> Phase 2C"));
    let o = youra(&["status", run.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["revision"], 7);
    assert_eq!(v["sub_hypotheses"][1]["gate"]["gate_type"], "MUST_WORK");
    assert_eq!(v["counts"]["FAILED"], 1);
    assert_eq!(v["artifacts"][0]["validation"], true);
}

#[test]
fn a_task_folder_is_discovered() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let o = youra(&["status", root.join(DATA_PROBLEMS).to_str().unwrap()]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    assert!(out.contains("2026_data_problems (YouRA research folder)"));
    assert!(out.contains("Memory:     5 failure, 1 limitation, 1 pivot, 6 snapshot"));
    assert!(out.contains("Archives:   3 -> Phase 0"));
    assert!(out.contains("Invariant:  [must-work-gate] h-e1 is COMPLETED"));
}

#[test]
fn validate_exits_1_with_file_line_col() {
    let o = youra(&[
        "vsa",
        "validate",
        own_fixture("vsa/tabs.yaml").to_str().unwrap(),
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.contains("tabs.yaml:4:1: error:"), "{out}");
    let o = youra(&[
        "vsa",
        "validate",
        own_fixture("vsa/drift_list.yaml").to_str().unwrap(),
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        out.contains("drift_list.yaml:9: warning: h-e1: gate written as the string `MUST_PASS`"),
        "{out}"
    );
    assert!(
        out.contains("ok (4 sub-hypotheses, 4 history entries, revision 0"),
        "{out}"
    );
    // No run there: the exit status every command gives a folder without one.
    let o = youra(&["vsa", "validate", "/nonexistent/dir"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn get_set_and_history_round_trip() {
    let (dir, _) = temp_copy(&example_run().join("verification_state.yaml"));
    let d = dir.path().to_str().unwrap();
    let o = youra(&[
        "vsa",
        "get",
        d,
        "sub_hypotheses.h-m1.gate.failed_checks[0].actual",
    ]);
    assert_eq!(text(&o).0, "-0.31\n");
    let o = youra(&[
        "vsa",
        "set",
        d,
        "sub_hypotheses.h-m2.status",
        "IN_PROGRESS",
        "--reason",
        "try",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err.contains(
            "refused: [prerequisites-first] h-m2 is IN_PROGRESS but its prerequisite h-m1 is FAILED"
        ),
        "{err}"
    );
    assert!(
        err.contains("hint: fix the state this depends on first, or pass --force"),
        "{err}"
    );
    let o = youra(&[
        "vsa",
        "set",
        d,
        "sub_hypotheses.h-m2.gate.type",
        "MUST_WORK",
        "--reason",
        "h-m2 now carries the claim",
        "--actor",
        "dana",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(
        text(&o).0,
        "sub_hypotheses.h-m2.gate.type: SHOULD_WORK -> MUST_WORK (revision 8)\n"
    );
    let o = youra(&["vsa", "history", d, "--limit", "1"]);
    let (out, _) = text(&o);
    assert!(out.contains("dana        sub_hypotheses.h-m2.gate.type: SHOULD_WORK -> MUST_WORK  (h-m2 now carries the claim)"), "{out}");
    let o = youra(&["vsa", "get", d, "history[-1].actor"]);
    assert_eq!(text(&o).0, "dana\n");
}

#[test]
fn memory_list_filters_and_show_finds_by_part_of_the_id() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let task = root.join(DATA_PROBLEMS);
    let t = task.to_str().unwrap();
    let o = youra(&[
        "memory",
        "list",
        t,
        "--kind",
        "failure",
        "--hypothesis",
        "h-m1",
    ]);
    let (out, _) = text(&o);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.contains("failures/h-m1_must_work_fail"));
    let o = youra(&["memory", "show", t, "run3"]);
    let (out, _) = text(&o);
    assert!(out.starts_with("failure_h-e1_run3 (failure)"), "{out}");
    let o = youra(&["memory", "show", t, "h-e1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("matches several records"));
    let o = youra(&["memory", "list", t, "--kind", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn help_names_every_command() {
    let (out, _) = text(&youra(&["--help"]));
    for cmd in ["status", "vsa", "memory"] {
        assert!(out.contains(cmd));
    }
    let (out, _) = text(&youra(&["vsa", "set", "--help"]));
    assert!(out.contains("--reason") && out.contains("--force") && out.contains("--create"));
}

#[test]
fn vsa_get_history_and_steer_speak_json() {
    let (_d, run) = temp_run(&example_run());
    let dir = run.to_str().unwrap();
    let o = youra(&["vsa", "get", dir, "sub_hypotheses.h-m1.gate", "--json"]);
    assert!(o.status.success(), "{}", text(&o).1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["path"], "sub_hypotheses.h-m1.gate");
    assert_eq!(v["revision"], 7);
    assert!(v["line"].as_u64().unwrap() > 1);
    assert_eq!(
        v["value"]["satisfied"], false,
        "typed, not the text `false`"
    );
    assert_eq!(v["value"]["criteria"][0]["value"], -0.8);
    assert_eq!(
        v["value"]["failed_checks"][0]["required"], "<= -0.8",
        "a quoted scalar stays a string"
    );
    let o = youra(&[
        "steer",
        dir,
        "pause",
        "--reason",
        "look",
        "--json",
        "--as",
        "researcher",
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["revision"], 8);
    assert_eq!(v["outcome"]["kind"], "directive");
    assert_eq!(v["outcome"]["verb"], "pause");
    assert_eq!(v["outcome"]["state"], "pending");
    assert!(v["outcome"]["id"].as_str().unwrap().starts_with("d-"));
    let o = youra(&["vsa", "history", dir, "--limit", "3", "--json"]);
    assert!(o.status.success(), "{}", text(&o).1);
    let lines: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["event"], "steer", "newest first");
    assert_eq!(lines[0]["revision"], 8);
    assert_eq!(lines[0]["actor"], "researcher");
    assert_eq!(lines[0]["reason"], "look");
    let o = youra(&["vsa", "get", dir, "no.such.field", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a missing field is still an error"
    );
}

/// `youra args…` killed after `secs`: a hostile file must fail fast, not hang the test.
fn youra_within(args: &[&str], secs: u64) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed().as_secs() >= secs {
            let _ = child.kill();
            panic!("youra {args:?} ran past {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn an_alias_bomb_is_refused_at_its_line_and_the_file_is_untouched() {
    let (_d, run) = temp_run(&example_run());
    let vsa = run.join("verification_state.yaml");
    let mut yaml = std::fs::read_to_string(&vsa).unwrap();
    let lines_before = yaml.lines().count();
    // Nine levels of ten aliases each: 10^9 nodes if expanded, in about 400 bytes.
    yaml.push_str("bomb:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let p = i - 1;
        yaml.push_str(&format!(
            "  l{i}: &l{i} [*l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}]\n"
        ));
    }
    std::fs::write(&vsa, &yaml).unwrap();
    let dir = run.to_str().unwrap();
    for args in [
        vec!["vsa", "validate", dir],
        vec!["status", dir],
        vec![
            "vsa",
            "set",
            dir,
            "workflow.next_action",
            "x",
            "--reason",
            "r",
        ],
    ] {
        let o = youra_within(&args, 20);
        let (out, err) = text(&o);
        let err = format!("{out}{err}");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("alias"), "{args:?}: {err}");
        assert!(
            // l4 (the line after `bomb:`, l0 … l3) is the first to pass the limit.
            err.contains(&format!("{}:", lines_before + 6))
                || err.contains(&format!("line {}", lines_before + 6)),
            "{args:?} names the line of the alias that crosses the limit: {err}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(&vsa).unwrap(),
        yaml,
        "nothing written"
    );
}

#[test]
fn a_relative_run_folder_runs_its_sandboxed_experiments() {
    let tmp = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--dir", "rel"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("run complete"), "{out}");
    // `youra run rel` on the finished run resumes from a relative path as well.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["run", "rel"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    // `status rel` names the run by its absolute path: made absolute at the CLI boundary.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["status", "rel"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let abs = tmp.path().join("rel");
    assert!(out.contains(&abs.display().to_string()), "{out}");
}

#[test]
fn ordinary_errors_are_messages_and_a_closed_pipe_is_a_quiet_exit() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["tui", "/nonexistent-youra-run"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert_ne!(o.status.code(), Some(0));
    assert!(err.contains("no verification_state.yaml found"), "{err}");
    assert!(
        !err.contains("BACKTRACE"),
        "no backtrace for a missing folder: {err}"
    );
    assert!(
        !err.contains('\u{1b}'),
        "no ANSI escapes when stderr is a file: {err:?}"
    );
    // `youra status … | head -1`: the reader closes the pipe before youra writes.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["status", example_run().to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let (_, err) = text(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        matches!(o.status.code(), Some(0 | 141)),
        "{:?}: {err}",
        o.status
    );
}

#[test]
fn completions_and_the_man_page_are_generated_from_the_commands() {
    for shell in ["bash", "zsh", "fish"] {
        let o = youra(&["completions", shell]);
        assert!(o.status.success(), "{shell}");
        let script = String::from_utf8(o.stdout).unwrap();
        for sub in ["status", "steer", "demo", "vsa"] {
            assert!(script.contains(sub), "{shell} completes `{sub}`");
        }
        if shell == "bash" {
            let dir = tempfile::tempdir().unwrap();
            let f = dir.path().join("youra.bash");
            std::fs::write(&f, &script).unwrap();
            let check = std::process::Command::new("bash")
                .arg("-n")
                .arg(&f)
                .output()
                .unwrap();
            assert!(check.status.success(), "{}", text(&check).1);
        }
    }
    let o = youra(&["man"]);
    assert!(o.status.success());
    let page = String::from_utf8(o.stdout).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH youra 1"),
        "{page}"
    );
    assert!(
        page.contains(".SH SUBCOMMANDS") && page.contains("steer"),
        "{page}"
    );
    assert_eq!(youra(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn status_counts_the_model_calls_and_says_when_their_cost_is_unknown() {
    let (_tmp, run) = temp_run(&example_run());
    let ledger = youra::llm::ledger::Ledger::new(
        run.join("ledger.tsv"),
        youra::llm::ledger::PriceTable::with_list_prices(&Default::default()),
    );
    let row = |model: &str, free: bool| youra::llm::ledger::LedgerRow {
        time: "2026-12-03T10:00:00Z".into(),
        role: "executor".into(),
        stage: "problem_scoping".into(),
        model: model.into(),
        input_tokens: 1_000_000,
        output_tokens: 100_000,
        reasoning_tokens: 40,
        free,
        ..Default::default()
    };
    ledger.append(&row("gpt-4o-mini", false)).unwrap();
    ledger.append(&row("mystery-model-7b", false)).unwrap();
    ledger.append(&row("smollm2", true)).unwrap();
    let warned = ledger.take_warnings();
    assert_eq!(warned.len(), 1, "{warned:?}");
    let o = youra(&["status", run.to_str().unwrap()]);
    let (out, _) = text(&o);
    assert!(
        out.contains(
            "Models:     3 calls, 3000000 in / 300000 out tokens (120 thinking), $0.2100 + unknown"
        ),
        "{out}"
    );
    let o = youra(&["status", run.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["usage"]["unpriced_calls"], 1);
    assert_eq!(v["usage"]["cost"], "$0.2100 + unknown");
}

#[test]
fn config_show_names_the_layer_of_every_value() {
    let tmp = tempfile::tempdir().unwrap();
    let user = tmp.path().join("config");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("youra.toml"),
        "[llm.default]\nprovider = \"ollama\"\nmodel = \"user-model\"\n\n[engine]\nrepair_attempts = 5\n",
    )
    .unwrap();
    let run = tmp.path().join("run");
    let o = youra(&["init", run.to_str().unwrap(), "--topic", "t"]);
    assert!(o.status.success(), "{o:?}");
    std::fs::write(
        run.join("youra.toml"),
        "[run]\ntopic = \"t\"\n\n[llm.default]\nmodel = \"run-model\"\n\n[llm.caps]\n\"executor.manuscript_drafting\" = 8000\n",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args([
            "config",
            "show",
            run.to_str().unwrap(),
            "--json",
            "--base-url",
            "http://flag:1/v1",
        ])
        .args(["--role", "critic=flag-critic"])
        .env("YOURA_CONFIG_DIR", &user)
        .env("YOURA_CONTROLLER_MODEL", "env-controller")
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let source = |key: &str| -> (String, String) {
        let r = rows
            .iter()
            .find(|r| r["key"] == key)
            .unwrap_or_else(|| panic!("no {key} in {rows:?}"));
        (
            r["value"].as_str().unwrap().to_string(),
            r["source"].as_str().unwrap().to_string(),
        )
    };
    let user_file = user.join("youra.toml").display().to_string();
    let run_file = run.join("youra.toml").display().to_string();
    assert_eq!(
        source("llm.default.provider"),
        ("\"ollama\"".into(), format!("{user_file}:2"))
    );
    assert_eq!(
        source("engine.repair_attempts"),
        ("5".into(), format!("{user_file}:6"))
    );
    assert_eq!(
        source("llm.default.model"),
        ("\"run-model\"".into(), format!("{run_file}:5"))
    );
    assert_eq!(
        source("llm.caps.\"executor.manuscript_drafting\""),
        ("8000".into(), format!("{run_file}:8"))
    );
    assert_eq!(
        source("llm.roles.controller.model").1,
        "$YOURA_CONTROLLER_MODEL"
    );
    assert_eq!(
        source("llm.default.base_url").1,
        "flag --base-url http://flag:1/v1"
    );
    assert_eq!(
        source("llm.roles.critic.model").1,
        "flag --role critic=flag-critic"
    );
    assert_eq!(source("engine.max_resumes"), ("2".into(), "default".into()));
    // A bad --role is a usage error.
    let o = youra(&["config", "show", run.to_str().unwrap(), "--role", "boss=x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("not a role"), "{o:?}");
}

#[test]
fn youra_config_dir_moves_the_tuis_keymap_and_theme() {
    let tmp = tempfile::tempdir().unwrap();
    let (_g, run) = temp_run(&example_run());
    for (file, words) in [
        ("keymap.toml", "[nonsense]\nx = \"y\"\n"),
        ("theme.toml", "this is = not a theme ["),
    ] {
        let dir = tmp.path().join(file);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(file), words).unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
            .args(["tui", run.to_str().unwrap()])
            .env("YOURA_CONFIG_DIR", &dir)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&dir.join(file).display().to_string()),
            "{file}: {err}"
        );
    }
}

#[test]
fn doctor_json_reports_a_replay_run_and_a_missing_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let o = youra(&["init", run.to_str().unwrap(), "--topic", "t"]);
    assert!(o.status.success(), "{o:?}");
    std::fs::write(run.join("bundle.jsonl"), "").unwrap();
    std::fs::write(
        run.join("youra.toml"),
        "[run]\ntopic = \"t\"\n\n[llm.default]\nprovider = \"replay\"\nreplay = \"bundle.jsonl\"\n\n[llm.roles.critic]\nprovider = \"replay\"\nreplay = \"missing.jsonl\"\n",
    )
    .unwrap();
    let o = youra(&["doctor", run.to_str().unwrap(), "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {o:?}"));
    assert_eq!(o.status.code(), Some(1), "one role cannot work: {v:#}");
    assert_eq!(v["ok"], false);
    let endpoints = v["endpoints"].as_array().unwrap();
    assert_eq!(endpoints.len(), 2, "{v:#}");
    for e in endpoints {
        for key in [
            "roles",
            "provider",
            "base_url",
            "model",
            "reachable",
            "model_listed",
            "dialects",
            "structured",
            "streaming",
            "tool_calls",
            "reasoning",
            "latency_ms",
            "tokens_per_s",
            "problems",
        ] {
            assert!(e.get(key).is_some(), "{key} in {e}");
        }
    }
    let broken = endpoints
        .iter()
        .find(|e| e["roles"] == serde_json::json!(["critic"]))
        .unwrap();
    assert!(
        broken["problems"][0]
            .as_str()
            .unwrap()
            .contains("missing.jsonl"),
        "{broken}"
    );
    let fine = endpoints
        .iter()
        .find(|e| e["roles"] != serde_json::json!(["critic"]))
        .unwrap();
    assert_eq!(fine["reachable"]["result"], "yes");
    assert_eq!(fine["problems"], serde_json::json!([]));
}
