//! Roles are the seam between stages and models: a stage asks for `controller` or
//! `persona`, never for a URL. Each role gets its own provider (so the controller can be a
//! different model from the executor) wrapped in the recorder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::ledger::{Ledger, PriceTable};
use super::recorder::{Counters, Recorder};
use super::replay::Replay;
use super::role_config::{ProviderKind, RoleConfig};
use super::{LlmError, Provider};

/// Every role the engine asks for. A role without its own settings uses `default`.
pub const ROLES: [&str; 9] = [
    "executor",
    "controller",
    "generator",
    "critic",
    "judge",
    "persona",
    "reviewer",
    "reflector",
    "coder",
];

pub struct Roles {
    providers: BTreeMap<String, Arc<dyn Provider>>,
    ledger: Arc<Ledger>,
    /// `[llm.caps]` and each role's own `max_tokens`, for [`Roles::cap`].
    caps: BTreeMap<String, u32>,
    max_tokens: BTreeMap<String, u32>,
    /// Each role's dialect, resolved (for the schema check's words and the artifact form).
    dialects: BTreeMap<String, super::Structured>,
    /// Told by every HTTP role's client when it waits out an outage (`super::retry`).
    outage: super::retry::OutageWatch,
}

#[derive(Debug, Clone, Default)]
pub struct LlmSettings {
    pub default: RoleConfig,
    pub roles: BTreeMap<String, RoleConfig>,
    pub prices: PriceTable,
    /// `[llm.caps]`: output caps by `role` or `role.stage` (`super::caps`).
    pub caps: BTreeMap<String, u32>,
    /// `[llm] outage_wait_s`: how long a role's endpoint that does not answer is waited for.
    pub outage_wait_s: f64,
}

impl LlmSettings {
    /// A role's settings as resolved: its own table over `[llm.default]`.
    pub fn role(&self, role: &str) -> RoleConfig {
        self.roles
            .get(role)
            .cloned()
            .unwrap_or_default()
            .or(&self.default)
    }

    /// SAGE's critic and the Verdict Clamp's judge must not be the generator asking itself:
    /// one warning for each of them that resolves to the generator's provider and model (a
    /// replayed run is exempt: it serves what was recorded).
    pub fn independence_warnings(&self) -> Vec<String> {
        let who = |r: &str| {
            let c = self.role(r);
            (
                c.provider.unwrap_or_default(),
                c.base_url.clone(),
                c.model.clone(),
            )
        };
        let generator = who("generator");
        if generator.0 == ProviderKind::Replay {
            return Vec::new();
        }
        ["critic", "judge"]
            .into_iter()
            .filter(|r| who(r) == generator)
            .map(|r| {
                format!(
                    "the {r} resolves to the generator's model ({} {}): failure attribution needs an independent {r}; set [llm.roles.{r}] model (or provider) in youra.toml to another one",
                    generator.0.as_str(),
                    generator.2.as_deref().unwrap_or("(default model)")
                )
            })
            .collect()
    }
}

impl Roles {
    /// Build every role's provider for the run at `run`. Replay bundles are shared between
    /// roles that name the same one, so ordinals count per key across the whole run.
    pub fn build(run: &Path, settings: &LlmSettings) -> Result<Roles, LlmError> {
        let ledger = Arc::new(Ledger::new(run.join("ledger.tsv"), settings.prices.clone()));
        let dir = run.join("transcripts");
        let counters = Arc::new(Mutex::new(Counters::resume(&dir)));
        let mut replays: BTreeMap<PathBuf, Arc<dyn Provider>> = BTreeMap::new();
        let remembered = super::structured::remembered(run);
        let mut providers = BTreeMap::new();
        let mut max_tokens = BTreeMap::new();
        let mut dialects = BTreeMap::new();
        let outage = super::retry::OutageWatch::default();
        let wait = std::time::Duration::try_from_secs_f64(settings.outage_wait_s.max(0.0))
            .unwrap_or(std::time::Duration::ZERO);
        for role in ROLES {
            let cfg = settings
                .roles
                .get(role)
                .cloned()
                .unwrap_or_default()
                .or(&settings.default);
            if let Some(n) = cfg.max_tokens {
                max_tokens.insert(role.to_string(), n);
            }
            let kind = cfg.provider.unwrap_or_default();
            let dialect = match kind {
                ProviderKind::Replay => super::Structured::None,
                _ => super::http_config(kind, role, &cfg, &remembered, |k| std::env::var(k).ok())
                    .map(|h| h.dialect())
                    .unwrap_or(super::Structured::None),
            };
            dialects.insert(role.to_string(), dialect);
            let inner = match kind {
                ProviderKind::Replay => {
                    let bundle = replay_path(run, role, &cfg)?;
                    match replays.get(&bundle) {
                        Some(p) => p.clone(),
                        None => {
                            let delay =
                                std::time::Duration::from_millis(cfg.replay_delay_ms.unwrap_or(0));
                            let p: Arc<dyn Provider> =
                                Arc::new(Replay::load(&bundle)?.with_delay(delay));
                            replays.insert(bundle, p.clone());
                            p
                        }
                    }
                }
                kind => super::http_provider(kind, role, &cfg, &remembered, (wait, &outage))?,
            };
            let recorded = Recorder::new(inner, dir.clone(), ledger.clone(), counters.clone());
            providers.insert(role.to_string(), Arc::new(recorded) as Arc<dyn Provider>);
        }
        Ok(Roles {
            providers,
            ledger,
            caps: settings.caps.clone(),
            max_tokens,
            dialects,
            outage,
        })
    }

    /// The output cap for `role` at `stage` (`super::caps::cap`).
    pub fn cap(&self, role: &str, stage: &str) -> u32 {
        super::caps::cap(&self.caps, self.max_tokens.get(role).copied(), role, stage)
    }

    /// How `role`'s endpoint is told a reply's schema (`none` for replay and tests).
    pub fn dialect(&self, role: &str) -> super::Structured {
        self.dialects
            .get(role)
            .copied()
            .unwrap_or(super::Structured::None)
    }

    /// Roles from ready-made providers (tests, benchmarks), still recorded and charged.
    pub fn from_provider(run: &Path, provider: Arc<dyn Provider>) -> Roles {
        let ledger = Arc::new(Ledger::new(run.join("ledger.tsv"), PriceTable::default()));
        let dir = run.join("transcripts");
        let counters = Arc::new(Mutex::new(Counters::resume(&dir)));
        let providers = ROLES
            .iter()
            .map(|r| {
                let rec = Recorder::new(
                    provider.clone(),
                    dir.clone(),
                    ledger.clone(),
                    counters.clone(),
                );
                (r.to_string(), Arc::new(rec) as Arc<dyn Provider>)
            })
            .collect();
        Roles {
            providers,
            ledger,
            caps: BTreeMap::new(),
            max_tokens: BTreeMap::new(),
            dialects: BTreeMap::new(),
            outage: super::retry::OutageWatch::default(),
        }
    }

    /// Where the roles' clients report outages they wait out (the engine listens).
    pub fn outage_watch(&self) -> &super::retry::OutageWatch {
        &self.outage
    }

    pub fn get(&self, role: &str) -> Result<Arc<dyn Provider>, LlmError> {
        self.providers.get(role).cloned().ok_or_else(|| {
            LlmError::Config(format!("no role `{role}` (known: {})", ROLES.join(", ")))
        })
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }
}

fn replay_path(run: &Path, role: &str, cfg: &RoleConfig) -> Result<PathBuf, LlmError> {
    let raw = cfg.replay.as_deref().ok_or_else(|| {
        LlmError::Config(format!(
            "role `{role}` uses the replay provider but names no bundle: set `replay = \"…\"` under [llm.default] or [llm.roles.{role}] in youra.toml"
        ))
    })?;
    let p = PathBuf::from(raw);
    Ok(if p.is_absolute() { p } else { run.join(p) })
}
