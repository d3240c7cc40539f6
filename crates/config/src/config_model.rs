//! The run's configuration as typed settings: what `youra.toml` may say and the compiled
//! defaults. Below both the loader (`config`) and the range checks (`config_check`), so
//! neither imports the other.

use serde::{Deserialize, Serialize};

pub use crate::config_plan::PlanSettings;
use crate::llm::{LlmSettings, RoleConfig};

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct RunConfig {
    pub run: RunSection,
    pub llm: LlmSection,
    pub engine: EngineSettings,
    /// Hypothesis Debate's bounds (`[debate]`).
    pub debate: DebateSettings,
    /// π's thresholds, κ_min and MaxPivots (see "Recovery" in docs/ARCHITECTURE.md).
    pub recovery: crate::reflect::routing::Thresholds,
    /// The plan tree's budget and policy (PrimeScientist); off unless `budget_tokens` > 0.
    pub plan: PlanSettings,
    /// Repeats, confidence and interval of the gates' measurements (`src/config_evidence.rs`).
    pub evidence: crate::config_evidence::EvidenceSettings,
    /// When an experiment waits for the researcher's review (`src/config_review.rs`).
    pub review: crate::config_review::ReviewSettings,
    /// MCP servers, tool-loop bounds and the coding agent (`src/tools/config.rs`).
    #[serde(default)]
    pub tools: crate::tools::ToolsSection,
    /// Where experiments run: `[exec] backend`, `sandbox`, `[exec.slurm]` (`src/exec/config.rs`).
    pub exec: crate::exec::ExecSection,
    /// Where notices go when the run waits or ends (`src/notice/`).
    pub notify: crate::notice::NotifySection,
    /// Compiling the paper's PDF: deadline and memory bound (`src/paper/settings.rs`).
    pub paper: crate::paper::PaperSettings,
    /// Breakpoints the engine sets when it first starts on the run (`[breakpoints] set`).
    pub breakpoints: crate::vsa::breakpoint::BreakpointsSection,
    /// Who is steering and which decisions need two names (`src/vsa/actor.rs`); `name` is
    /// read from the user's config only, never from a run's own file.
    pub steer: crate::vsa::actor::SteerSection,
    /// Keys no setting reads, each with where it was written and the nearest valid key:
    /// printed by `youra run`, `youra doctor` and `youra config show`.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct RunSection {
    pub name: Option<String>,
    pub topic: Option<String>,
    pub execution_mode: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default)]
pub struct LlmSection {
    pub default: RoleConfig,
    pub roles: std::collections::BTreeMap<String, RoleConfig>,
    pub prices: crate::llm::ledger::PriceTable,
    /// Output caps by `role` or `role.stage` (`llm::caps`).
    pub caps: std::collections::BTreeMap<String, u32>,
    /// Seconds a model endpoint that does not answer (refused, timeouts, 429, 5xx) is
    /// waited for, retrying with backoff, before the run stops as an infrastructure stop
    /// (`llm::retry`); `youra run` resumes it. 0: stop once the client's retries are spent.
    pub outage_wait_s: f64,
}

/// A restart of a local model server overnight is waited out, not a week's study lost.
pub const OUTAGE_WAIT_S: f64 = 1800.0;

impl Default for LlmSection {
    fn default() -> Self {
        LlmSection {
            default: RoleConfig::default(),
            roles: std::collections::BTreeMap::new(),
            prices: crate::llm::ledger::PriceTable::default(),
            caps: std::collections::BTreeMap::new(),
            outage_wait_s: OUTAGE_WAIT_S,
        }
    }
}

impl LlmSection {
    pub fn settings(&self) -> LlmSettings {
        LlmSettings {
            default: self.default.clone(),
            roles: self.roles.clone(),
            prices: crate::llm::ledger::PriceTable::with_list_prices(&self.prices),
            caps: self.caps.clone(),
            outage_wait_s: self.outage_wait_s,
        }
    }
}

/// The engine's bounds. Every loop the engine runs has one of these as its limit.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineSettings {
    /// Resume prompts the controller may issue for one stage before MUST_STOP.
    pub max_resumes: u32,
    pub review_max_rounds: u32,
    /// Repair attempts for one experiment before it counts as failed.
    pub repair_attempts: u32,
    /// How often a failing controller call is retried (after the client's own retries).
    pub controller_retries: u32,
    pub controller_retry_wait_s: f64,
    /// Query Semantic Scholar / arXiv in Literature Grounding when the network allows.
    pub literature_search: bool,
    pub semantic_scholar_url: String,
    pub arxiv_url: String,
    pub literature_timeout_s: f64,
    /// Seconds between looks at the VSA while paused or awaiting approval.
    pub wait_poll_s: f64,
    /// Wall-clock limit of one experiment run (the whole process group is killed).
    pub experiment_time_limit_s: f64,
    /// Address-space limit per experiment process, in MiB (0: none). Default: half of this
    /// machine's memory; not applied to GPU jobs, whose CUDA runtime reserves far more
    /// address space than it uses.
    pub experiment_memory_mb: u64,
    /// The most processes an experiment may have at once (0: no limit).
    pub experiment_max_processes: u32,
    /// Let experiments reach the network (off by default; a warning in every outcome).
    pub allow_network: bool,
    /// GPUs per experiment (0: CPU only).
    pub gpus: usize,
    /// How long an escalation waits for the researcher in INTERACTIVE mode (0: forever).
    pub approval_timeout_s: f64,
    /// What happens when it times out: `reject` (refine instead of discarding), `approve`,
    /// or `stop` (MUST_STOP).
    pub approval_default: ApprovalDefault,
}

/// What an escalation nobody answered within `approval_timeout_s` becomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalDefault {
    /// Refine instead of discarding (the safe reading of silence).
    #[default]
    #[serde(alias = "rejected")]
    Reject,
    #[serde(alias = "approved")]
    Approve,
    /// MUST_STOP.
    Stop,
}

impl ApprovalDefault {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalDefault::Reject => "reject",
            ApprovalDefault::Approve => "approve",
            ApprovalDefault::Stop => "stop",
        }
    }
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            max_resumes: 2,
            review_max_rounds: 3,
            repair_attempts: 3,
            controller_retries: 2,
            controller_retry_wait_s: 2.0,
            literature_search: true,
            semantic_scholar_url: "https://api.semanticscholar.org".into(),
            arxiv_url: "https://export.arxiv.org".into(),
            literature_timeout_s: 8.0,
            wait_poll_s: 0.25,
            experiment_time_limit_s: 900.0,
            experiment_memory_mb: crate::exec::default_memory_mb(),
            experiment_max_processes: 256,
            allow_network: false,
            gpus: 0,
            approval_timeout_s: 0.0,
            approval_default: ApprovalDefault::Reject,
        }
    }
}

/// `[debate]`: Hypothesis Debate's bounds. YouRA runs its six-persona debate for up to 20
/// exchanges, one persona per exchange, ending earlier once the moderator finds all six
/// convergence criteria met (§4, "up to 20 rounds"); the minimum lets every persona speak once.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct DebateSettings {
    /// Exchanges before a convergence verdict may end the debate.
    pub min_exchanges: u32,
    /// Exchanges at most, converged or not.
    pub max_exchanges: u32,
}

impl Default for DebateSettings {
    fn default() -> Self {
        DebateSettings {
            min_exchanges: 6,
            max_exchanges: 20,
        }
    }
}
