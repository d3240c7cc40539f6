//! The rows a read of the run yields, below every file that reads or shows them: an Events
//! row (from `events.jsonl`, the VSA's history or `youra.log`) and a hypothesis's metric
//! series.

use crate::vsa::timestamp::Timestamp;

/// One line of the Events pane: from `events.jsonl` or from VSA history.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    pub at: Option<Timestamp>,
    pub actor: String,
    pub stage: Option<String>,
    pub text: String,
    pub from_history: bool,
    /// The `kind` of an `events.jsonl` line (`tool_call`, `routing`, …), for its style.
    pub kind: Option<String>,
    /// The sub-hypothesis an `events.jsonl` line names (its own field, matched exactly:
    /// `h-e10`'s events are not `h-e1`'s).
    pub hypothesis: Option<String>,
    /// Its line in `events.jsonl` (from 1); 0 for rows from elsewhere (the VSA's history,
    /// `youra.log`) and before the file is indexed.
    pub line: u64,
}

/// One hypothesis's `results/metrics.jsonl`: a series per numeric field, against `step`
/// (or the line number when there is none).
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    pub hypothesis: String,
    pub x_name: String,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// The first series' metric in each earlier attempt (`results/attempts/<n>/`), oldest
    /// first: the chart draws them beside the current attempt.
    pub earlier: Vec<(u32, Vec<(f64, f64)>)>,
}

/// One `events.jsonl` line as an Events row (any JSON object: a row without a time or a
/// kind is still shown).
pub(crate) fn event_row(v: &serde_json::Value) -> EventRow {
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let kind = s("kind").unwrap_or_else(|| "event".into());
    let mut parts = vec![kind.clone()];
    // A stage's own rows name it; on the others it would crowd out the message (the
    // pane's stage filter still places them).
    let names_stage = matches!(kind.as_str(), "stage_start" | "stage_end" | "breakpoint");
    let keys: &[&str] = if names_stage {
        &["stage", "hypothesis", "result", "action", "message"]
    } else {
        &["hypothesis", "result", "action", "message"]
    };
    for k in keys {
        if let Some(x) = s(k) {
            parts.push(x);
        }
    }
    EventRow {
        at: s("time").as_deref().and_then(Timestamp::parse),
        actor: s("actor").unwrap_or_else(|| "engine".into()),
        stage: s("stage"),
        text: parts.join(" "),
        from_history: false,
        hypothesis: s("hypothesis"),
        kind: Some(kind),
        line: 0,
    }
}
