//! The lifecycle with times: each stage run of `events.jsonl` as one row — when it started,
//! how long it took, and how it ended (its `stage_end` result, or the gate and the route
//! that sent the run elsewhere). A pure function of the events, table-tested below.

use crate::rundir::events::Event;

/// One stage run.
#[derive(Debug, Clone, PartialEq)]
pub struct StageRow {
    pub stage: String,
    pub hypothesis: Option<String>,
    pub started: String,
    /// When the row ended: its `stage_end`, or the next stage's start; `None` while running.
    pub ended: Option<String>,
    /// Seconds between start and end, when both times parse, less `waited`: the stage's
    /// own time, not the researcher's.
    pub seconds: Option<f64>,
    /// Seconds an escalation of this stage run waited for the researcher (from its
    /// `escalation` event to the last `decision`, or to the row's end with none).
    pub waited: Option<f64>,
    /// `PHASE_COMPLETE`, `gate FAIL → Method-Refine`, `running`, …
    pub outcome: String,
    /// The message that explains the outcome (the stage's check, the gate's numbers).
    pub detail: Option<String>,
}

/// The stage runs in the order they started. The engine runs one stage at a time, so a
/// stage that ended without a `stage_end` (a failed gate that was rerouted, a stop) ends
/// where the next one starts; gate, routing and decision events belong to the open row.
pub(crate) fn stage_rows(events: &[Event]) -> Vec<StageRow> {
    let mut rows: Vec<StageRow> = Vec::new();
    let mut open: Option<usize> = None;
    let mut route: Option<String> = None;
    // The open row's escalation: when it began to wait, and its last decision.
    let mut wait: (Option<String>, Option<String>) = (None, None);
    for e in events {
        match e.kind.as_str() {
            "stage_start" => {
                if let Some(i) = open.take() {
                    close(
                        &mut rows[i],
                        &e.time,
                        route.take(),
                        "interrupted",
                        &mut wait,
                    );
                }
                rows.push(StageRow {
                    stage: e.stage.clone().unwrap_or_else(|| "(unnamed stage)".into()),
                    hypothesis: e.hypothesis.clone(),
                    started: e.time.clone(),
                    ended: None,
                    seconds: None,
                    waited: None,
                    outcome: "running".into(),
                    detail: None,
                });
                open = Some(rows.len() - 1);
                route = None;
            }
            "stage_end" => {
                if let Some(i) = open.take() {
                    let row = &mut rows[i];
                    close(
                        row,
                        &e.time,
                        None,
                        e.result.as_deref().unwrap_or("ended"),
                        &mut wait,
                    );
                    if e.message.is_some() && !row.outcome.starts_with("gate") {
                        row.detail.clone_from(&e.message);
                    }
                    route = None;
                }
            }
            "gate" => {
                if let Some(i) = open {
                    let row = &mut rows[i];
                    row.outcome = format!("gate {}", e.result.as_deref().unwrap_or("judged"));
                    row.detail.clone_from(&e.message);
                }
            }
            // The route applied (not the proposal, which an escalation may still change).
            "routing" if e.result.as_deref() != Some("proposed") => route.clone_from(&e.action),
            "decision" => {
                route.clone_from(&e.action);
                wait.1 = Some(e.time.clone());
            }
            "escalation" if open.is_some() && wait.0.is_none() => wait.0 = Some(e.time.clone()),
            "stop" | "completed" | "engine_stop" => {
                if let Some(i) = open.take() {
                    close(&mut rows[i], &e.time, route.take(), &e.kind, &mut wait);
                }
            }
            _ => {}
        }
    }
    rows
}

/// End `row` at `time`: a gate already judged keeps its verdict and gains the route taken;
/// a row with neither gets `fallback`.
fn close(
    row: &mut StageRow,
    time: &str,
    route: Option<String>,
    fallback: &str,
    wait: &mut (Option<String>, Option<String>),
) {
    row.ended = Some(time.to_string());
    let (since, decided) = std::mem::take(wait);
    row.waited = since.and_then(|s| seconds_between(&s, decided.as_deref().unwrap_or(time)));
    row.seconds = seconds_between(&row.started, time)
        .map(|all| (all - row.waited.unwrap_or(0.0).max(0.0)).max(0.0));
    row.outcome = match (row.outcome.starts_with("gate"), route) {
        (true, Some(r)) => format!("{} → {r}", row.outcome),
        (true, None) => row.outcome.clone(),
        (false, Some(r)) => format!("{fallback} → {r}"),
        (false, None) => fallback.to_string(),
    };
}

/// A run without stage events (a YouRA run) told by its VSA's history instead: each entry
/// that names an event or status, at its time. Field writes (`path` set) are left out: they
/// are edits, not steps of the lifecycle.
pub(crate) fn history_rows<'a>(
    history: impl IntoIterator<Item = &'a crate::vsa::HistoryEntry>,
) -> Vec<StageRow> {
    history
        .into_iter()
        .filter(|h| h.path.is_none())
        .filter_map(|h| {
            let outcome = h.event.clone().or_else(|| h.status.clone())?;
            Some(StageRow {
                stage: h.phase.clone().unwrap_or_else(|| "—".into()),
                hypothesis: h.hypothesis.clone(),
                started: h.timestamp.map_or_else(String::new, |t| {
                    t.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
                }),
                ended: None,
                seconds: None,
                waited: None,
                outcome,
                detail: h.details.clone().or_else(|| h.reason.clone()),
            })
        })
        .collect()
}

fn seconds_between(a: &str, b: &str) -> Option<f64> {
    let a = chrono::DateTime::parse_from_rfc3339(a).ok()?;
    let b = chrono::DateTime::parse_from_rfc3339(b).ok()?;
    Some((b - a).num_milliseconds() as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(time: &str, kind: &str, stage: &str, result: &str, action: &str) -> Event {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Event {
            time: format!("2026-12-04T11:26:{time}Z"),
            kind: kind.into(),
            stage: some(stage),
            hypothesis: None,
            result: some(result),
            action: some(action),
            message: Some(format!("{kind} message")),
            actor: None,
        }
    }

    /// (stage, outcome, seconds).
    type Brief = (String, String, Option<f64>);

    fn brief(rows: &[StageRow]) -> Vec<Brief> {
        rows.iter()
            .map(|r| (r.stage.clone(), r.outcome.clone(), r.seconds))
            .collect()
    }

    #[test]
    fn stage_runs_pair_their_ends_and_rerouted_runs_end_at_the_next_start() {
        let s = |a: &str, b: &str, c: Option<f64>| (a.to_string(), b.to_string(), c);
        let table: Vec<(Vec<Event>, Vec<Brief>)> = vec![
            (
                vec![
                    ev("36.000", "stage_start", "Scoping", "", ""),
                    ev("37.250", "stage_end", "Scoping", "PHASE_COMPLETE", ""),
                ],
                vec![s("Scoping", "PHASE_COMPLETE", Some(1.25))],
            ),
            (
                vec![
                    ev("37.000", "stage_start", "Coding", "", ""),
                    ev("37.100", "gate", "Coding", "FAIL", ""),
                    ev("37.200", "routing", "Coding", "proposed", "Pivot"),
                    ev("37.300", "decision", "Coding", "rejected", "Method-Refine"),
                    ev("37.500", "stage_start", "Coding", "", ""),
                    ev("38.000", "gate", "", "PASS", ""),
                    ev("38.500", "stage_end", "Coding", "PHASE_COMPLETE", ""),
                ],
                vec![
                    s("Coding", "gate FAIL → Method-Refine", Some(0.5)),
                    s("Coding", "gate PASS", Some(1.0)),
                ],
            ),
            (
                vec![
                    ev("40.000", "stage_start", "Drafting", "", ""),
                    ev("41.000", "stop", "", "", ""),
                    ev("42.000", "stage_start", "Review", "", ""),
                ],
                vec![
                    s("Drafting", "stop", Some(1.0)),
                    s("Review", "running", None),
                ],
            ),
            (
                vec![ev("not a time", "stage_start", "X", "", "")],
                vec![s("X", "running", None)],
            ),
        ];
        for (events, want) in table {
            assert_eq!(brief(&stage_rows(&events)), want, "{events:?}");
        }
    }

    /// Issue 43: the time an escalation waited for the researcher is not the stage's.
    #[test]
    fn an_escalations_wait_is_not_the_stages_time() {
        let rows = stage_rows(&[
            ev("36.000", "stage_start", "Coding", "", ""),
            ev("36.500", "gate", "Coding", "FAIL", ""),
            ev("37.000", "escalation", "Coding", "", "Pivot"),
            ev("47.000", "decision", "Coding", "rejected", "Method-Refine"),
            ev("47.250", "stage_start", "Coding", "", ""),
            ev("48.000", "escalation", "Coding", "", "Pivot"),
            ev("50.000", "stop", "", "", ""),
        ]);
        let got: Vec<(Option<f64>, Option<f64>)> =
            rows.iter().map(|r| (r.seconds, r.waited)).collect();
        // 11.25 s in all, 10 of them waiting; the second waited until the stop.
        assert_eq!(got, [(Some(1.25), Some(10.0)), (Some(0.75), Some(2.0))]);
        assert_eq!(rows[0].outcome, "gate FAIL → Method-Refine");
    }

    #[test]
    fn a_history_without_events_tells_the_lifecycle_and_field_writes_are_left_out() {
        use crate::vsa::HistoryEntry;
        let entry = |event: Option<&str>, path: Option<&str>, ts: &str| HistoryEntry {
            timestamp: crate::vsa::timestamp::Timestamp::parse(ts),
            event: event.map(str::to_string),
            phase: Some("Phase 2C".into()),
            hypothesis: Some("h-e1".into()),
            details: Some("design done".into()),
            path: path.map(str::to_string),
            ..HistoryEntry::default()
        };
        let rows = history_rows(&[
            entry(
                Some("Experiment design completed"),
                None,
                "2026-03-14T22:00:00+00:00",
            ),
            entry(None, Some("workflow.status"), "2026-03-14T22:01:00Z"),
            entry(None, None, "2026-03-14T22:02:00Z"),
            entry(Some("Gate passed"), None, "not a time"),
        ]);
        let got: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|r| (r.started.as_str(), r.stage.as_str(), r.outcome.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "2026-03-14T22:00:00.000Z",
                    "Phase 2C",
                    "Experiment design completed"
                ),
                ("", "Phase 2C", "Gate passed"),
            ]
        );
        assert_eq!(rows[0].detail.as_deref(), Some("design done"));
    }

    #[test]
    fn a_gate_row_shows_the_gates_message_and_an_end_without_a_gate_its_own() {
        let rows = stage_rows(&[
            ev("36.000", "stage_start", "A", "", ""),
            ev("36.500", "gate", "A", "FAIL", ""),
            ev("37.000", "stage_end", "A", "PHASE_COMPLETE", ""),
            ev("37.000", "stage_start", "B", "", ""),
            ev("37.500", "stage_end", "B", "PHASE_COMPLETE", ""),
        ]);
        assert_eq!(rows[0].detail.as_deref(), Some("gate message"));
        assert_eq!(rows[1].detail.as_deref(), Some("stage_end message"));
        assert_eq!(rows[1].ended.as_deref(), Some("2026-12-04T11:26:37.500Z"));
    }
}
