//! `youra doctor <run> [--json]`: can every role's endpoint serve this run? Probes each
//! endpoint (`llm::doctor`), remembers the structured-reply dialect it found for roles left
//! on `auto`, prints the table (or JSON), and exits 1 when a role cannot work.

use std::path::Path;

use crate::llm::doctor;

pub fn run(dir: &Path, json: bool) -> color_eyre::Result<i32> {
    let _log = crate::logging::init(dir);
    let config = crate::config::load(dir)?;
    let settings = config.llm.settings();
    let report = doctor::examine(dir, &settings, &crate::llm::roles::ROLES, |k| {
        std::env::var(k).ok()
    });
    let choices = doctor::choices(&report, &settings);
    if !choices.is_empty() {
        let mut memory = crate::llm::structured::remembered(dir);
        memory.extend(choices);
        crate::llm::structured::remember(dir, &memory)?;
    }
    if json {
        let mut value = serde_json::to_value(&report)?;
        value["ok"] = serde_json::Value::Bool(report.ok());
        value["warnings"] = serde_json::json!(settings.independence_warnings());
        println!("{}", serde_json::to_string(&value)?);
    } else {
        print!("{}", doctor::render(&report));
        for w in settings.independence_warnings() {
            println!("warning: {w}");
        }
        if report.ok() {
            println!(
                "every role can work; dialects remembered in {}",
                crate::llm::structured::MEMORY
            );
        } else {
            println!("some roles cannot work: see the problems above");
        }
    }
    Ok(if report.ok() { 0 } else { 1 })
}
