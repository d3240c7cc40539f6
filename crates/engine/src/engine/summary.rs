//! The compact VSA summary the Independent Controller judges from: status, phase, the main
//! hypothesis, each sub-hypothesis's status and gate, and the last few history events.
//! Never the execution transcript (YouRA §3.3).

use crate::vsa::model::Vsa;

pub fn summary(vsa: &Vsa) -> String {
    let mut out = Vec::new();
    let wf = &vsa.workflow;
    out.push(format!(
        "workflow: status={} phase={} mode={}",
        wf.status
            .as_ref()
            .map_or("?".into(), |s| s.as_str().to_string()),
        wf.current_phase.as_deref().unwrap_or("?"),
        wf.execution_mode
            .as_ref()
            .map_or("?".into(), |m| m.as_str().to_string()),
    ));
    if let Some(m) = &vsa.main_hypothesis {
        let statement = m.statement.as_deref().unwrap_or("(not yet stated)");
        out.push(format!(
            "main hypothesis {}: {}",
            m.id.as_deref().unwrap_or("?"),
            clip(statement, 300)
        ));
    }
    for h in &vsa.sub_hypotheses {
        let gate = h
            .gate
            .gate_type
            .as_ref()
            .map_or("?".into(), |g| g.as_str().to_string());
        let result = h
            .gate
            .result
            .as_ref()
            .map_or("-".into(), |r| r.as_str().to_string());
        out.push(format!(
            "- {} [{}] gate {gate} result {result} prereqs [{}]: {}",
            h.id,
            h.status.as_str(),
            h.prerequisites.join(", "),
            clip(h.statement.as_deref().unwrap_or(""), 160)
        ));
    }
    let recent: Vec<String> = vsa
        .history
        .iter()
        .rev()
        .take(5)
        .map(|e| format!("  * {}", clip(&e.summary(), 160)))
        .collect();
    if !recent.is_empty() {
        out.push("recent history (newest first):".into());
        out.extend(recent);
    }
    out.join("\n")
}

fn clip(s: &str, n: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= n {
        one
    } else {
        one.chars().take(n).collect::<String>() + "…"
    }
}
