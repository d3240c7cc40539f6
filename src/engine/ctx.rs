//! What a stage runs with: the run folder, the store, the roles, the templates, the event
//! log, the bounds, and which attempt this is. Stages read and write only through it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::StageError;
use super::prompts::Prompts;
use crate::config::EngineSettings;
use crate::llm::{CallKey, ChatRequest, ChatResponse, Message, Roles};
use crate::rundir::events::{Event, EventLog};
use crate::stage::Stage;
use crate::vsa::store::{Snapshot, Store};

pub struct StageCtx<'a> {
    pub run: &'a Path,
    pub store: &'a Store,
    pub roles: &'a Roles,
    pub prompts: &'a Prompts,
    pub events: &'a EventLog,
    pub settings: &'a EngineSettings,
    pub stage: Stage,
    /// Re-entries of this step by recovery (part of every call key).
    pub round: u32,
    pub attempt: u32,
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
}

pub type Vars = BTreeMap<&'static str, String>;

impl StageCtx<'_> {
    pub fn vsa(&self) -> Result<Arc<Snapshot>, StageError> {
        self.store.load().map_err(StageError::from)
    }

    /// The resume instruction as a prompt paragraph (empty on a first attempt).
    pub fn resume_text(&self) -> String {
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

    pub fn ask_messages(
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
        let provider = self.roles.get(role)?;
        let key = self.key(role);
        let mut req = ChatRequest::new(messages);
        req.json = json;
        let reply = provider
            .complete(&key, &req)
            .map_err(|source| StageError::Llm {
                key: key.to_string(),
                source,
            })?;
        let _ = self.events.emit(
            Event::new("llm_call")
                .stage(self.stage.name())
                .message(format!(
                    "{role}: {} in / {} out tokens",
                    reply.usage.input_tokens, reply.usage.output_tokens
                )),
        );
        if reply.finish_reason.as_deref() == Some("length") {
            return Err(StageError::Truncated {
                key: key.to_string(),
            });
        }
        Ok(reply)
    }

    /// One exchange with tools offered (`tools`: usually
    /// `ToolRegistry::for_stage(role, stage.key())`): the bounded tool-call loop, recorded
    /// and charged like any call; each executed tool call becomes a `tool_call` event.
    pub fn ask_with_tools(
        &self,
        role: &str,
        messages: Vec<Message>,
        tools: &dyn crate::llm::ToolBox,
        max_rounds: u32,
    ) -> Result<(ChatResponse, Vec<crate::llm::ToolTrace>), StageError> {
        let provider = self.roles.get(role)?;
        let key = self.key(role);
        let request = ChatRequest::new(messages);
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
            });
        }
        Ok((reply, traces))
    }

    /// Ask for a JSON object and parse it; a reply that is not one is a stage error that
    /// says where it broke (the engine turns it into a resume prompt).
    pub fn ask_json(
        &self,
        role: &str,
        system: &str,
        template: &str,
        vars: &Vars,
    ) -> Result<serde_json::Value, StageError> {
        let system = self.prompts.render(system, vars)?;
        let user = self.prompts.render(template, vars)?;
        let reply = self.ask_messages(
            role,
            vec![Message::system(system), Message::user(user)],
            true,
        )?;
        super::reply::json_object(&reply.content)
            .map_err(|detail| StageError::Output(format!("{template}: {detail}")))
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
        crate::fsutil::write_atomic(&path, text.as_bytes())
            .map_err(|e| StageError::io("write", &path, e))?;
        Ok(path)
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.run.join(rel)).ok()
    }

    pub fn emit(&self, event: Event) {
        let _ = self.events.emit(event.stage(self.stage.name()));
    }
}
