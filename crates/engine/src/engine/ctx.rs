//! What a stage runs with: the run folder, the store, the roles, the templates, the event
//! log, the bounds, and which attempt this is. Stages read and write only through it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::StageError;
use super::prompts::Prompts;
use crate::config::EngineSettings;
use crate::llm::ledger::PlanTag;
use crate::llm::{CallKey, ChatRequest, ChatResponse, Message, ReplySchema, Roles};
use crate::rundir::events::{Event, EventLog};
use crate::stage::Stage;
use crate::vsa::store::{Snapshot, Store};

pub struct StageCtx<'a> {
    pub run: &'a Path,
    pub store: &'a Store,
    pub roles: &'a Roles,
    pub prompts: &'a Prompts,
    pub events: &'a std::sync::Arc<EventLog>,
    pub settings: &'a EngineSettings,
    /// Hypothesis Debate's bounds (`[debate]`).
    pub debate: &'a crate::config::DebateSettings,
    pub stage: Stage,
    /// Re-entries of this step by recovery (part of every call key).
    pub round: u32,
    pub attempt: u32,
    /// The escalation decisions applied so far (`vsa::escalation::decisions`; part of every
    /// call key).
    pub decisions: String,
    /// The controller's (or the output check's) instruction for this attempt.
    pub resume: Option<String>,
    pub topic: String,
    /// The sub-hypothesis a loop stage works on; part of every call key.
    pub hypothesis: Option<String>,
    /// Where experiments run (this machine, or a cluster back end).
    pub backend: &'a dyn crate::exec::Backend,
    /// π's thresholds, κ_min, MaxPivots.
    pub recovery: &'a crate::reflect::routing::Thresholds,
    /// The run's MCP servers; a role gets the tools its stage allows (YouRA Table 7).
    pub tools: Option<&'a crate::tools::ToolRegistry>,
    /// An external coding agent for Coding & Validation (`[tools.coding_agent]`).
    pub coding_agent: Option<&'a crate::exec::agent::AgentConfig>,
    /// The plan tree's settings (`[plan]`; off when `budget_tokens` is 0).
    pub plan: &'a crate::config::PlanSettings,
    /// `[exec] sandbox`: required unless the researcher turned it off.
    pub sandbox: crate::exec::SandboxMode,
    /// `[paper]`: the PDF compile's deadline and memory bound.
    pub paper: &'a crate::paper::PaperSettings,
    /// `[evidence]`: repeats, confidence and interval of the gates (issue 40).
    pub evidence: &'a crate::config_evidence::EvidenceSettings,
    /// `[review]`: when an experiment waits for the researcher before it runs.
    pub review: &'a crate::config_review::ReviewSettings,
    /// Set when the engine is asked to stop (the TUI quit): a review's wait ends on it.
    pub cancel: &'a std::sync::atomic::AtomicBool,
}

pub(crate) type Vars = BTreeMap<&'static str, String>;

/// Restores the ledger's tag when a call is done (see `StageCtx::search_tag`).
struct TagGuard<'a> {
    ledger: &'a crate::llm::ledger::Ledger,
    before: Option<PlanTag>,
}

impl Drop for TagGuard<'_> {
    fn drop(&mut self) {
        self.ledger.set_plan_tag(self.before.take());
    }
}

impl StageCtx<'_> {
    pub fn vsa(&self) -> Result<Arc<Snapshot>, StageError> {
        self.store.load().map_err(StageError::from)
    }

    /// The resume instruction as a prompt paragraph (empty on a first attempt).
    pub(crate) fn resume_text(&self) -> String {
        self.resume
            .as_deref()
            .map(|r| {
                format!(
                    "This is attempt {}. Fix this in your new output:\n{r}",
                    self.attempt
                )
            })
            .unwrap_or_default()
    }

    pub fn key(&self, role: &str) -> CallKey {
        let mut key = CallKey::new(
            role,
            self.stage.key(),
            self.hypothesis.as_deref(),
            self.attempt,
        );
        key.round = self.round;
        key.decisions = self.decisions.clone();
        key
    }

    /// One exchange: the role's system template plus the rendered stage template.
    pub fn ask(
        &self,
        role: &str,
        system: &str,
        template: &str,
        vars: &Vars,
    ) -> Result<ChatResponse, StageError> {
        let system = self.prompts.render(system, vars)?;
        let user = self.prompts.render(template, vars)?;
        self.ask_messages(
            role,
            vec![Message::system(system), Message::user(user)],
            false,
        )
    }

    pub(crate) fn ask_messages(
        &self,
        role: &str,
        messages: Vec<Message>,
        json: bool,
    ) -> Result<ChatResponse, StageError> {
        // A role whose stage has tools (YouRA Table 7) goes through the bounded tool loop.
        if let Some(registry) = self.tools {
            let offered = registry.for_stage(role, self.stage.key());
            if !offered.is_empty() {
                return self
                    .ask_with_tools(role, messages, &offered, registry.max_rounds())
                    .map(|(reply, _)| reply);
            }
        }
        let mut req = ChatRequest::new(messages);
        req.json = json;
        self.exchange(role, req, false)
    }

    /// A turn of conversation (a debate persona's): as [`StageCtx::ask_messages`], but a
    /// reply still cut at the cap after its continuation is kept, marked as cut, with a
    /// warning; a turn is prose that the next speaker reads, not an artifact with parts.
    pub(crate) fn ask_turn(
        &self,
        role: &str,
        messages: Vec<Message>,
    ) -> Result<String, StageError> {
        if self
            .tools
            .is_some_and(|r| !r.for_stage(role, self.stage.key()).is_empty())
        {
            return Ok(self.ask_messages(role, messages, false)?.content);
        }
        let reply = self.exchange(role, ChatRequest::new(messages), true)?;
        if reply.finish_reason.as_deref() == Some("length") {
            let cap = self.roles.cap(role, self.stage.key());
            self.emit(Event::new("warning").message(format!(
                "{role}'s turn was cut at its cap of {cap} tokens (continued once); kept as cut"
            )));
            return Ok(format!(
                "{}\n\n[cut at the cap of {cap} tokens]",
                reply.content.trim()
            ));
        }
        Ok(reply.content)
    }

    /// Tag the ledger rows of the call about to be made (`llm::ledger`, charged by
    /// `plan::charge`): while a sub-hypothesis is searched (Coding & Validation with the plan
    /// tree on) every call is the plan's. The search tags its own planning and execution;
    /// a call it has not tagged (the attribution, its critic, the clamp judge, the
    /// controller's review) is the diagnosis of the attempt recorded last. Outside a search no
    /// row is tagged, whatever a stage left behind. The guard puts the previous tag back.
    fn search_tag(&self) -> TagGuard<'_> {
        let ledger = self.roles.ledger();
        let tag = self.call_tag(ledger.plan_tag());
        TagGuard {
            before: ledger.set_plan_tag(tag),
            ledger,
        }
    }

    fn call_tag(&self, set: Option<PlanTag>) -> Option<PlanTag> {
        let searched = self.plan.budget_tokens > 0 && self.stage == Stage::CodingValidation;
        let h = self.hypothesis.as_deref().filter(|_| searched)?;
        let tree = crate::plan::load(self.run, crate::plan::Plans::Skip)
            .ok()?
            .tree;
        let mine = crate::plan::subtree(&tree, h);
        if let Some(t) = set.filter(|t| mine.iter().any(|n| n.as_str() == t.node)) {
            return Some(t);
        }
        let node = crate::plan::latest_recorded(&tree, h).or_else(|| mine.first().cloned())?;
        Some(PlanTag::new(node.as_str(), crate::llm::ledger::DIAGNOSIS))
    }

    /// One capped exchange. The request carries the role's output cap for this stage; a
    /// reply cut at the cap is continued once ("continue where you stopped", the two parts
    /// joined), and a second cut is a `Truncated` error naming the cap.
    fn exchange(
        &self,
        role: &str,
        mut req: ChatRequest,
        keep_cut: bool,
    ) -> Result<ChatResponse, StageError> {
        let provider = self.roles.get(role)?;
        let key = self.key(role);
        let cap = self.roles.cap(role, self.stage.key());
        req.max_tokens = Some(req.max_tokens.map_or(cap, |n| n.min(cap)));
        let _tag = self.search_tag();
        let call = |req: &ChatRequest| -> Result<ChatResponse, StageError> {
            let reply = provider
                .complete(&key, req)
                .map_err(|source| StageError::Llm {
                    key: key.to_string(),
                    source,
                })?;
            let thought = if reply.usage.reasoning_tokens > 0 {
                format!(" ({} thinking)", reply.usage.reasoning_tokens)
            } else {
                String::new()
            };
            self.emit(Event::new("llm_call").message(format!(
                "{role}: {} in / {} out tokens{thought}",
                reply.usage.input_tokens, reply.usage.output_tokens
            )));
            for warning in self.roles.ledger().take_warnings() {
                self.emit(Event::new("warning").message(warning));
            }
            Ok(reply)
        };
        let mut reply = call(&req)?;
        if reply.finish_reason.as_deref() == Some("length") {
            let mut more = req.clone();
            more.messages
                .push(Message::assistant(reply.content.clone()));
            more.messages.push(Message::user(
                "You were cut off. Continue exactly where you stopped: no repetition, no preamble.",
            ));
            let rest = call(&more)?;
            reply.content.push_str(&rest.content);
            reply.usage.input_tokens += rest.usage.input_tokens;
            reply.usage.output_tokens += rest.usage.output_tokens;
            reply.finish_reason = rest.finish_reason;
            if reply.finish_reason.as_deref() == Some("length") && !keep_cut {
                return Err(StageError::Truncated {
                    key: key.to_string(),
                    cap,
                });
            }
        }
        Ok(reply)
    }

    /// One exchange with tools offered (`tools`: usually
    /// `ToolRegistry::for_stage(role, stage.key())`): the bounded tool-call loop, recorded
    /// and charged like any call; each executed tool call becomes a `tool_call` event.
    pub(crate) fn ask_with_tools(
        &self,
        role: &str,
        messages: Vec<Message>,
        tools: &dyn crate::llm::ToolBox,
        max_rounds: u32,
    ) -> Result<(ChatResponse, Vec<crate::llm::ToolTrace>), StageError> {
        let provider = self.roles.get(role)?;
        let key = self.key(role);
        let cap = self.roles.cap(role, self.stage.key());
        let _tag = self.search_tag();
        let mut request = ChatRequest::new(messages);
        request.max_tokens = Some(cap);
        let (reply, traces) = crate::llm::run_tools(&*provider, &key, request, tools, max_rounds)
            .map_err(|source| StageError::Llm {
            key: key.to_string(),
            source,
        })?;
        for t in &traces {
            let failed = if t.failed { ", failed" } else { "" };
            self.emit(Event::new("tool_call").message(format!(
                "{role}: {} ({} result tokens{failed})",
                t.call.name, t.tokens
            )));
        }
        if reply.finish_reason.as_deref() == Some("length") {
            return Err(StageError::Truncated {
                key: key.to_string(),
                cap,
            });
        }
        Ok((reply, traces))
    }

    /// A Markdown artifact with required sections. Where the role's endpoint constrains
    /// decoding, the model fills a JSON object with one field per section and the Markdown
    /// is rendered from it (`## Section`, then the body), so no section can be left out;
    /// elsewhere it writes Markdown and the stage's section check catches an omission.
    pub(crate) fn ask_sections(
        &self,
        role: &str,
        system: &str,
        template: &str,
        vars: &Vars,
        required: &[&str],
    ) -> Result<String, StageError> {
        if !self.roles.dialect(role).constrains() {
            return Ok(self.ask(role, system, template, vars)?.content);
        }
        let system = self.prompts.render(system, vars)?;
        let user = self.prompts.render(template, vars)?;
        let fields: Vec<(String, &str)> = required.iter().map(|s| (section_key(s), *s)).collect();
        let props: Vec<(&str, serde_json::Value)> = fields
            .iter()
            .map(|(k, _)| (k.as_str(), crate::llm::schema::text()))
            .collect();
        let schema = ReplySchema::new(
            &format!("{}_sections", self.stage.key()),
            crate::llm::schema::object(&props),
        );
        let listed: Vec<String> = fields
            .iter()
            .map(|(k, s)| format!("\"{k}\" (the section \"{s}\")"))
            .collect();
        let ask = format!(
            "{user}\n\nAnswer as one JSON object with these fields, each holding that section's Markdown body without its heading: {}.",
            listed.join(", ")
        );
        let v = self.ask_structured(
            role,
            vec![Message::system(system), Message::user(ask)],
            &schema,
        )?;
        Ok(fields
            .iter()
            .map(|(k, s)| {
                let body = v.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
                format!("## {s}\n\n{}\n", body.trim())
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }

    /// Ask for a JSON object of `schema`'s shape and parse it (see [`StageCtx::ask_structured`]).
    pub(crate) fn ask_json(
        &self,
        role: &str,
        system: &str,
        template: &str,
        vars: &Vars,
        schema: &ReplySchema,
    ) -> Result<serde_json::Value, StageError> {
        let system = self.prompts.render(system, vars)?;
        let user = self.prompts.render(template, vars)?;
        self.ask_structured(
            role,
            vec![Message::system(system), Message::user(user)],
            schema,
        )
        .map_err(|e| match e {
            StageError::Output(detail) => StageError::Output(format!("{template}: {detail}")),
            other => other,
        })
    }

    /// Ask for a JSON object of `schema`'s shape. The schema travels in the endpoint's
    /// dialect (so a constraining server cannot answer outside it) and is checked again on
    /// arrival: a reply that is no JSON object is an `Output` error (worth a resume); one
    /// that breaks the schema is asked again once, naming the violation, then a `Schema`
    /// error, which stops the run: the endpoint ignores the schema, and `youra doctor`
    /// says which dialect it takes.
    pub(crate) fn ask_structured(
        &self,
        role: &str,
        mut messages: Vec<Message>,
        schema: &ReplySchema,
    ) -> Result<serde_json::Value, StageError> {
        let mut req = ChatRequest::new(messages.clone());
        req.json = true;
        req.schema = Some(schema.clone());
        // A stage with tools for this role keeps its tool loop (no constrained decoding
        // there: the model must be free to call a tool); the reply is still checked.
        let offered = self
            .tools
            .map(|r| (r.for_stage(role, self.stage.key()), r.max_rounds()))
            .filter(|(o, _)| !o.is_empty());
        let reply = match &offered {
            Some((tools, rounds)) => {
                self.ask_with_tools(role, messages.clone(), tools, *rounds)?
                    .0
            }
            None => self.exchange(role, req.clone(), false)?,
        };
        let violation = match checked(&reply.content, schema)? {
            Ok(v) => return Ok(v),
            Err(violation) => violation,
        };
        self.emit(Event::new("warning").message(format!(
            "{role}'s reply breaks the `{}` schema ({violation}); asking once more",
            schema.name
        )));
        messages.push(Message::assistant(reply.content));
        messages.push(Message::user(format!(
            "Your reply does not have the required JSON shape: {violation}. Answer again with only the corrected JSON object."
        )));
        req.messages = messages;
        let again = self.exchange(role, req, false)?;
        match checked(&again.content, schema)? {
            Ok(v) => Ok(v),
            Err(violation) => Err(StageError::Schema {
                key: self.key(role).to_string(),
                schema: schema.name.clone(),
                dialect: self.roles.dialect(role).as_str(),
                violation,
            }),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.run.join(rel)
    }

    /// Write an artifact atomically under the run (folders created).
    pub fn write(&self, rel: &str, text: &str) -> Result<PathBuf, StageError> {
        let path = self.run.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StageError::io("create", dir, e))?;
        }
        // youra's own copy first (`rundir::own`): the workspace one the experiment can touch.
        crate::rundir::own::keep(self.run, Path::new(rel), text.as_bytes())
            .map_err(|e| StageError::io("write", &path, e))?;
        crate::fsutil::write_atomic(&path, text.as_bytes())
            .map_err(|e| StageError::io("write", &path, e))?;
        Ok(path)
    }

    /// An artifact's text: for a workspace file youra wrote (brief, tasks) its own copy,
    /// never the workspace file the experiment could have replaced; no link is followed.
    /// A planted link is reported as a `sandbox_violation` event.
    pub fn read(&self, rel: &str) -> Option<String> {
        match crate::rundir::own::read(self.run, Path::new(rel)) {
            Ok(text) => Some(text),
            Err(e) => {
                if let Some(link) = crate::fsutil::planted_link(&e) {
                    self.emit(Event::new("sandbox_violation").message(link.to_string()));
                }
                None
            }
        }
    }

    pub fn emit(&self, event: Event) {
        let _ = self.events.emit(event.stage(self.stage.name()));
    }
}

/// The reply's JSON object checked against its schema: `Err` when there is no JSON object
/// at all (a resumable `Output` error), `Ok(Err(violation))` when it breaks the schema.
fn checked(
    text: &str,
    schema: &ReplySchema,
) -> Result<Result<serde_json::Value, String>, StageError> {
    let mut v = super::reply::json_object(text).map_err(StageError::Output)?;
    Ok(schema.check(&mut v).map(|()| v).map_err(|e| e.to_string()))
}

/// A section name as a JSON key: `Success Criteria` → `success_criteria`.
fn section_key(section: &str) -> String {
    let mut key = String::new();
    for c in section.chars() {
        if c.is_alphanumeric() {
            key.extend(c.to_lowercase());
        } else if !key.ends_with('_') && !key.is_empty() {
            key.push('_');
        }
    }
    key.trim_end_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn section_names_become_keys() {
        assert_eq!(super::section_key("Success Criteria"), "success_criteria");
        assert_eq!(
            super::section_key("Prediction–Result Matrix"),
            "prediction_result_matrix"
        );
        assert_eq!(super::section_key("Gaps"), "gaps");
    }
}
