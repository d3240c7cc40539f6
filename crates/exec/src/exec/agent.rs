//! An external coding agent (`codex exec …`, `claude -p …`) as the back end of Coding &
//! Validation: run like an experiment (same [`Backend`], sandbox, limits and allow-listed
//! environment), given the plan and tasks files, its token use read from its log and
//! charged to the ledger, its changes confined to `<h>/code/` (`agent_check.rs`).
//!
//! The agent writes code; it never decides the gate. Whatever it says about its results,
//! youra runs the experiment and judges what it measures ("trust the verifier output, not
//! the agent's narrative"), and anything the agent wrote outside `code/` is reported and
//! removed, so an agent-written `results/experiment_results.json` cannot pass for one.
//!
//! Token convention (summed over the log, so per-turn reports add up):
//! - a line containing `tokens: in=<n> out=<n>`;
//! - a JSON line with a `usage` object (`input_tokens`/`output_tokens`, or
//!   `prompt_tokens`/`completion_tokens`), at the top level or one level down
//!   (Claude Code's `--output-format json`, Codex's `--json` turn events).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::agent_check::{self, Violation};
use super::{Backend, ExecError, Job, JobOutcome, SandboxMode};
use crate::llm::ledger::{Ledger, LedgerRow};
use crate::llm::{CallKey, LlmError, Usage};

/// `[tools.coding_agent]` in youra.toml.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// The command; `{plan}`, `{tasks}`, `{code}` become absolute paths and `{prompt}` the
    /// standard instruction, e.g. `["codex", "exec", "--full-auto", "{prompt}"]`.
    pub command: Vec<String>,
    /// The ledger's model name (for the price table); default: the program's file name.
    pub model: Option<String>,
    #[serde(default = "default_time_limit")]
    pub time_limit_s: f64,
    /// Agents call their model's API, so they usually need the network (a warning says so).
    #[serde(default = "yes")]
    pub network: bool,
    /// Without bubblewrap an agent could write anywhere: required unless set to `off`.
    #[serde(default)]
    pub sandbox: SandboxMode,
    /// Extra variables (names that look like secrets are refused, as for experiments).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// How youra then runs the experiment the agent wrote, from `code/` (the agent is asked
    /// to provide it); default `sh run.sh`.
    #[serde(default = "default_run")]
    pub run: Vec<String>,
}

fn default_run() -> Vec<String> {
    vec!["sh".into(), "run.sh".into()]
}

fn default_time_limit() -> f64 {
    1800.0
}
fn yes() -> bool {
    true
}

/// One run of the agent for one sub-hypothesis.
pub struct AgentTask<'a> {
    /// `<run>/h-*`: its `code/` folder is what the agent may change.
    pub workspace: &'a Path,
    pub plan: &'a Path,
    pub tasks: &'a Path,
    /// What the experiment must write (the repeats schema, issue 40).
    pub results: &'a str,
}

#[derive(Debug)]
pub struct AgentOutcome {
    pub job: JobOutcome,
    /// What the agent reported (`None`: it reported nothing, nothing was charged).
    pub usage: Option<Usage>,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("cannot check the agent's changes in {path}: {source}")]
    Check {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not charge the agent's tokens: {0}")]
    Ledger(#[from] LlmError),
    #[error("the coding agent changed files outside {code}: {}; its work is not accepted (created files and escaping links were removed)", list(.violations))]
    Escaped {
        code: PathBuf,
        violations: Vec<Violation>,
        outcome: Box<AgentOutcome>,
    },
}

fn list(v: &[Violation]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The instruction `{prompt}` stands for.
pub fn prompt(task: &AgentTask<'_>) -> String {
    format!(
        "Implement the tasks in {} following the plan in {}. Write and change files only under {}, \
         including `run.sh`, which runs the experiment; if FAILURE.md is there, the last attempt failed \
         as it says: fix that. Do not write results: youra runs the experiment and measures it. \
         When it runs, the experiment itself must do this: {}",
        task.tasks.display(),
        task.plan.display(),
        task.workspace.join("code").display(),
        task.results
    )
}

/// Run the agent, charge what it reports under `key`, and check what it changed. Ok means
/// it ran and stayed in `code/` (whatever its exit); the engine then runs the experiment.
pub fn run_agent(
    backend: &dyn Backend,
    cfg: &AgentConfig,
    task: &AgentTask<'_>,
    ledger: &Ledger,
    key: &CallKey,
) -> Result<AgentOutcome, AgentError> {
    let job = job(cfg, task)?;
    let check_err = |source| AgentError::Check {
        path: task.workspace.to_path_buf(),
        source,
    };
    let before = agent_check::snapshot(task.workspace).map_err(check_err)?;
    let job_outcome = backend.start(&job)?.wait();
    // The agent wrote this log: read as data (a regular file, capped, no link followed).
    let log = crate::fsutil::read_capped(&job_outcome.log_path, super::metrics::MAX_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let usage = parse_usage(&log);
    if let Some(u) = usage {
        ledger.append(&LedgerRow {
            time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            role: format!("{}:agent", key.role),
            stage: key.stage.clone(),
            model: model_name(cfg),
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            ..LedgerRow::default()
        })?;
    }
    let after = agent_check::snapshot(task.workspace).map_err(check_err)?;
    let mut violations = agent_check::compare(task.workspace, &before, &after);
    violations.extend(agent_check::escaping_links(&task.workspace.join("code")));
    // The agent ran in the sandbox like an experiment: what it left behind there counts.
    let left = job_outcome
        .violations
        .iter()
        .cloned()
        .map(Violation::Sandbox);
    violations.extend(left);
    let outcome = AgentOutcome {
        job: job_outcome,
        usage,
    };
    if violations.is_empty() {
        return Ok(outcome);
    }
    Err(AgentError::Escaped {
        code: task.workspace.join("code"),
        violations,
        outcome: Box::new(outcome),
    })
}

fn job(cfg: &AgentConfig, task: &AgentTask<'_>) -> Result<Job, AgentError> {
    if cfg.command.is_empty() {
        return Err(AgentError::Config(
            "[tools.coding_agent] command is empty; e.g. command = [\"codex\", \"exec\", \"{prompt}\"]".into(),
        ));
    }
    let code = task.workspace.join("code");
    std::fs::create_dir_all(&code).map_err(|source| AgentError::Check {
        path: code.clone(),
        source,
    })?;
    let fill = |arg: &str| {
        arg.replace("{prompt}", &prompt(task))
            .replace("{plan}", &task.plan.to_string_lossy())
            .replace("{tasks}", &task.tasks.to_string_lossy())
            .replace("{code}", &code.to_string_lossy())
    };
    let mut job = Job::new(
        task.workspace,
        cfg.command.iter().map(|a| fill(a)).collect(),
    );
    job.time_limit = Duration::try_from_secs_f64(cfg.time_limit_s).map_err(|_| {
        AgentError::Config(format!(
            "[tools.coding_agent] time_limit_s = {} is not a duration",
            cfg.time_limit_s
        ))
    })?;
    job.network = cfg.network;
    job.card = false;
    job.sandbox = cfg.sandbox;
    job.env = cfg
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    job.env
        .push(("YOURA_PLAN_FILE".into(), task.plan.display().to_string()));
    job.env
        .push(("YOURA_TASKS_FILE".into(), task.tasks.display().to_string()));
    // The run's data, read-only, as for experiments (it may lie under /tmp, which the
    // sandbox replaces with a private tmpfs).
    if let Some(data) = task
        .workspace
        .parent()
        .map(|run| run.join("data"))
        .filter(|d| d.is_dir())
    {
        job.read_only.push(data);
    }
    Ok(job)
}

fn model_name(cfg: &AgentConfig) -> String {
    cfg.model.clone().unwrap_or_else(|| {
        cfg.command
            .first()
            .and_then(|p| Path::new(p).file_name())
            .map_or("agent".into(), |n| n.to_string_lossy().into_owned())
    })
}

/// The agent's reported token use, summed over its log (see the module comment).
pub(crate) fn parse_usage(log: &str) -> Option<Usage> {
    let mut total: Option<Usage> = None;
    for line in log.lines() {
        let found = tokens_line(line).or_else(|| json_usage(line));
        if let Some((i, o)) = found {
            let t = total.get_or_insert_with(Usage::default);
            t.input_tokens += i;
            t.output_tokens += o;
        }
    }
    total
}

fn tokens_line(line: &str) -> Option<(u64, u64)> {
    let rest = &line[line.find("tokens: ")? + "tokens: ".len()..];
    let mut input = None;
    let mut output = None;
    for word in rest.split_whitespace() {
        if let Some(n) = word.strip_prefix("in=") {
            input = n.trim_end_matches(',').parse().ok();
        } else if let Some(n) = word.strip_prefix("out=") {
            output = n.trim_end_matches(',').parse().ok();
        }
    }
    Some((input?, output?))
}

fn json_usage(line: &str) -> Option<(u64, u64)> {
    let v: serde_json::Value = serde_json::from_str(line.trim()).ok()?;
    let usage = v
        .get("usage")
        .or_else(|| v.as_object()?.values().find_map(|inner| inner.get("usage")))?;
    let n = |a: &str, b: &str| {
        usage
            .get(a)
            .or_else(|| usage.get(b))
            .and_then(serde_json::Value::as_u64)
    };
    let (i, o) = (
        n("input_tokens", "prompt_tokens"),
        n("output_tokens", "completion_tokens"),
    );
    (i.is_some() || o.is_some()).then(|| (i.unwrap_or(0), o.unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_conventions_add_up() {
        let log = "starting\n\
            tokens: in=100 out=20\n\
            {\"type\":\"result\",\"usage\":{\"input_tokens\":5,\"output_tokens\":7}}\n\
            {\"type\":\"turn.completed\",\"msg\":{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}}\n\
            {\"note\":\"no usage here\"}\n\
            tokens: in=x out=3\n";
        let u = parse_usage(log).unwrap();
        assert_eq!((u.input_tokens, u.output_tokens), (106, 29));
        assert_eq!(parse_usage("nothing to see\n"), None);
    }

    #[test]
    fn model_defaults_to_the_program() {
        let cfg: AgentConfig = toml::from_str("command = [\"/usr/bin/codex\", \"exec\"]").unwrap();
        assert_eq!(model_name(&cfg), "codex");
        assert!(cfg.network);
        assert_eq!(cfg.sandbox, SandboxMode::Required);
        let e = toml::from_str::<AgentConfig>("command = [\"x\"]\nsandbox = \"auto\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("auto") && e.contains("`required`") && e.contains("`off`"),
            "{e}"
        );
    }
}
