//! `youra init`: a fresh youra-native run folder with its configuration and a VSA skeleton
//! in YouRA's schema v3.5 plus youra's workflow fields.

use std::path::Path;

use crate::yaml::{Style, format_scalar};

#[derive(Debug, Clone)]
pub struct InitOptions {
    pub topic: String,
    pub name: Option<String>,
    /// INTERACTIVE or UNATTENDED.
    pub mode: String,
    /// Extra TOML appended to `youra.toml` (provider settings).
    pub llm_toml: String,
}

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("{} already holds a run (verification_state.yaml); choose an empty folder", .0.display())]
    Exists(std::path::PathBuf),
    #[error("the execution mode must be INTERACTIVE or UNATTENDED, not {0:?}")]
    Mode(String),
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

pub fn init(dir: &Path, opts: &InitOptions) -> Result<(), InitError> {
    let mode = opts.mode.to_ascii_uppercase();
    if !["INTERACTIVE", "UNATTENDED"].contains(&mode.as_str()) {
        return Err(InitError::Mode(opts.mode.clone()));
    }
    let vsa = dir.join("verification_state.yaml");
    if vsa.exists() {
        return Err(InitError::Exists(dir.to_path_buf()));
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InitError::Io { path, source }
    };
    // Private to its owner (0700): the workspaces in it hold files experiments wrote, as
    // this user. A folder the researcher made beforehand keeps the mode they chose.
    if !dir.exists() {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(io(dir))?;
    }
    let name = opts.name.clone().unwrap_or_else(|| {
        dir.file_name()
            .map_or("run".into(), |n| n.to_string_lossy().into_owned())
    });
    let toml = format!(
        "# Configuration of this youra run. Layers: compiled defaults < user config < this file < YOURA_* variables.\n[run]\nname = {}\ntopic = {}\nexecution_mode = \"{mode}\"\n\n{}",
        toml_str(&name),
        toml_str(&opts.topic),
        opts.llm_toml
    );
    let path = dir.join("youra.toml");
    std::fs::write(&path, toml).map_err(io(&path))?;
    std::fs::write(&vsa, skeleton(&name, &opts.topic, &mode)).map_err(io(&vsa))?;
    let events = dir.join("events.jsonl");
    std::fs::write(&events, "").map_err(io(&events))?;
    Ok(())
}

fn toml_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn skeleton(name: &str, topic: &str, mode: &str) -> String {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let q = |s: &str| format_scalar(s, Style::DoubleQuoted);
    format!(
        "# Verification state of a youra run (YouRA schema v3.5 plus youra's workflow fields).\n\
         # youra edits this file in place; edit it by hand or with `youra vsa set`.\n\
         revision: 0\n\
         metadata:\n  project_name: {}\n  research_topic: {}\n  created_at: '{now}'\n  schema_version: '3.5'\n\
         main_hypothesis:\n  id: null\n  title: null\n  statement: null\n\
         episode:\n  status: ACTIVE\n  started_at: '{now}'\n\
         workflow:\n  status: ACTIVE\n  current_phase: Phase 0\n  execution_mode: {mode}\n  stop_reason: null\n  next_action: null\n  breakpoints: []\n  steering: []\n\
         sub_hypotheses: {{}}\n\
         history: []\n",
        q(name),
        q(topic)
    )
}
