//! The Independent Controller (YouRA §3.3): its own role, its own context. It sees the
//! compact VSA summary, a pointer to (and excerpt of) the latest artifact and the relevant
//! Reflective Memory records, never the execution transcript, and answers PHASE_COMPLETE (naming the step that follows, among
//! those the lifecycle allows: `next_choice`), RESUME with a prompt, or MUST_STOP.

use std::time::Duration;

use super::ctx::{StageCtx, Vars};
use super::error::StageError;
use super::next_choice::Named;
use super::reply::{json_object, str_field};
use crate::llm::ReplySchema;
use crate::llm::schema as js;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    PhaseComplete { reason: String, next: Named },
    Resume { prompt: String },
    MustStop { reason: String },
}

/// The controller's reply: a decision word, a reason, for RESUME the prompt, and with
/// PHASE_COMPLETE the step it chose to follow.
pub fn schema() -> ReplySchema {
    ReplySchema::new(
        "controller_decision",
        js::object_with(
            &[(
                "decision",
                js::one_of(&["PHASE_COMPLETE", "RESUME", "MUST_STOP"]),
            )],
            &[
                ("reason", js::string()),
                ("resume_prompt", js::string()),
                ("next_stage", js::string()),
                ("next_hypothesis", js::string()),
            ],
        ),
    )
}

/// Read the controller's reply. An unknown decision or a RESUME without a prompt is an
/// error: the engine must not guess what the controller meant.
pub fn parse_decision(text: &str) -> Result<Decision, String> {
    let v = json_object(text)?;
    let reason = str_field(&v, "reason").unwrap_or("").to_string();
    let raw = str_field(&v, "decision").ok_or("the reply has no \"decision\"")?;
    match raw.to_ascii_uppercase().replace([' ', '-'], "_").as_str() {
        "PHASE_COMPLETE" | "COMPLETE" => Ok(Decision::PhaseComplete {
            reason,
            next: Named {
                stage: str_field(&v, "next_stage").map(str::to_string),
                hypothesis: str_field(&v, "next_hypothesis").map(str::to_string),
            },
        }),
        "MUST_STOP" | "STOP" => Ok(Decision::MustStop {
            reason: if reason.is_empty() {
                "the controller gave no reason".into()
            } else {
                reason
            },
        }),
        "RESUME" => {
            let prompt = str_field(&v, "resume_prompt")
                .or(str_field(&v, "reason"))
                .ok_or("RESUME without a \"resume_prompt\"")?;
            Ok(Decision::Resume {
                prompt: prompt.to_string(),
            })
        }
        other => Err(format!(
            "unknown decision \"{other}\" (expected PHASE_COMPLETE, RESUME or MUST_STOP)"
        )),
    }
}

/// Ask the controller about the stage's latest artifact; `options` lists the steps that may
/// follow (`next_choice::options`). A call that fails (after the client's own retries) is
/// retried `controller_retries` times with a wait; then the run stops with the error. An
/// unreadable decision is asked once more, then stops.
pub fn judge(ctx: &StageCtx<'_>, artifact: &str, check: &str, options: &str) -> Decision {
    let summary = match ctx.vsa() {
        Ok(s) => super::summary::summary(&s.vsa),
        Err(e) => {
            return Decision::MustStop {
                reason: format!("the VSA cannot be read for the controller: {e}"),
            };
        }
    };
    let excerpt = ctx
        .read(artifact)
        .map(|t| t.chars().take(3000).collect::<String>())
        .unwrap_or_else(|| "(no file)".into());
    let vars: Vars = [
        ("stage", ctx.stage.name().to_string()),
        ("label", ctx.stage.label().to_string()),
        ("attempt", ctx.attempt.to_string()),
        (
            "max_attempts",
            ctx.settings.max_resumes.saturating_add(1).to_string(),
        ),
        ("summary", summary),
        ("artifact", artifact.to_string()),
        ("check", check.to_string()),
        ("excerpt", excerpt),
        ("next_options", options.to_string()),
        (
            "records",
            super::memory_block::records_block(&super::memory_block::relevant_records(
                ctx,
                ctx.hypothesis.as_deref(),
            )),
        ),
    ]
    .into_iter()
    .collect();
    let failures = match ask_retried(ctx, "controller", &vars, &schema(), |v| {
        parse_decision(&v.to_string())
    }) {
        Ok(d) => return d,
        Err(Asked::Final(StageError::Template(e))) => {
            return Decision::MustStop {
                reason: e.to_string(),
            };
        }
        Err(Asked::Final(e)) => vec![e.to_string()],
        Err(Asked::Failures(f)) => f,
    };
    Decision::MustStop {
        reason: format!(
            "the Independent Controller could not decide {} ({}): {}",
            ctx.stage.name(),
            ctx.stage.label(),
            failures.join("; ")
        ),
    }
}

/// Why [`ask_retried`] got no answer: an error no retry can mend (a template, a schema the
/// endpoint ignores, a missing recording, a configuration), or every try's failure.
pub(crate) enum Asked {
    Final(StageError),
    Failures(Vec<String>),
}

/// Ask the controller with `template`, retried `controller_retries` times with a wait, as
/// every controller question is; `read` turns the reply into the answer (an unreadable one
/// is a failure worth another try).
pub(crate) fn ask_retried<T>(
    ctx: &StageCtx<'_>,
    template: &str,
    vars: &Vars,
    schema: &ReplySchema,
    read: impl Fn(&serde_json::Value) -> Result<T, String>,
) -> Result<T, Asked> {
    use crate::llm::LlmError;
    let mut failures = Vec::new();
    for round in 0..=ctx.settings.controller_retries {
        if round > 0 {
            std::thread::sleep(Duration::from_secs_f64(
                ctx.settings.controller_retry_wait_s.max(0.0),
            ));
        }
        match ctx.ask_json("controller", "system/controller", template, vars, schema) {
            Ok(v) => match read(&v) {
                Ok(t) => return Ok(t),
                Err(e) => failures.push(format!("unreadable answer: {e}")),
            },
            Err(
                e @ (StageError::Template(_)
                | StageError::Schema { .. }
                | StageError::Llm {
                    source:
                        LlmError::MissingRecording { .. }
                        | LlmError::Config(_)
                        | LlmError::Outage { .. },
                    ..
                }),
            ) => return Err(Asked::Final(e)),
            Err(e) => failures.push(e.to_string()),
        }
    }
    Err(Asked::Failures(failures))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_parse_and_unknown_ones_refuse() {
        assert_eq!(
            parse_decision(r#"{"decision":"PHASE_COMPLETE","reason":"ok"}"#),
            Ok(Decision::PhaseComplete {
                reason: "ok".into(),
                next: Named::default(),
            })
        );
        assert_eq!(
            parse_decision(r#"{"decision":"resume","resume_prompt":"add gaps"}"#),
            Ok(Decision::Resume {
                prompt: "add gaps".into()
            })
        );
        assert_eq!(
            parse_decision(r#"{"decision":"MUST_STOP","reason":"no data"}"#),
            Ok(Decision::MustStop {
                reason: "no data".into()
            })
        );
        assert!(
            parse_decision(r#"{"decision":"MAYBE"}"#)
                .unwrap_err()
                .contains("unknown decision")
        );
        assert_eq!(
            parse_decision(
                r#"{"decision":"PHASE_COMPLETE","reason":"ok","next_stage":"Experiment Design","next_hypothesis":"h-c1"}"#
            ),
            Ok(Decision::PhaseComplete {
                reason: "ok".into(),
                next: Named {
                    stage: Some("Experiment Design".into()),
                    hypothesis: Some("h-c1".into()),
                },
            })
        );
        assert!(parse_decision(r#"{"decision":"RESUME"}"#).is_err());
        assert!(parse_decision(r#"{"reason":"x"}"#).is_err());
    }

    #[test]
    fn the_schema_takes_the_good_replies_and_refuses_the_bad() {
        let s = schema();
        assert!(crate::llm::schema::unsupported_keywords(&s.schema).is_empty());
        for good in [
            r#"{"decision":"PHASE_COMPLETE","reason":"ok"}"#,
            r#"{"decision":"resume","resume_prompt":"add gaps"}"#,
            r#"{"decision":"Must stop","reason":"no data"}"#,
        ] {
            let mut v: serde_json::Value = serde_json::from_str(good).unwrap();
            s.check(&mut v).unwrap_or_else(|e| panic!("{good}: {e}"));
            assert!(parse_decision(&v.to_string()).is_ok(), "{good}");
        }
        for bad in [
            r#"{"decision":"SHOCKED","reason":"x"}"#,
            r#"{"reason":"x"}"#,
            r#"{"decision":7,"reason":"x"}"#,
        ] {
            let mut v: serde_json::Value = serde_json::from_str(bad).unwrap();
            assert!(s.check(&mut v).is_err(), "{bad}");
        }
    }
}
