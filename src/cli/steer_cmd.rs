//! `youra steer <dir> <verb> [target] --reason <text>`: one steering verb, recorded in the
//! run's VSA for the engine to apply (see `crate::steer`).

use std::path::{Path, PathBuf};

use clap::Args;
use color_eyre::eyre::Result;

use super::fail;
use super::vsa_cmd::report;
use crate::rundir::discover;
use crate::stage::Stage;
use crate::steer::{Request, RoutingAction, SteerError, Verb, apply};
use crate::vsa::Store;

#[derive(Debug, Args)]
pub struct SteerArgs {
    /// Run folder (a youra run; YouRA's own research folders cannot be steered).
    pub dir: PathBuf,
    /// What to do: one of the verbs listed below.
    pub verb: Verb,
    /// What it acts on: a sub-hypothesis id (h-m1), a stage ("Phase 4" or "Coding &
    /// Validation"), a plan-tree node id, or a routing action. Several words are joined.
    pub target: Vec<String>,
    /// Why (recorded in the history with your name and the time). Required to answer an
    /// escalation (approve, reject, override); otherwise the history records the verb alone.
    #[arg(long)]
    pub reason: Option<String>,
    /// Who is steering, recorded in the history and on the card. Default: $YOURA_NAME, else
    /// `[steer] name` of your user config, else user@host of this login.
    #[arg(long = "as", visible_alias = "actor", value_name = "NAME")]
    pub actor: Option<String>,
    /// With `breakpoint`: remove the breakpoint instead of setting it.
    #[arg(long)]
    pub off: bool,
    /// With `edit`: a file holding the node's new plan (Markdown); youra saves a copy under
    /// plan/edits/ for the engine.
    #[arg(long, value_name = "PATH")]
    pub plan_file: Option<PathBuf>,
    /// With `review edit <path>`: your version of that file of the node's code; youra saves
    /// a copy under reviews/ for the engine, which runs it as the node's code.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Print what was written as one JSON object (see docs/ARCHITECTURE.md, "JSON output").
    #[arg(long)]
    pub json: bool,
}

/// `youra steer --json`: what the request wrote.
fn outcome_json(done: &crate::steer::Steered) -> serde_json::Value {
    use crate::steer::Outcome;
    use serde_json::json;
    let what = match &done.outcome {
        Outcome::Directive { id, verb, target } => json!({
            "kind": "directive", "id": id, "verb": verb.name(), "target": target,
            "state": "pending",
        }),
        Outcome::Decision {
            escalation,
            verdict,
            action,
        } => json!({
            "kind": "decision", "escalation": escalation, "verdict": verdict.as_str(),
            "action": action.map(|a| a.as_str()),
        }),
        Outcome::Review { review, answer } => json!({
            "kind": "review", "review": review, "answer": answer.as_str(),
        }),
        Outcome::Breakpoint { bp, on } => json!({
            "kind": "breakpoint", "breakpoint": bp.text(), "once": bp.once, "on": on,
            "stage": match bp.when {
                crate::steer::breakpoint::When::BeforeStage(s) => Some(s.label()),
                _ => None,
            },
        }),
    };
    let approval = match &done.approval {
        crate::steer::Approval::One => json!({"needed": 1, "given": 1}),
        crate::steer::Approval::FirstOfTwo { by } => {
            json!({"needed": 2, "given": 1, "by": [by], "waits": true})
        }
        crate::steer::Approval::SecondOfTwo { names } => {
            json!({"needed": 2, "given": 2, "by": names, "waits": false})
        }
    };
    json!({
        "revision": done.applied.revision,
        "outcome": what,
        "approval": approval,
        "editor_changes": done.applied.editor_changes,
        "summary": done.summary(),
    })
}

/// The verb list shown under `youra steer --help`.
pub fn verbs_help() -> String {
    format!(
        "Verbs:\n{}\n\nStages (by label or name; quote them):\n{}\n\n\
         Actions: {}.\n\nExamples:\n  youra steer runs/grok pause --reason \"check the loss curve\"\n  \
         youra steer runs/grok retry h-m1 --reason \"seed 3 crashed on OOM\"\n  \
         youra steer runs/grok override Design-Refine --reason \"the metric is right, the setup is not\"\n  \
         youra steer runs/grok breakpoint \"Phase 4\" --off --reason \"done debugging\"\n  \
         youra steer runs/grok edit n-3 --plan-file new-plan.md --reason \"use the held-out split\"\n  \
         youra steer runs/grok budget tokens=2M,time=7200 --reason \"more room for h-m1\"\n  \
         youra steer runs/grok alpha-max 3 --reason \"keep exploring\"\n  \
         youra steer runs/grok review edit train.py --file mine.py --reason \"use the held-out split\"\n\n\
         Each verb is one history entry (event `steer`). Directives wait in \
         workflow.steering with state `pending` until the engine applies them.",
        crate::steer::verbs_help(),
        Stage::ALL
            .map(|s| format!("  {:<9}  {}", s.label(), s.name()))
            .join("\n"),
        RoutingAction::ALL.map(RoutingAction::as_str).join(", "),
    )
}

pub fn run(args: SteerArgs) -> Result<i32> {
    let run = match discover(&args.dir) {
        Ok(r) => r,
        Err(e) => return Ok(super::no_run(e)),
    };
    let target = args.target.join(" ");
    let answers = args.verb.is_decision() || args.verb == Verb::Review;
    let reason = match (&args.reason, answers) {
        (Some(r), _) => r.clone(),
        (None, false) => format!("{} (command line; no reason given)", args.verb),
        (None, true) => {
            fail(
                format!(
                    "`{}` answers {}: a reason is required",
                    args.verb,
                    if args.verb == Verb::Review {
                        "a review"
                    } else {
                        "an escalation"
                    }
                ),
                &format!(
                    "youra steer {} {} --reason \"what you decided and why\"",
                    crate::notice::message::shell_word(&args.dir.display().to_string()),
                    args.verb.usage()
                ),
            );
            return Ok(2);
        }
    };
    // The run's `[steer]` rule (two names for some verbs) and the user's name; a config that
    // cannot be read is refused rather than read as "no rule".
    let settings = match crate::config::load(&run.root) {
        Ok(c) => c.steer,
        Err(e) => {
            fail(
                &e,
                "fix the file named above (`youra config show` lists every setting)",
            );
            return Ok(2);
        }
    };
    let req = Request::new(
        args.verb,
        Some(target.as_str()).filter(|t| !t.is_empty()),
        &reason,
    )
    .with_settings(&settings, args.actor.as_deref());
    let mut req = match req {
        Ok(r) => r,
        Err(e) => {
            fail(&e, "give a plain one-line name: --as \"Ana Souza\"");
            return Ok(2);
        }
    };
    req.off = args.off;
    if let Some(path) = &args.plan_file {
        match crate::steer::read_plan_file(path) {
            Ok(text) => req.plan = Some(text),
            Err(e) => {
                fail(
                    &e,
                    "give --plan-file a readable Markdown file with the new plan",
                );
                return Ok(2);
            }
        }
    }
    if let Some(path) = &args.file {
        match crate::steer::review::read_edit_file(path) {
            Ok(text) => req.plan = Some(text),
            Err(e) => {
                fail(
                    &e,
                    "give --file a readable UTF-8 file: your version of the node's file",
                );
                return Ok(2);
            }
        }
    }
    let store = Store::new(&run.vsa);
    match apply(&store, &req, run.layout) {
        Ok(done) if args.json => {
            println!("{}", outcome_json(&done));
            Ok(0)
        }
        Ok(done) => {
            println!("{}", done.summary());
            if done.applied.editor_changes > 0 {
                println!(
                    "recorded a hand edit of {} field(s) made outside youra",
                    done.applied.editor_changes
                );
            }
            Ok(0)
        }
        Err(SteerError::Store(e)) => Ok(report(&e)),
        Err(e) if e.is_usage() => {
            fail(
                &e,
                "`youra steer --help` lists the verbs and what each takes",
            );
            Ok(2)
        }
        Err(e) => Ok(fail(&e, &hint(&e, &args.dir))),
    }
}

/// What to do next, for the refusals that depend on the run.
fn hint(e: &SteerError, dir: &Path) -> String {
    let d = dir.display();
    match e {
        SteerError::Unavailable { .. } => {
            format!("to change a field: youra vsa set {d} <path> <value> --reason <text>")
        }
        SteerError::UnknownHypothesis { .. } | SteerError::UnknownSkipTarget { .. } => {
            format!("`youra status {d}` lists the sub-hypotheses")
        }
        SteerError::NoEscalation => format!(
            "an escalation waits when the engine proposes discarding a hypothesis in \
             INTERACTIVE mode; `youra status {d}` shows what waits for you"
        ),
        SteerError::AlreadyDecided { .. } => format!(
            "the engine applies the decision and clears the escalation; to change it before \
             then: youra vsa set {d} workflow.pending_escalation.decision.verdict <verdict> --reason <text>"
        ),
        SteerError::OverrideSame { .. } => format!("youra steer {d} approve --reason <text>"),
        SteerError::UnknownPlanNode { .. } | SteerError::NoPlanTree { .. } => {
            format!("the plan-tree pane of `youra tui {d}` lists the nodes (plan/tree.json)")
        }
        SteerError::BreakpointExists { .. } => "pass --off to remove it".into(),
        SteerError::EditFile(_) => format!("check that {d}/plan/edits/ is writable"),
        SteerError::BreakpointNotSet { .. } => {
            format!("`youra vsa get {d} workflow.breakpoints` lists them")
        }
        SteerError::SameApprover { .. } => format!(
            "a second researcher answers from their own login, or with --as \"their name\"; \
             `youra status {d}` shows what waits"
        ),
        _ => String::new(),
    }
}

/// `youra run --step`: one stage, asked for through the `step` verb exactly as
/// `youra steer <dir> step` asks (a directive the engine takes at its first safe point,
/// which also releases a breakpoint the run waits at). `Some(exit code)` when refused.
pub fn request_step(dir: &Path) -> Result<Option<i32>> {
    let run = match discover(dir) {
        Ok(r) => r,
        Err(e) => return Ok(Some(super::no_run(e))),
    };
    let req = Request::new(Verb::Step, None, "youra run --step");
    // Named as `youra steer` names the researcher (a config that does not load is said by
    // the run itself, next).
    let req = match crate::config::load(&run.root) {
        Ok(c) => req.clone().with_settings(&c.steer, None).unwrap_or(req),
        Err(_) => req,
    };
    match apply(&Store::new(&run.vsa), &req, run.layout) {
        Ok(done) => {
            // On stderr: with --json, stdout carries only the events.
            eprintln!("{}", done.summary());
            Ok(None)
        }
        Err(SteerError::Store(e)) => Ok(Some(report(&e))),
        Err(e) => Ok(Some(fail(&e, &hint(&e, dir)))),
    }
}
