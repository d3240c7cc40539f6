//! Conditional breakpoints (`steer/breakpoint.rs`): the stops that follow what a step did
//! (a gate's verdict, a sandbox violation, the plan budget's spent share) are checked at the
//! next step boundary from the events the step wrote; an escalation breakpoint keeps the
//! waiting policy from answering, so the escalation waits for the researcher. A one-shot
//! item is removed in the same transaction as the pause it causes, so `c` runs on.

use super::Engine;
use super::error::EngineError;
use crate::rundir::events::Event;
use crate::steer::breakpoint::{Breakpoint, CONFIG_EVENT, When, read_all};
use crate::vsa::enums::WorkflowStatus;
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::pause::PauseCause;
use crate::vsa::store::Snapshot;
use crate::yaml::{NewNode, Style, format_scalar};

/// The list without the items at `used` (one-shot breakpoints that stopped the run), put
/// whole: a flow list typed by hand has no lines to remove one by one.
pub(super) fn without(items: &[String], used: &[usize]) -> Change {
    let rest = items
        .iter()
        .enumerate()
        .filter(|(i, _)| !used.contains(i))
        .map(|(_, t)| NewNode::Scalar(format_scalar(t, Style::Plain)))
        .collect();
    Change::Put {
        path: crate::steer::BREAKPOINTS_LIST.into(),
        value: NewNode::Seq(rest),
    }
}

/// One line of what tripped a breakpoint on `e`: "h-e1 FAIL: 0.8832 does not satisfy …".
fn what_happened(e: &Event) -> String {
    let who = e.hypothesis.as_deref().unwrap_or("the run");
    let result = e.result.as_deref().unwrap_or(&e.kind);
    let msg: String = e
        .message
        .as_deref()
        .unwrap_or("")
        .chars()
        .take(160)
        .collect();
    format!("{who} {result}: {msg}")
}

impl Engine {
    /// `[breakpoints] set` into the VSA's list, once per run: the items not set already,
    /// one history entry each under [`CONFIG_EVENT`]. Later starts see those entries and
    /// leave the list as the researcher keeps it.
    pub(super) fn config_breakpoints(&mut self) -> Result<(), EngineError> {
        let wanted = &self.config.breakpoints.set;
        if wanted.is_empty() {
            return Ok(());
        }
        let snap = self.store.load()?;
        if snap
            .vsa
            .history
            .iter()
            .any(|h| h.event.as_deref() == Some(CONFIG_EVENT))
        {
            return Ok(());
        }
        let mut have = read_all(&snap.vsa.workflow.breakpoints);
        let mut m = Mutation::by("engine");
        let mut added = 0;
        for text in wanted {
            let Some(b) = Breakpoint::parse(text) else {
                continue;
            };
            if have.iter().any(|(_, h)| h.same_condition(&b)) {
                continue;
            }
            have.push((usize::MAX, b));
            m.push(
                Change::Append {
                    list: crate::steer::BREAKPOINTS_LIST.into(),
                    item: NewNode::Scalar(format_scalar(&b.text(), Style::Plain)),
                },
                CONFIG_EVENT,
                "[breakpoints] set in youra.toml",
            );
            added += 1;
        }
        if added > 0 {
            self.store.mutate(&m)?;
            self.log(&format!(
                "{added} breakpoint(s) set from [breakpoints] in youra.toml"
            ));
        }
        Ok(())
    }

    /// The events written since the last look, and whether a breakpoint on what they say
    /// (or on the budget) stops the run now: paused, with its cause, before the next step.
    pub(super) fn conditional_stop(&mut self, snap: &Snapshot) -> Result<bool, EngineError> {
        let mut new = Vec::new();
        if let Err(e) = self.event_tail.read(|ev| new.push(ev)) {
            self.log(&format!("breakpoints: cannot read events.jsonl ({e})"));
        }
        let items = &snap.vsa.workflow.breakpoints;
        let mut tripped: Vec<(usize, Breakpoint, String)> = Vec::new();
        for (i, b) in read_all(items) {
            if let Some(e) = new
                .iter()
                .find(|e| b.trips_on(&e.kind, e.result.as_deref()))
            {
                tripped.push((i, b, what_happened(e)));
            } else if let When::Budget(n) = b.when
                && let Some(spent) = self.spent_share()
                && spent >= f64::from(n)
                && !self.stopped_before(snap, &b)
            {
                tripped.push((i, b, format!("{spent:.0}% of the plan budget spent")));
            }
        }
        let Some((_, first, detail)) = tripped.first() else {
            return Ok(false);
        };
        let cause = PauseCause::Condition(format!("{}: {detail}", first.describe()));
        let used: Vec<usize> = tripped
            .iter()
            .filter(|(_, b, _)| b.once)
            .map(|(i, _, _)| *i)
            .collect();
        self.pause_for(&cause, items, &used)?;
        Ok(true)
    }

    /// Pause with `cause`; the one-shot items at `used` go in the same write.
    pub(super) fn pause_for(
        &mut self,
        cause: &PauseCause,
        items: &[String],
        used: &[usize],
    ) -> Result<(), EngineError> {
        let reason = cause.reason();
        let mut m = Mutation::by("engine");
        m.push(
            Change::Set {
                path: "workflow.status".into(),
                value: WorkflowStatus::Paused.as_str().into(),
            },
            "engine",
            &reason,
        );
        if !used.is_empty() {
            m.push(without(items, used), "engine", "one-shot breakpoint used");
        }
        self.store.mutate(&m)?;
        self.emit(Event::new("breakpoint").message(reason.clone()));
        self.log(&reason);
        Ok(())
    }

    /// Whether the run already stopped for `b` (a budget share is passed once; the history
    /// remembers it across restarts).
    fn stopped_before(&self, snap: &Snapshot, b: &Breakpoint) -> bool {
        let said = PauseCause::Condition(b.describe()).reason();
        snap.vsa
            .history
            .iter()
            .any(|h| h.reason.as_deref().is_some_and(|r| r.starts_with(&said)))
    }

    /// The plan search's spent token share in percent; `None` without a token budget.
    fn spent_share(&self) -> Option<f64> {
        if self.config.plan.budget_tokens == 0 {
            return None;
        }
        let (_, budget) = super::plan_open::open(&self.run, &self.config.plan).ok()?;
        (budget.total_tokens > 0)
            .then(|| 100.0 * budget.used_tokens as f64 / budget.total_tokens as f64)
    }

    /// Whether the waiting escalation is held for the researcher by an `escalation`
    /// breakpoint (the waiting policy does not answer it). The first look says so in the
    /// events and uses up a one-shot item; the hold lasts until the escalation is decided.
    pub(super) fn holds_escalation(&mut self, snap: &Snapshot) -> Result<bool, EngineError> {
        let Some(esc) = snap.vsa.workflow.escalation.as_ref() else {
            return Ok(false);
        };
        let id = esc
            .id
            .clone()
            .or_else(|| esc.raised_at.clone())
            .unwrap_or_default();
        if self.held_escalation.as_deref() == Some(id.as_str()) {
            return Ok(true);
        }
        let items = &snap.vsa.workflow.breakpoints;
        let set: Vec<(usize, Breakpoint)> = read_all(items)
            .into_iter()
            .filter(|(_, b)| b.when == When::Escalation)
            .collect();
        let Some((_, first)) = set.first() else {
            return Ok(false);
        };
        self.held_escalation = Some(id.clone());
        let used: Vec<usize> = set
            .iter()
            .filter(|(_, b)| b.once)
            .map(|(i, _)| *i)
            .collect();
        if !used.is_empty() {
            self.store.mutate(&Mutation::new(
                without(items, &used),
                "engine",
                "engine",
                "one-shot breakpoint used",
            ))?;
        }
        let what = format!(
            "breakpoint {}: {id} waits for the researcher, not the waiting policy",
            first.describe()
        );
        self.emit(
            Event::new("breakpoint")
                .hypothesis(esc.hypothesis.as_deref().unwrap_or("-"))
                .message(what.clone()),
        );
        self.log(&what);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn used_items_leave_the_list_and_the_rest_stay_in_order() {
        let items: Vec<String> = ["Phase 4", "once after gate FAIL", "budget 50%"]
            .map(String::from)
            .to_vec();
        let Change::Put { path, value } = without(&items, &[1]) else {
            panic!("a put")
        };
        assert_eq!(path, "workflow.breakpoints");
        let NewNode::Seq(rest) = value else {
            panic!("a list")
        };
        let texts: Vec<String> = rest
            .iter()
            .map(|n| match n {
                NewNode::Scalar(s) => s.trim_matches(['\'', '"']).to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(texts, ["Phase 4", "budget 50%"]);
    }
}
