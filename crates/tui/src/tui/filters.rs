//! Pane filters: which memory records and events are listed. Pure functions of the data and
//! the chosen filter, so counting, drawing and opening agree on the same rows (the lessons
//! browser's order and search are `tui::lessons`').

use crate::rundir::memory::{MemoryKind, MemoryRecord};

use super::rows::EventRow;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    pub kind: Option<MemoryKind>,
    pub hypothesis: Option<String>,
    pub actor: Option<String>,
    pub stage: Option<String>,
    /// Events: also the model calls and the engine's raw VSA diffs, which otherwise crowd
    /// out the decisions, routes, gates and stops.
    pub all_events: bool,
}

/// Whether an event row is routine bookkeeping, hidden unless every event is asked for.
pub fn routine(e: &EventRow) -> bool {
    match e.kind.as_deref() {
        Some("llm_call") => true,
        // The engine's field diffs; a researcher's or an editor's edit is news.
        Some("vsa_diff") => e.actor == "engine",
        _ => false,
    }
}

impl Filters {
    /// Whether the kind and hypothesis filters keep `r`.
    pub fn keeps(&self, r: &MemoryRecord) -> bool {
        self.kind.is_none_or(|k| r.kind == k)
            && self.hypothesis.as_ref().is_none_or(|h| {
                r.hypothesis.as_ref() == Some(h) || r.to_hypothesis.as_ref() == Some(h)
            })
    }

    pub fn events<'a>(&self, events: &'a [EventRow]) -> Vec<&'a EventRow> {
        events.iter().filter(|e| self.keeps_event(e)).collect()
    }

    /// Whether the routine, actor and stage filters keep `e`.
    pub(crate) fn keeps_event(&self, e: &EventRow) -> bool {
        (self.all_events || !routine(e))
            && self.actor.as_ref().is_none_or(|a| &e.actor == a)
            && self
                .stage
                .as_ref()
                .is_none_or(|s| e.stage.as_ref() == Some(s))
    }

    /// A one-line description for pane titles ("" when nothing is filtered).
    pub fn describe(&self, pane_memory: bool) -> String {
        let parts: Vec<String> = if pane_memory {
            [
                self.kind.map(|k| k.as_str().to_string()),
                self.hypothesis.clone(),
            ]
            .into_iter()
            .flatten()
            .collect()
        } else {
            [
                self.actor.clone(),
                self.stage.clone(),
                self.all_events.then(|| "all".to_string()),
            ]
            .into_iter()
            .flatten()
            .collect()
        };
        if parts.is_empty() {
            String::new()
        } else {
            format!("[{}]", parts.join(", "))
        }
    }
}

/// The hypothesis a memory record belongs to in the lessons browser (`None`: run-wide).
pub fn group(r: &MemoryRecord) -> Option<&str> {
    r.hypothesis.as_deref().or(r.to_hypothesis.as_deref())
}

/// The next value of a cycling filter: none → each value present, in order → none.
pub fn cycle<T: Clone + PartialEq>(current: &Option<T>, values: &[T]) -> Option<T> {
    match current {
        None => values.first().cloned(),
        Some(c) => values
            .iter()
            .position(|v| v == c)
            .and_then(|i| values.get(i + 1))
            .cloned(),
    }
}

/// Distinct values in first-seen order.
pub fn distinct<T: Clone + PartialEq>(values: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routine_rows_are_model_calls_and_the_engines_field_diffs() {
        let row = |kind: Option<&str>, actor: &str, history: bool| EventRow {
            at: None,
            actor: actor.into(),
            stage: None,
            text: String::new(),
            from_history: history,
            hypothesis: None,
            kind: kind.map(str::to_string),
            line: 0,
        };
        let cases = [
            (row(Some("llm_call"), "engine", false), true),
            (row(Some("vsa_diff"), "engine", true), true),
            (row(Some("vsa_diff"), "dana", true), false),
            (row(None, "engine", true), false),
            (row(Some("decision"), "dana", false), false),
            (row(Some("gate"), "engine", false), false),
        ];
        for (r, want) in cases {
            assert_eq!(routine(&r), want, "{r:?}");
        }
        let all = Filters {
            all_events: true,
            ..Filters::default()
        };
        let rows: Vec<EventRow> = vec![row(Some("llm_call"), "engine", false)];
        assert_eq!(Filters::default().events(&rows).len(), 0);
        assert_eq!(all.events(&rows).len(), 1);
    }

    #[test]
    fn cycling_visits_each_value_then_clears() {
        let vals = vec!["a", "b"];
        assert_eq!(cycle(&None, &vals), Some("a"));
        assert_eq!(cycle(&Some("a"), &vals), Some("b"));
        assert_eq!(cycle(&Some("b"), &vals), None);
        assert_eq!(cycle::<&str>(&None, &[]), None);
        assert_eq!(distinct([3, 1, 3, 2, 1].into_iter()), vec![3, 1, 2]);
    }
}
