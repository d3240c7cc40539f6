//! A run's configuration, layered: compiled defaults, then the user config
//! (`<config dir>/youra/youra.toml`), then the run's `youra.toml`, then `YOURA_*`
//! variables (command-line flags are applied by the caller last). Tables merge key by key,
//! so a run that sets only `[llm.roles.controller] model` keeps everything else.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

pub use crate::config_model::{
    ApprovalDefault, DebateSettings, EngineSettings, LlmSection, OUTAGE_WAIT_S, PlanSettings,
    RunConfig, RunSection,
};
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error("configuration ({origin}): {message}")]
    Invalid { origin: String, message: String },
}

/// The user's config folder (`YOURA_CONFIG_DIR` overrides it, which tests use to isolate).
pub fn user_config_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("YOURA_CONFIG_DIR") {
        return Some(PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "youra").map(|d| d.config_dir().to_path_buf())
}

/// Load the run's configuration from every layer.
pub fn load(run: &Path) -> Result<RunConfig, ConfigError> {
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("YOURA_"))
        .collect();
    load_with(run, user_config_dir().as_deref(), &env)
}

pub fn load_with(
    run: &Path,
    user_dir: Option<&Path>,
    env: &[(String, String)],
) -> Result<RunConfig, ConfigError> {
    Ok(explain_with(run, user_dir, env, &crate::config_sources::flags())?.0)
}

/// Every effective value with the layer that set it, for `youra config show`: (key, value,
/// source), in the order the configuration is written.
pub(crate) type Explained = Vec<(
    crate::config_sources::KeyPath,
    Value,
    crate::config_sources::Source,
)>;

/// Load the run's configuration from every layer, with the source of each value.
pub fn explain(run: &Path) -> Result<(RunConfig, Explained), ConfigError> {
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("YOURA_"))
        .collect();
    explain_with(
        run,
        user_config_dir().as_deref(),
        &env,
        &crate::config_sources::flags(),
    )
}

pub fn explain_with(
    run: &Path,
    user_dir: Option<&Path>,
    env: &[(String, String)],
    flags: &crate::config_sources::Flags,
) -> Result<(RunConfig, Explained), ConfigError> {
    use crate::config_sources::{
        KeyPath, Source, env_layer, file_lines, flag_layer, leaves, source_of,
    };
    let mut merged = Table::new();
    // Highest first, for the sources; merged lowest first.
    let mut sources = Vec::new();
    let flag = flag_layer(flags);
    let envl = env_layer(env);
    sources.push(flag.sources.clone());
    sources.push(envl.sources.clone());
    let mut files = Vec::new();
    if let Some(dir) = user_dir {
        files.push(dir.join("youra.toml"));
    }
    files.push(run.join("youra.toml"));
    let mut file_sources = Vec::new();
    let mut unknown: Vec<(KeyPath, Source)> = Vec::new();
    let mut run_name = None;
    for path in &files {
        let (mut table, text, ignored) = read_table(path)?;
        let mut lines = file_lines(path, &text);
        if *path == run.join("youra.toml") {
            run_name = drop_run_name(&mut table, path, &text);
            lines.remove(&vec!["steer".to_string(), "name".to_string()]);
        }
        for key in ignored {
            let at = source_of(&lines, &key).cloned().unwrap_or(Source::File {
                path: path.clone(),
                line: header_line(&text, &key),
            });
            unknown.push((key, at));
        }
        file_sources.push(lines);
        merge(&mut merged, table);
    }
    file_sources.reverse();
    sources.extend(file_sources);
    merge(&mut merged, envl.table);
    merge(&mut merged, flag.table);
    let mut config: RunConfig = Value::Table(merged)
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::Invalid {
            origin: "merged layers".into(),
            message: e.to_string(),
        })?;
    // Numbers and vocabularies, named with the layer that set them.
    if let Some((key, message)) = crate::config_check::numbers(&config).into_iter().next() {
        let path: KeyPath = key.split('.').map(str::to_string).collect();
        let origin = sources
            .iter()
            .find_map(|s| source_of(s, &path))
            .map_or_else(|| "default".to_string(), |s| s.to_string());
        return Err(ConfigError::Invalid { origin, message });
    }
    config
        .recovery
        .validate()
        .map_err(|message| ConfigError::Invalid {
            origin: "[recovery]".into(),
            message,
        })?;
    if let Some(message) = config.plan.problems().into_iter().next() {
        return Err(ConfigError::Invalid {
            origin: "[plan]".into(),
            message,
        });
    }
    if let Some(message) = config.evidence.problems().into_iter().next() {
        return Err(ConfigError::Invalid {
            origin: "[evidence]".into(),
            message,
        });
    }
    if config.exec.max_parallel == Some(0) {
        return Err(ConfigError::Invalid {
            origin: "[exec]".into(),
            message:
                "max_parallel = 0 would never run an experiment; give 1 (one at a time) or more"
                    .into(),
        });
    }
    let effective = Value::try_from(&config).map_err(|e| ConfigError::Invalid {
        origin: "the effective configuration".into(),
        message: e.to_string(),
    })?;
    config.warnings = unknown
        .into_iter()
        .map(|(key, at)| {
            let (last, parents) = key
                .split_last()
                .map_or(("", &[][..]), |(l, p)| (l.as_str(), p));
            let known = crate::config_check::siblings(&effective, parents);
            let hint = crate::config_check::nearest(last, known.iter().map(String::as_str))
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            format!(
                "{at}: unknown key `{}` (no setting reads it){hint}",
                key.join(".")
            )
        })
        .collect();
    config.warnings.extend(run_name.map(|at| {
        format!(
            "{at}: `[steer] name` is not read from a run's own youra.toml (a run folder does \
             not say who is at the keyboard); set it in your user config or YOURA_NAME"
        )
    }));
    // A Slurm job asks `--mem` for the experiment's limit only when someone chose it
    // (exec/slurm/backend.rs): the default is this machine's memory, not a compute node's.
    let memory_key: crate::config_sources::KeyPath =
        vec!["engine".into(), "experiment_memory_mb".into()];
    config.exec.slurm.experiment_memory_set =
        sources.iter().any(|s| source_of(s, &memory_key).is_some());
    let explained = leaves(&effective)
        .into_iter()
        .map(|(key, value)| {
            let source = sources
                .iter()
                .find_map(|s| source_of(s, &key))
                .cloned()
                .unwrap_or(Source::Default);
            (key, value, source)
        })
        .collect();
    Ok((config, explained))
}

/// A layer's table, its text (empty when the file is absent), and the keys in it that no
/// setting reads.
fn read_table(path: &Path) -> Result<(Table, String, Vec<Vec<String>>), ConfigError> {
    let text = match crate::fsutil::read_run_text(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((Table::new(), String::new(), Vec::new()));
        }
        Err(source) => {
            return Err(ConfigError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let table: Table = toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: located(&text, &e),
    })?;
    if let Some((key, new)) = crate::config_check::moved_key(&table) {
        let lines = crate::config_sources::file_lines(path, &text);
        let line = match crate::config_sources::source_of(&lines, &key) {
            Some(crate::config_sources::Source::File { line, .. }) => *line,
            _ => 0,
        };
        return Err(ConfigError::Parse {
            path: path.to_path_buf(),
            message: format!(
                "line {line}: `{}` has moved to {new}: write it there (values: required, off)",
                key.join(".")
            ),
        });
    }
    // Validate this layer alone, so an error names the file, line and column it is in; keys
    // no setting reads are collected for a warning (serde would drop them silently).
    let mut ignored = Vec::new();
    let de = toml::Deserializer::parse(&text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: located(&text, &e),
    })?;
    serde_ignored::deserialize::<_, _, RunConfig>(de, |p| {
        ignored.push(p.to_string().split('.').map(str::to_string).collect())
    })
    .map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: located(&text, &e),
    })?;
    Ok((table, text, ignored))
}

/// Take `[steer] name` out of a run's own file's table (see `vsa::actor`): where it was,
/// for the warning, when it was there.
fn drop_run_name(
    table: &mut Table,
    path: &Path,
    text: &str,
) -> Option<crate::config_sources::Source> {
    let steer = table.get_mut("steer")?.as_table_mut()?;
    steer.remove("name")?;
    let lines = crate::config_sources::file_lines(path, text);
    let key: crate::config_sources::KeyPath = vec!["steer".into(), "name".into()];
    Some(
        crate::config_sources::source_of(&lines, &key)
            .cloned()
            .unwrap_or(crate::config_sources::Source::File {
                path: path.to_path_buf(),
                line: header_line(text, &["steer".to_string()]),
            }),
    )
}

/// The line of the table header `[a.b]` (or `[[a.b]]`) that opens `key`, for a whole table
/// no setting reads; 1 when there is none.
fn header_line(text: &str, key: &[String]) -> usize {
    let name = key.join(".");
    text.lines()
        .position(|l| l.trim().trim_matches(['[', ']']).trim() == name)
        .map_or(1, |i| i + 1)
}

fn located(text: &str, e: &toml::de::Error) -> String {
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
            let src = text.lines().nth(line - 1).unwrap_or("").trim();
            // A wrong type in words, with the key and what was likely meant.
            let message = crate::config_words::key_at(text, line)
                .and_then(|key| crate::config_words::wrong_type(e.message(), &key))
                .or_else(|| crate::config_words::unknown_variant(e.message()))
                .or_else(|| crate::config_words::unknown_field(e.message()))
                .unwrap_or_else(|| e.message().to_string());
            format!("line {line}, column {col} (`{src}`): {message}")
        }
        None => e.message().to_string(),
    }
}

fn merge(into: &mut Table, from: Table) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(Value::Table(a)), Value::Table(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ProviderKind;

    #[test]
    fn layers_merge_key_by_key_and_env_wins() {
        let user = tempfile::tempdir().unwrap();
        let run = tempfile::tempdir().unwrap();
        std::fs::write(user.path().join("youra.toml"), "[llm.default]\nprovider = \"openai\"\nmodel = \"user-model\"\nbase_url = \"http://u\"\n").unwrap();
        std::fs::write(
            run.path().join("youra.toml"),
            "[llm.default]\nmodel = \"run-model\"\n[engine]\nmax_resumes = 5\n",
        )
        .unwrap();
        let env = vec![
            ("YOURA_CONTROLLER_MODEL".to_string(), "ctl".to_string()),
            ("YOURA_MODE".to_string(), "UNATTENDED".to_string()),
        ];
        let c = load_with(run.path(), Some(user.path()), &env).unwrap();
        assert_eq!(c.llm.default.provider, Some(ProviderKind::Openai));
        assert_eq!(c.llm.default.model.as_deref(), Some("run-model"));
        assert_eq!(c.llm.default.base_url.as_deref(), Some("http://u"));
        assert_eq!(c.llm.roles["controller"].model.as_deref(), Some("ctl"));
        assert_eq!(c.run.execution_mode.as_deref(), Some("UNATTENDED"));
        assert_eq!(c.engine.max_resumes, 5);
        assert_eq!(c.debate.max_exchanges, 20);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let run = tempfile::tempdir().unwrap();
        std::fs::write(
            run.path().join("youra.toml"),
            "[engine]\nmax_resumes = \"two\"\n",
        )
        .unwrap();
        let e = load_with(run.path(), None, &[]).unwrap_err().to_string();
        assert!(e.contains("youra.toml"), "{e}");
        assert!(e.contains("max_resumes"), "{e}");
        std::fs::write(run.path().join("youra.toml"), "[engine\n").unwrap();
        let e = load_with(run.path(), None, &[]).unwrap_err().to_string();
        assert!(e.contains("line 1, column"), "{e}");
    }

    #[test]
    fn max_parallel_defaults_to_the_gpus_and_refuses_zero() {
        let run = tempfile::tempdir().unwrap();
        let c = load_with(run.path(), None, &[]).unwrap();
        assert_eq!(c.exec.max_parallel(0), 1, "no GPU: one at a time");
        assert_eq!(c.exec.max_parallel(4), 4, "one per GPU");
        std::fs::write(run.path().join("youra.toml"), "[exec]\nmax_parallel = 2\n").unwrap();
        let c = load_with(run.path(), None, &[]).unwrap();
        assert_eq!(c.exec.max_parallel(8), 2);
        std::fs::write(run.path().join("youra.toml"), "[exec]\nmax_parallel = 0\n").unwrap();
        let e = load_with(run.path(), None, &[]).unwrap_err().to_string();
        assert!(e.contains("[exec]") && e.contains("max_parallel"), "{e}");
    }

    #[test]
    fn plan_settings_are_typed_and_checked() {
        let run = tempfile::tempdir().unwrap();
        let write = |text: &str| std::fs::write(run.path().join("youra.toml"), text).unwrap();
        write(
            "[plan]\nbudget_tokens = 9\npolicy = \"uct:2\"\ndelta = 0.1\nmax_children = 2\nreexpand_limit = 1\nafter_pass = 3\n",
        );
        let c = load_with(run.path(), None, &[]).unwrap();
        assert_eq!(c.plan.policy, crate::plan::Policy::Uct { c: 2.0 });
        assert_eq!(
            (
                c.plan.delta,
                c.plan.max_children,
                c.plan.reexpand_limit,
                c.plan.after_pass
            ),
            (0.1, 2, 1, Some(3))
        );
        // (config, what the error must name)
        let table = [
            ("[plan]\npolicy = \"adaptve\"\n", "use adaptive, uct"),
            ("[plan]\ndelta = 2.0\n", "delta = 2"),
            ("[plan]\nmax_children = 0\n", "max_children = 0"),
            ("[plan]\nalpha_max = 0.5\n", "alpha_max = 0.5"),
            ("[plan]\nbudget_secs = -1.0\n", "budget_secs"),
        ];
        for (text, want) in table {
            write(text);
            let e = load_with(run.path(), None, &[]).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
