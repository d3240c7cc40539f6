//! Tool access against real processes: the MCP client and registry against a real MCP
//! server (`tests/fixtures/mcp_echo.py`, Python 3, no network), the `youra tools list`
//! binary, the tool-call loop through the OpenAI-compatible client against a loopback
//! server, recorded and replayed offline, and an external coding agent (a script written
//! here) that edits code, reports tokens and tries to escape its folder.

#[path = "../llm_http"]
mod llm_http {
    // Shared with tests/llm_http.rs; this file uses only its plain JSON replies.
    #[allow(dead_code)]
    pub mod server;
}

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use llm_http::server::{Reply, Server};
use serde_json::json;
use youra::exec::agent::{AgentConfig, AgentError, AgentTask, run_agent};
use youra::exec::{LocalBackend, Violation};
use youra::llm::replay::Replay;
use youra::llm::{
    CallKey, ChatRequest, HttpConfig, Message, OpenAiCompatible, Provider, Roles, ToolBox,
    ToolCall, run_tools,
};
use youra::tools::mcp::{self, Transport};
use youra::tools::{McpServer, ServerConfig, ToolError, ToolRegistry, ToolsSection};

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp_echo.py")
        .display()
        .to_string()
}

fn stdio(extra: &[&str]) -> Transport {
    let mut args = vec![fixture()];
    args.extend(extra.iter().map(|s| s.to_string()));
    Transport::Stdio {
        command: "python3".into(),
        args,
        env: vec![],
    }
}

fn connect(extra: &[&str]) -> Result<McpServer, ToolError> {
    let rt = mcp::runtime().expect("runtime");
    McpServer::connect("echo", &stdio(extra), rt, Duration::from_secs(20))
}

const T: Duration = Duration::from_secs(10);

#[test]
fn lists_the_tools_of_a_real_server() {
    let server = connect(&[]).expect("connect");
    let tools = server.list_tools(T).expect("list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "add", "fail", "hang", "exit"]);
    assert_eq!(tools[1].description, "Add two numbers.");
    assert_eq!(tools[1].input_schema["required"], json!(["a", "b"]));
}

#[test]
fn calls_a_tool_and_reads_tool_errors() {
    let server = connect(&[]).expect("connect");
    let sum = server
        .call("add", &json!({"a": 2, "b": 3}), T)
        .expect("add");
    assert_eq!((sum.text.as_str(), sum.is_error), ("5", false));
    let echoed = server
        .call("echo", &json!({"text": "héllo"}), T)
        .expect("echo");
    assert_eq!(echoed.text, "héllo");
    let failed = server.call("fail", &json!({}), T).expect("fail");
    assert_eq!(
        (failed.text.as_str(), failed.is_error),
        ("this tool always fails", true)
    );
    let e = server.call("add", &json!([1, 2]), T).unwrap_err();
    assert!(e.to_string().contains("must be a JSON object"), "{e}");
}

#[test]
fn a_hung_call_times_out_and_the_server_still_answers() {
    let server = connect(&[]).expect("connect");
    let started = Instant::now();
    let e = server
        .call("hang", &json!({}), Duration::from_millis(400))
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(e, ToolError::Timeout { .. }), "{e}");
    assert!(
        e.to_string().contains("did not answer `tools/call hang`"),
        "{e}"
    );
    let after = server
        .call("echo", &json!({"text": "still here"}), T)
        .expect("echo");
    assert_eq!(after.text, "still here");
}

#[test]
fn a_server_that_exits_mid_call_is_a_clear_error() {
    let server = connect(&[]).expect("connect");
    let started = Instant::now();
    let e = server.call("exit", &json!({}), T).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(e, ToolError::ServerGone { .. }), "{e}");
    assert!(e.to_string().contains("is gone"), "{e}");
    // The next call fails at once too: a dead server never hangs the run.
    let started = Instant::now();
    let again = server.call("echo", &json!({"text": "x"}), T).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(matches!(again, ToolError::ServerGone { .. }), "{again}");
}

#[test]
fn a_server_that_dies_at_start_is_unhealthy_not_fatal() {
    let e = connect(&["--exit-at-start"]).err().expect("no handshake");
    assert!(matches!(e, ToolError::Handshake { .. }), "{e}");
    let section = section(vec![
        server_cfg("dead", &["--exit-at-start"]),
        server_cfg("serena", &[]),
    ]);
    let registry = ToolRegistry::start(&section).expect("registry");
    let health = registry.health();
    assert!(!health[0].healthy());
    assert!(health[1].healthy(), "{:?}", health[1].error);
    assert_eq!(health[1].tools.len(), 5);
}

fn server_cfg(name: &str, extra: &[&str]) -> ServerConfig {
    let mut args = vec![fixture()];
    args.extend(extra.iter().map(|s| s.to_string()));
    ServerConfig {
        name: name.into(),
        command: Some("python3".into()),
        args,
        ..ServerConfig::default()
    }
}

fn section(servers: Vec<ServerConfig>) -> ToolsSection {
    ToolsSection {
        servers,
        connect_timeout_s: 20.0,
        call_timeout_s: 5.0,
        ..ToolsSection::default()
    }
}

#[test]
fn roles_and_stages_decide_what_is_offered() {
    let mut code = server_cfg("serena", &[]);
    code.allowed_tools = vec!["add".into(), "ec*".into()];
    code.roles = vec!["executor".into()];
    let registry = ToolRegistry::start(&section(vec![code])).expect("registry");
    let coding = registry.for_stage("executor", "coding_validation");
    assert_eq!(coding.names(), ["serena__echo", "serena__add"]);
    // Table 7: no code navigation in Literature Grounding; other roles get nothing.
    assert!(
        registry
            .for_stage("executor", "literature_grounding")
            .is_empty()
    );
    assert!(registry.for_stage("critic", "coding_validation").is_empty());
    let call = ToolCall {
        id: "c1".into(),
        name: "serena__add".into(),
        arguments: json!({"a": 40, "b": 2}),
    };
    assert_eq!(coding.call(&call).expect("call"), "42");
    let unknown = ToolCall {
        name: "serena__hang".into(),
        ..call
    };
    let e = coding.call(&unknown).unwrap_err();
    assert!(e.0.contains("no tool `serena__hang`"), "{e}");
}

fn youra(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run youra");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn tools_list_through_the_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cmd = "python3 tests/fixtures/mcp_echo.py";
    let (code, out, err) = youra(&["tools", "list", "--stdio", cmd], root);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("ok, 5 tools"), "{out}");
    assert!(out.contains("  add   Add two numbers."), "{out}");
    let (code, out, _) = youra(
        &[
            "tools",
            "list",
            "--stdio",
            &format!("{cmd} --exit-at-start"),
        ],
        root,
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAILED") && out.contains("refusing to start"),
        "{out}"
    );

    let run = tempfile::tempdir().unwrap();
    let toml = format!(
        "[[tools.servers]]\nname = \"exa\"\ncommand = \"python3\"\nargs = [{:?}]\nroles = [\"critic\"]\n",
        fixture()
    );
    std::fs::write(run.path().join("youra.toml"), toml).unwrap();
    let dir = run.path().display().to_string();
    // The researcher wrote the server into the run's settings: trusted, it is started.
    let home = tempfile::tempdir().unwrap();
    let config = crate::common::trust::trusted(run.path(), &home.path().join("config"));
    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["tools", "list", &dir, "--json"])
        .current_dir(root)
        .env("YOURA_CONFIG_DIR", &config)
        .output()
        .expect("run youra");
    let (code, out, err) = (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v[0]["name"], "exa");
    assert_eq!(v[0]["capability"], "web_search");
    assert_eq!(v[0]["tools"].as_array().map(Vec::len), Some(5));
}

fn openai(url: &str) -> HttpConfig {
    HttpConfig {
        base_url: format!("{url}/v1/"),
        model: "test-model".into(),
        stream: false,
        max_retries: 0,
        request_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(5),
        ..HttpConfig::default()
    }
}

#[test]
fn a_tool_loop_is_recorded_and_replays_offline() {
    let asks = r#"{"model":"m","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"serena__add","arguments":"{\"a\":2,\"b\":3}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":30,"completion_tokens":9}}"#;
    let answers = r#"{"model":"m","choices":[{"message":{"role":"assistant","content":"The sum is 5."},"finish_reason":"stop"}],"usage":{"prompt_tokens":45,"completion_tokens":6}}"#;
    let server = Server::start(vec![Reply::json(200, asks), Reply::json(200, answers)]);
    let registry = ToolRegistry::start(&section(vec![server_cfg("serena", &[])])).expect("tools");
    let tools = registry.for_stage("executor", "coding_validation");
    let run = tempfile::tempdir().unwrap();
    let client = OpenAiCompatible::new(openai(&server.url)).expect("client");
    let roles = Roles::from_provider(run.path(), Arc::new(client));
    let key = CallKey::new("executor", "coding_validation", Some("h-e1"), 1);
    let request = || ChatRequest::new(vec![Message::user("add 2 and 3")]);
    let provider = roles.get("executor").expect("role");
    let (live, traces) = run_tools(&*provider, &key, request(), &tools, 4).expect("live loop");
    assert_eq!(live.content, "The sum is 5.");
    assert_eq!(traces.len(), 1);
    assert_eq!((traces[0].result.as_str(), traces[0].failed), ("5", false));
    let sent = server.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].body["tools"][0]["function"]["name"], "serena__echo");
    assert_eq!(
        sent[1].body["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "5"})
    );

    let ledger = std::fs::read_to_string(run.path().join("ledger.tsv")).unwrap();
    let tool_rows: Vec<&str> = ledger
        .lines()
        .filter(|l| l.contains("executor:tool"))
        .collect();
    assert_eq!(tool_rows.len(), 1, "{ledger}");
    assert!(tool_rows[0].contains("\ttool\t1\t0\t"), "{ledger}");

    // Offline: the recorded transcripts alone, the same tools, the same answer.
    let replay = Replay::load(&run.path().join("transcripts")).expect("replay");
    assert_eq!(replay.len(), 2);
    let (again, traces_again) = run_tools(&replay, &key, request(), &tools, 4).expect("replay");
    assert_eq!(again.content, live.content);
    assert_eq!(traces_again[0].result, traces[0].result);
    assert_eq!(
        server.requests().len(),
        2,
        "replay must not reach the network"
    );
    assert_eq!(replay.kind(), "replay");
}

const FAKE_AGENT: &str = r#"#!/bin/sh
# Stands in for a coding agent: edits code/, reports tokens, and misbehaves.
cat "$YOURA_TASKS_FILE" > /dev/null
printf 'print("hello")\n' > main.py
printf '{"accuracy": 0.99}\n' > ../results/experiment_results.json
printf 'escaped\n' > "$1" 2>/dev/null || echo "the write outside was refused"
ln -s /etc/passwd leak
echo "tokens: in=1200 out=340"
echo '{"type":"result","usage":{"input_tokens":10,"output_tokens":5}}'
"#;

fn agent_run() -> (tempfile::TempDir, PathBuf) {
    let run = tempfile::tempdir().unwrap();
    let ws = run.path().join("h-e1");
    std::fs::create_dir_all(ws.join("code")).unwrap();
    std::fs::create_dir_all(ws.join("results")).unwrap();
    std::fs::write(ws.join("03_plan.md"), "# Plan\n").unwrap();
    std::fs::write(ws.join("03_tasks.md"), "- [ ] write main.py\n").unwrap();
    // Inside the workspace: the sandbox hides the host's /tmp, where the test folder lives.
    std::fs::write(ws.join("agent.sh"), FAKE_AGENT).unwrap();
    (run, ws)
}

#[test]
fn a_coding_agent_is_charged_and_confined_to_code() {
    let (run, ws) = agent_run();
    let outside = run.path().join("outside.txt");
    let cfg: AgentConfig = toml::from_str(&format!(
        "command = [\"sh\", {:?}, {:?}]\nmodel = \"fake-agent\"\nsandbox = \"required\"\nnetwork = false\ntime_limit_s = 30",
        ws.join("agent.sh").display().to_string(),
        outside.display().to_string()
    ))
    .unwrap();
    let task = AgentTask {
        workspace: &ws,
        plan: &ws.join("03_plan.md"),
        tasks: &ws.join("03_tasks.md"),
        results: "{\"metrics\": {...}}",
    };
    let ledger = youra::llm::ledger::Ledger::new(run.path().join("ledger.tsv"), Default::default());
    let key = CallKey::new("coder", "coding_validation", Some("h-e1"), 1);
    let err = run_agent(&LocalBackend::new(), &cfg, &task, &ledger, &key).unwrap_err();
    let AgentError::Escaped {
        violations,
        outcome,
        ..
    } = &err
    else {
        panic!("expected a confinement error, got {err}");
    };
    assert!(outcome.job.exit.success(), "{:?}", outcome.job.exit);
    let created = Violation::Created("results/experiment_results.json".into());
    assert!(violations.contains(&created), "{violations:?}");
    assert!(
        violations.iter().any(
            |v| matches!(v, Violation::EscapingLink { link, .. } if link == Path::new("code/leak"))
        ),
        "{violations:?}"
    );
    assert_eq!(violations.len(), 2, "{violations:?}");
    assert!(err.to_string().contains("outside"), "{err}");
    // The agent's own "result" is gone; its code stays; youra measures for itself.
    assert!(!ws.join("results/experiment_results.json").exists());
    assert!(ws.join("code/main.py").exists());
    if outcome.job.sandboxed {
        assert!(
            !outside.exists(),
            "the sandbox must stop writes outside the workspace"
        );
    }
    let usage = outcome.usage.expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (1210, 345));
    let rows = std::fs::read_to_string(run.path().join("ledger.tsv")).unwrap();
    assert!(
        rows.contains("coder:agent\tcoding_validation\tfake-agent\t1210\t345"),
        "{rows}"
    );
}

#[test]
fn a_well_behaved_agent_passes() {
    let (run, ws) = agent_run();
    std::fs::write(ws.join("agent.sh"), "printf 'x = 1\\n' > model.py\n").unwrap();
    let cfg: AgentConfig = toml::from_str(&format!(
        "command = [\"sh\", {:?}]\nsandbox = \"required\"\nnetwork = false\ntime_limit_s = 30",
        ws.join("agent.sh").display().to_string()
    ))
    .unwrap();
    let task = AgentTask {
        workspace: &ws,
        plan: &ws.join("03_plan.md"),
        tasks: &ws.join("03_tasks.md"),
        results: "{\"metrics\": {...}}",
    };
    let ledger = youra::llm::ledger::Ledger::new(run.path().join("ledger.tsv"), Default::default());
    let key = CallKey::new("coder", "coding_validation", Some("h-e1"), 1);
    let outcome = run_agent(&LocalBackend::new(), &cfg, &task, &ledger, &key).expect("clean run");
    assert!(outcome.job.exit.success());
    assert_eq!(outcome.usage, None);
    assert_eq!(
        std::fs::read_to_string(ws.join("code/model.py")).unwrap(),
        "x = 1\n"
    );
}

/// The npm reference server, when the README's optional install put it here.
fn everything() -> Option<PathBuf> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/mcp-everything/node_modules/.bin/mcp-server-everything");
    if bin.exists() {
        return Some(bin);
    }
    eprintln!(
        "skipped: @modelcontextprotocol/server-everything is not installed; run `npm install --prefix target/mcp-everything @modelcontextprotocol/server-everything`"
    );
    None
}

#[test]
fn the_reference_server_over_stdio() {
    let Some(bin) = everything() else { return };
    let transport = Transport::Stdio {
        command: bin.display().to_string(),
        args: vec!["stdio".into()],
        env: vec![],
    };
    let rt = mcp::runtime().expect("runtime");
    let server =
        McpServer::connect("everything", &transport, rt, Duration::from_secs(30)).expect("connect");
    let tools = server.list_tools(T).expect("list");
    assert!(tools.iter().any(|t| t.name == "get-sum"), "{tools:?}");
    let sum = server
        .call("get-sum", &json!({"a": 2, "b": 3}), T)
        .expect("get-sum");
    assert!(sum.text.contains('5'), "{}", sum.text);
    let echo = server
        .call("echo", &json!({"message": "hi"}), T)
        .expect("echo");
    assert!(echo.text.contains("hi"), "{}", echo.text);
}
