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
}

#[derive(Debug, Clone, Default)]
pub struct LlmSettings {
    pub default: RoleConfig,
    pub roles: BTreeMap<String, RoleConfig>,
    pub prices: PriceTable,
}

impl Roles {
    /// Build every role's provider for the run at `run`. Replay bundles are shared between
    /// roles that name the same one, so ordinals count per key across the whole run.
    pub fn build(run: &Path, settings: &LlmSettings) -> Result<Roles, LlmError> {
        let ledger = Arc::new(Ledger::new(run.join("ledger.tsv"), settings.prices.clone()));
        let dir = run.join("transcripts");
        let counters = Arc::new(Mutex::new(Counters::resume(&dir)));
        let mut replays: BTreeMap<PathBuf, Arc<dyn Provider>> = BTreeMap::new();
        let mut providers = BTreeMap::new();
        for role in ROLES {
            let cfg = settings
                .roles
                .get(role)
                .cloned()
                .unwrap_or_default()
                .or(&settings.default);
            let inner = match cfg.provider.unwrap_or_default() {
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
                kind => super::http_provider(kind, role, &cfg)?,
            };
            let recorded = Recorder::new(inner, dir.clone(), ledger.clone(), counters.clone());
            providers.insert(role.to_string(), Arc::new(recorded) as Arc<dyn Provider>);
        }
        Ok(Roles { providers, ledger })
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
        Roles { providers, ledger }
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
