//! README's "Your own study", the local-model recipe (Ollama, vLLM, llama.cpp), run as
//! written: the `youra` lines of its block go to `sh` verbatim, from the checkout, with
//! `HOME` a fresh folder and this build's `youra` first on the PATH, against the loopback
//! model server the tests start. The one thing replaced is the documented address
//! `http://localhost:11434/v1` (by that server's). The install line and the model server
//! are this test's own (the binary under test; `LlmServer`), so a renamed flag, a dropped
//! step or a command youra no longer takes fails here before a reader meets it. The API
//! recipes (OpenAI-compatible, Anthropic) need a key and the network past `init`: their
//! steps are checked to be there and their `init` line runs as written.

use crate::common::llm_server::LlmServer;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The address the README's local recipe names, and the test replaces.
const DOCUMENTED_URL: &str = "http://localhost:11434/v1";
const HEADING: &str = "### 3. A model on your machine: Ollama, vLLM or llama.cpp";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The first ```sh block under `heading`, its commands joined across `\` line ends (each
/// kept as written, continuations included: `sh` reads them so).
fn commands_under(readme: &str, heading: &str) -> Vec<String> {
    let at = readme
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has no {heading:?} section"));
    let rest = &readme[at..];
    let start = rest.find("```sh\n").expect("a ```sh block") + "```sh\n".len();
    let end = rest[start..].find("\n```").expect("the block's end") + start;
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for line in rest[start..end].lines() {
        if open {
            let last = out.last_mut().unwrap();
            last.push('\n');
            last.push_str(line);
        } else if !line.trim().is_empty() {
            out.push(line.to_string());
        }
        open = line.ends_with('\\');
    }
    out
}

/// One README line through `sh`, bounded by `limit` (killed past it: the test then fails).
fn sh(line: &str, home: &Path, limit: Duration) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_youra")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    for (k, _) in std::env::vars() {
        if k.starts_with("YOURA_") {
            cmd.env_remove(k);
        }
    }
    let mut child = cmd
        .arg("-c")
        .arg(line)
        .current_dir(root())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "`{line}` ran past {limit:?}:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_local_model_recipe_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block = commands_under(&readme, HEADING);
    assert_eq!(
        block.first().map(String::as_str),
        Some("cargo install --locked --path ."),
        "the recipe starts by installing youra: {block:?}"
    );
    let lines: Vec<&String> = block.iter().filter(|l| l.starts_with("youra ")).collect();
    let verbs: Vec<&str> = lines
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(verbs, ["init", "doctor", "run", "report"], "{block:?}");
    assert!(
        lines[0].contains(DOCUMENTED_URL),
        "the placeholder this test replaces is gone: {}",
        lines[0]
    );
    // The model the recipe names, served strictly (any other name is refused, as Ollama does).
    let model = lines[0]
        .split_whitespace()
        .skip_while(|w| *w != "--model")
        .nth(1)
        .expect("--model in the init line")
        .to_string();
    let server = LlmServer::start(0, &[model.as_str()], true, |_| "1 2 3".to_string());
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join("runs/penguins");
    let mut said = Vec::new();
    for line in &lines {
        let line = line.replace(DOCUMENTED_URL, &server.base_url());
        let out = sh(&line, home.path(), Duration::from_secs(240));
        eprintln!("$ {line}\n{}", text(&out));
        said.push((out.status.code(), text(&out)));
    }
    // init: the run, the chosen model, the data copied read-only and hashed.
    let (code, out) = &said[0];
    assert_eq!(*code, Some(0), "{out}");
    let toml = std::fs::read_to_string(run.join("youra.toml")).unwrap();
    assert!(toml.contains(&format!("model = \"{model}\"")), "{toml}");
    assert_eq!(
        std::fs::read(run.join("data/penguins.csv")).unwrap(),
        std::fs::read(root().join("assets/demo/data/penguins.csv")).unwrap()
    );
    // doctor: every role works under that name; the data matches its manifest.
    let (_, out) = &said[1];
    assert!(!out.contains("CANNOT WORK"), "{out}");
    assert!(
        out.contains("data: 1 file(s) match data/MANIFEST.sha256"),
        "{out}"
    );
    // run: a server that answers everything with "1 2 3" cannot carry a study, and the run
    // says so by stopping (exit 1), not by hanging or crashing.
    let (code, out) = &said[2];
    assert_eq!(*code, Some(1), "{out}");
    assert!(
        out.contains("MUST_STOP: Problem Scoping (Phase 0): output check failed"),
        "{out}"
    );
    assert!(server.answered() > 0, "the run never called the model");
    // report check: there is no paper, and it says so (exit 2: nothing to check).
    let (code, out) = &said[3];
    assert_eq!(*code, Some(2), "{out}");
    assert!(out.contains("error: no paper in "), "{out}");
    let _ = Command::new("chmod")
        .args(["-R", "u+w"])
        .arg(home.path())
        .status();
}

/// The word after `flag` in a README command line.
fn flag_value<'a>(line: &'a str, flag: &str) -> &'a str {
    line.split_whitespace()
        .skip_while(|w| *w != flag)
        .nth(1)
        .unwrap_or_else(|| panic!("no {flag} in {line}"))
}

#[test]
fn the_api_recipes_have_every_step_and_their_init_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for heading in [
        "### 1. An OpenAI-compatible API (OpenAI, OpenRouter, a hosted server)",
        "### 2. Anthropic",
    ] {
        let block = commands_under(&readme, heading);
        assert_eq!(
            block.first().map(String::as_str),
            Some("cargo install --locked --path ."),
            "{heading}: {block:?}"
        );
        let lines: Vec<&String> = block.iter().filter(|l| l.starts_with("youra ")).collect();
        let verbs: Vec<&str> = lines
            .iter()
            .map(|l| l.split_whitespace().nth(1).unwrap())
            .collect();
        assert_eq!(verbs, ["init", "doctor", "run", "report"], "{heading}");
        // `init` calls no endpoint, so it runs as written (no key, no network needed).
        let home = tempfile::tempdir().unwrap();
        let out = sh(lines[0], home.path(), Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(0), "{heading}: {}", text(&out));
        let run = home.path().join("runs/penguins");
        let config = youra::config::load(&run).unwrap();
        let settings = config.llm.settings();
        for role in youra::llm::roles::ROLES {
            assert_eq!(
                settings.role(role).model.as_deref(),
                Some(flag_value(lines[0], "--model")),
                "{heading}: {role}"
            );
        }
        assert!(
            run.join("data/penguins.csv").is_file(),
            "{heading}: no data copied"
        );
        let _ = Command::new("chmod")
            .args(["-R", "u+w"])
            .arg(home.path())
            .status();
    }
}
