//! Writing the code of a Coding & Validation attempt, and judging it for fabrication: the
//! executor's reply written under `h-*/code/` (never through a link), or an external coding
//! agent run in the sandbox; the files read back for the judge; the two reply schemas.
//! Split from `coding.rs`, which drives the attempts and judges their outcome.

use crate::llm::ReplySchema;
use crate::llm::schema as js;

use serde_json::Value;

use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::engine::reply::str_field;
use crate::exec::JobOutcome;
use crate::rundir::events::Event;

/// Files the executor wrote: (path relative to the code folder, content).
pub(super) type Files = Vec<(String, String)>;

/// The external coding agent writes the code (in the sandbox, charged to the ledger, its
/// changes confined to `code/`); youra then runs `[tools.coding_agent] run` and judges.
pub(super) fn run_agent(
    ctx: &StageCtx<'_>,
    id: &str,
    agent: &crate::exec::agent::AgentConfig,
    failure: Option<&str>,
) -> Result<(Files, Vec<String>), String> {
    use crate::exec::agent::{AgentError, AgentTask};
    let ws = ctx.run.join(id);
    let code = ws.join("code");
    std::fs::create_dir_all(&code).map_err(|e| format!("cannot create {}: {e}", code.display()))?;
    let note = code.join("FAILURE.md");
    match failure {
        Some(f) => {
            std::fs::write(&note, f).map_err(|e| format!("cannot write {}: {e}", note.display()))?
        }
        None => {
            let _ = std::fs::remove_file(&note);
        }
    }
    let results = super::repeats::schema_text(&ctx.evidence.rule());
    let task = AgentTask {
        workspace: &ws,
        plan: &ws.join(super::artifacts::DESIGN_BRIEF),
        tasks: &ws.join(super::artifacts::TASKS),
        results: &results,
    };
    ctx.emit(
        Event::new("agent_start")
            .hypothesis(id)
            .message(agent.command.join(" ")),
    );
    match crate::exec::agent::run_agent(
        ctx.backend,
        agent,
        &task,
        ctx.roles.ledger(),
        &ctx.key("coder"),
    ) {
        Ok(out) => {
            ctx.emit(
                Event::new("agent_exit")
                    .hypothesis(id)
                    .result(&out.job.exit.log_label())
                    .message(out.usage.map_or("no token report".into(), |u| {
                        format!("{} in / {} out tokens", u.input_tokens, u.output_tokens)
                    })),
            );
            Ok((code_files(&code), agent.run.clone()))
        }
        Err(AgentError::Escaped { violations, .. }) => Err(format!(
            "the coding agent changed files outside code/ (undone or reported): {}",
            violations
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        )),
        Err(e) => Err(format!("the coding agent failed: {e}")),
    }
}

/// The text files under `code/` (for the fabrication checks).
pub(super) fn code_files(code: &std::path::Path) -> Files {
    let mut out = Vec::new();
    let mut stack = vec![code.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            // The experiment could leave links here (to /proc/self/environ, a key file):
            // what goes into the judge's prompt is read from plain files only.
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() => {
                    let text = crate::fsutil::open_nofollow(&p).and_then(|f| {
                        let mut text = String::new();
                        std::io::Read::read_to_string(
                            &mut std::io::Read::take(f, 1 << 20),
                            &mut text,
                        )
                        .map(|_| text)
                    });
                    if let (Ok(text), Ok(rel)) = (text, p.strip_prefix(code)) {
                        out.push((rel.to_string_lossy().into_owned(), text));
                    }
                }
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// Write the executor's files under `<h>/code/`; a path that escapes is refused and
/// becomes the repair instruction.
/// The executor's code: the files to write, the command that runs the experiment and,
/// optionally, the compliance tests' command.
pub fn code_schema() -> ReplySchema {
    let file = js::object(&[("path", js::text()), ("content", js::string())]);
    ReplySchema::new(
        "experiment_code",
        js::object_with(
            &[
                ("files", js::array(file, 1, None)),
                ("command", js::array(js::text(), 1, None)),
            ],
            &[("test_command", js::array(js::text(), 0, None))],
        ),
    )
}

/// The independent fabrication check's verdict, with file:line findings.
pub(crate) fn fabrication_schema() -> ReplySchema {
    let finding = js::object_with(
        &[("problem", js::text())],
        &[("file", js::string()), ("line", js::integer(0, 1_000_000))],
    );
    ReplySchema::new(
        "fabrication_check",
        js::object(&[
            ("consistent", js::boolean()),
            ("findings", js::array(finding, 0, None)),
        ]),
    )
}

pub(super) fn write_files(
    ctx: &StageCtx<'_>,
    id: &str,
    reply: &Value,
) -> Result<(Files, Vec<String>), String> {
    let root = ctx.run.join(id).join("code");
    // An earlier experiment may have left `code` as a link (to a host folder, to the run):
    // youra writes nothing through it. The link goes (never its target) and is reported.
    if std::fs::symlink_metadata(&root).is_ok_and(|m| m.file_type().is_symlink()) {
        let why = crate::fsutil::PlantedLink { link: root.clone() }.to_string();
        ctx.emit(Event::new("sandbox_violation").hypothesis(id).message(&why));
        std::fs::remove_file(&root).map_err(|e| format!("{why}; it cannot be removed: {e}"))?;
    }
    let files = reply
        .get("files")
        .and_then(Value::as_array)
        .filter(|f| !f.is_empty())
        .ok_or("the reply has no \"files\" list")?;
    let mut written = Vec::new();
    for f in files {
        let (Some(path), Some(content)) = (
            str_field(f, "path"),
            f.get("content").and_then(Value::as_str),
        ) else {
            return Err("every file needs \"path\" and \"content\"".into());
        };
        crate::exec::write_confined(&root, path, content.as_bytes()).map_err(|e| format!("refused to write {path:?}: {e}; write only inside the code folder, with relative paths"))?;
        written.push((path.to_string(), content.to_string()));
    }
    let argv: Vec<String> = reply
        .get("command")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if argv.is_empty() {
        return Err("the reply has no \"command\" (e.g. [\"python3\", \"train.py\"])".into());
    }
    Ok((written, argv))
}

/// The independent model check: the judge role compares brief, code and results.
pub(super) fn judge_fabrication(
    ctx: &StageCtx<'_>,
    id: &str,
    brief: &str,
    files: &[(String, String)],
    outcome: &JobOutcome,
) -> Result<Option<String>, StageError> {
    let code = files
        .iter()
        .map(|(p, c)| format!("--- {p}\n{}", numbered(c)))
        .collect::<Vec<_>>()
        .join("\n");
    let results = outcome
        .results
        .as_ref()
        .map_or("(no experiment_results.json)".to_string(), Value::to_string);
    let vars: Vars = [
        ("hypothesis", id.to_string()),
        ("brief", brief.to_string()),
        ("code", code),
        ("results", results),
    ]
    .into_iter()
    .collect();
    let v = ctx.ask_json(
        "judge",
        "system/executor",
        "fabrication_check",
        &vars,
        &fabrication_schema(),
    )?;
    // Fail closed: only an explicit `consistent: true` clears the attempt.
    if v.get("consistent").and_then(Value::as_bool) == Some(true) {
        return Ok(None);
    }
    let findings: Vec<String> = v
        .get("findings")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|f| {
                    format!(
                        "- {}:{}: {}",
                        str_field(f, "file").unwrap_or("?"),
                        f.get("line").and_then(Value::as_u64).unwrap_or(0),
                        str_field(f, "problem").unwrap_or("?")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Some(format!(
        "the independent fabrication check found the results inconsistent with the code:\n{}",
        findings.join("\n")
    )))
}

fn numbered(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:>4} {l}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}
