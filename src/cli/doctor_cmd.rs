//! `youra doctor <run> [--json]`: can this run work here? Probes each role's endpoint
//! (`llm::doctor`), remembers the structured-reply dialect it found for roles left on
//! `auto`, checks the experiment sandbox the way a job uses it, prints the table (or JSON)
//! with the configuration's warnings, checks `data/` against the manifest `init --data`
//! wrote, and exits 1 when a role or the sandbox cannot work or a data file changed.

use std::path::Path;

use crate::llm::doctor;

pub fn run(dir: &Path, json: bool) -> color_eyre::Result<i32> {
    let _log = crate::logging::init(dir);
    let config = crate::config::load(dir)?;
    let settings = config.llm.settings();
    let report = doctor::examine(dir, &settings, &crate::llm::roles::ROLES, |k| {
        std::env::var(k).ok()
    });
    let sandbox = sandbox_check(config.exec.sandbox);
    // The data `init --data` copied, against its manifest: a changed file is named.
    let data = crate::engine::init::check_data(dir);
    let data_ok = data.as_ref().is_none_or(|d| d.problems.is_empty());
    let choices = doctor::choices(&report, &settings);
    if !choices.is_empty() {
        let mut memory = crate::llm::structured::remembered(dir);
        memory.extend(choices);
        crate::llm::structured::remember(dir, &memory)?;
    }
    if json {
        let mut value = serde_json::to_value(&report)?;
        value["ok"] = serde_json::Value::Bool(report.ok() && sandbox.ok && data_ok);
        value["data"] = serde_json::json!(data);
        let mut warnings = settings.independence_warnings();
        warnings.extend(config.warnings.iter().cloned());
        value["warnings"] = serde_json::json!(warnings);
        value["sandbox"] = serde_json::json!({
            "mode": config.exec.sandbox.as_str(),
            "ok": sandbox.ok,
            "detail": sandbox.line,
        });
        println!("{}", serde_json::to_string(&value)?);
    } else {
        print!("{}", doctor::render(&report));
        for w in settings
            .independence_warnings()
            .iter()
            .chain(config.warnings.iter())
        {
            println!("warning: {w}");
        }
        println!("{}", sandbox.line);
        match &data {
            None => {}
            Some(d) if d.problems.is_empty() => println!(
                "data: {} file(s) match data/{}",
                d.matching,
                crate::engine::init::DATA_MANIFEST
            ),
            Some(d) => {
                for p in &d.problems {
                    println!("data: {p}");
                }
            }
        }
        if !data_ok {
            println!("the run's data is not what `youra init` copied (see above)");
        }
        if !sandbox.ok {
            println!("the sandbox cannot work: experiments will not start (see above)");
        } else if report.ok() {
            println!(
                "every role can work; dialects remembered in {}",
                crate::llm::structured::MEMORY
            );
        } else {
            println!("some roles cannot work: see the problems above");
        }
    }
    Ok(if report.ok() && sandbox.ok && data_ok {
        0
    } else {
        1
    })
}

/// The sandbox as a job would find it.
struct SandboxCheck {
    ok: bool,
    line: String,
}

fn sandbox_check(mode: crate::exec::SandboxMode) -> SandboxCheck {
    use crate::exec::{Availability, SandboxMode};
    let found = crate::exec::probe_sandbox(std::env::var("PATH").ok().as_deref());
    match (mode, crate::exec::sandbox::decide(mode, &found)) {
        (SandboxMode::Off, _) => SandboxCheck {
            ok: true,
            line: format!("sandbox: OFF — {}", crate::exec::sandbox::OFF_WARNING),
        },
        (_, Err(e)) => SandboxCheck {
            ok: false,
            line: format!("sandbox: required — {e}"),
        },
        (_, Ok(_)) => SandboxCheck {
            ok: true,
            line: match found {
                Availability::Works(b) => format!(
                    "sandbox: required — `{}` works (own user namespace, uid nobody, no capabilities, no network)",
                    b.display()
                ),
                _ => "sandbox: required".into(),
            },
        },
    }
}
