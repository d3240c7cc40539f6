//! The environment a job sees: built from an allow-list, never inherited. The parent's
//! environment holds the LLM providers' API keys; generated code must not see them, so the
//! child starts from `env_clear()` and receives only what [`build_env`] returns.

use std::path::Path;

/// Variables passed through from the parent when set (locale and search path only).
const PASSED_THROUGH: &[&str] = &["PATH", "LANG", "LC_ALL"];

/// The path used when the parent has no PATH.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Why an extra variable was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    #[error(
        "refused environment variable {name}: its name looks like a secret ({why}); experiment code must not receive credentials — remove it from the job"
    )]
    LooksSecret { name: String, why: &'static str },
    #[error(
        "refused environment variable {name:?}: a name must be non-empty and contain no '=' or NUL"
    )]
    BadName { name: String },
}

/// What the job's environment is built from, besides the job's own extra variables.
#[derive(Debug, Clone)]
pub struct EnvInputs<'a> {
    /// The parent's values for [`PASSED_THROUGH`] names, as `(name, value)`.
    pub parent: Vec<(&'a str, String)>,
    /// The job's workspace (HOME).
    pub workspace: &'a Path,
    /// `CUDA_VISIBLE_DEVICES`: empty for a CPU job.
    pub cuda_visible_devices: &'a str,
    /// Inside bubblewrap: HOME is a fresh folder in the sandbox's private /tmp and PATH
    /// leads to the Python the host runs (`sandbox::sandbox_path`); outside, HOME is the
    /// workspace and PATH the parent's.
    pub sandboxed: bool,
}

/// Reads the passed-through variables from this process's environment.
pub fn parent_passthrough() -> Vec<(&'static str, String)> {
    PASSED_THROUGH
        .iter()
        .filter_map(|name| std::env::var(name).ok().map(|value| (*name, value)))
        .collect()
}

/// Why `name` looks like a secret, if it does (case-insensitive).
pub fn secret_reason(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    if upper.starts_with("ANTHROPIC_") {
        Some("ANTHROPIC_*")
    } else if upper.starts_with("OPENAI_") {
        Some("OPENAI_*")
    } else if upper.ends_with("_API_KEY") || upper == "API_KEY" {
        Some("*_API_KEY")
    } else if upper.ends_with("_TOKEN") || upper == "TOKEN" {
        Some("*_TOKEN")
    } else if upper.contains("SECRET") {
        Some("*SECRET*")
    } else if upper.contains("PASSWORD") {
        Some("*PASSWORD*")
    } else {
        None
    }
}

/// Refuses extra variables that look like secrets or cannot be set.
pub fn check_extra(extra: &[(String, String)]) -> Result<(), EnvError> {
    for (name, _) in extra {
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            return Err(EnvError::BadName { name: name.clone() });
        }
        if let Some(why) = secret_reason(name) {
            return Err(EnvError::LooksSecret {
                name: name.clone(),
                why,
            });
        }
    }
    Ok(())
}

/// The complete environment of a job, in the order set (later entries win).
pub fn build_env(
    inputs: &EnvInputs,
    extra: &[(String, String)],
) -> Result<Vec<(String, String)>, EnvError> {
    check_extra(extra)?;
    let ws = inputs.workspace.display().to_string();
    let results = inputs.workspace.join(super::job::RESULTS_DIR);
    let mut env: Vec<(String, String)> = vec![
        ("PATH".into(), DEFAULT_PATH.into()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    for (name, value) in &inputs.parent {
        if PASSED_THROUGH.contains(name) {
            env.push(((*name).into(), value.clone()));
        }
    }
    let home = if inputs.sandboxed {
        super::sandbox::SANDBOX_HOME.to_string()
    } else {
        ws.clone()
    };
    if inputs.sandboxed {
        env.push(("PATH".into(), super::sandbox::sandbox_path()));
    }
    let own = [
        ("HOME", home),
        ("TMPDIR", inputs.workspace.join("tmp").display().to_string()),
        ("PYTHONUNBUFFERED", "1".into()),
        ("PYTHONDONTWRITEBYTECODE", "1".into()),
        // nvidia-smi numbers GPUs in PCI order; CUDA's default order may differ.
        ("CUDA_DEVICE_ORDER", "PCI_BUS_ID".into()),
        ("CUDA_VISIBLE_DEVICES", inputs.cuda_visible_devices.into()),
        ("YOURA_WORKSPACE", ws),
        ("YOURA_RESULTS_DIR", results.display().to_string()),
        (
            "YOURA_METRICS_FILE",
            results.join(super::job::METRICS_FILE).display().to_string(),
        ),
    ];
    env.extend(own.into_iter().map(|(k, v)| (k.to_string(), v)));
    env.extend(extra.iter().cloned());
    Ok(dedup_last_wins(env))
}

/// Keeps the last value of each name, in first-seen order.
fn dedup_last_wins(env: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(env.len());
    for (name, value) in env {
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => out.push((name, value)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
        env.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn secrets_refused_by_name() {
        for name in [
            "OPENAI_API_KEY",
            "openai_org",
            "ANTHROPIC_BASE_URL",
            "HF_TOKEN",
            "MY_SECRET_X",
            "WANDB_API_KEY",
        ] {
            let extra = vec![(name.to_string(), "v".to_string())];
            let err = check_extra(&extra).err();
            assert!(
                matches!(err, Some(EnvError::LooksSecret { .. })),
                "{name} not refused"
            );
        }
        assert!(
            check_extra(&[
                ("SEED".into(), "1".into()),
                ("TOKENIZER".into(), "x".into())
            ])
            .is_ok()
        );
    }

    #[test]
    fn allow_list_only() {
        let ws = Path::new("/w/h-e1");
        let inputs = EnvInputs {
            parent: vec![("PATH", "/bin".into()), ("OPENAI_API_KEY", "sk-x".into())],
            workspace: ws,
            cuda_visible_devices: "",
            sandboxed: false,
        };
        let env = build_env(&inputs, &[("SEED".into(), "7".into())]).unwrap_or_default();
        assert_eq!(get(&env, "PATH"), Some("/bin"));
        assert_eq!(get(&env, "OPENAI_API_KEY"), None);
        assert_eq!(get(&env, "HOME"), Some("/w/h-e1"));
        assert_eq!(get(&env, "CUDA_VISIBLE_DEVICES"), Some(""));
        assert_eq!(
            get(&env, "YOURA_METRICS_FILE"),
            Some("/w/h-e1/results/metrics.jsonl")
        );
        assert_eq!(get(&env, "SEED"), Some("7"));
        assert_eq!(env.iter().filter(|(n, _)| n == "PATH").count(), 1);
    }
}
