//! The Lifecycle pane beside the recorded run (`R`, for a replay copy): under each stage,
//! its steps in this run with the recorded run's where they differ, `»` at the first
//! divergence and `≠` at the others. The rows are `crate::compare`'s, computed when the run
//! is read (`run_view`); this module only lays them out.

use ratatui::text::Line;

use super::clip;
use crate::compare::{Comparison, Row};
use crate::stage::Stage;
use crate::tui::theme::{Role, Theme};

/// The stage line's suffix: `≠` when a step of it differs, `=` when all agree, nothing when
/// neither run took it.
pub(crate) fn stage_mark(c: &Comparison, stage: Stage) -> &'static str {
    let mut rows = c.rows_of(stage).peekable();
    if rows.peek().is_none() {
        return "";
    }
    if rows.any(|(_, r)| r.diverges()) {
        " ≠"
    } else {
        " ="
    }
}

fn who(r: &Row) -> String {
    let mut s = r.key.hypothesis.clone().unwrap_or_default();
    if r.key.attempt > 1 {
        s.push_str(&format!(" #{}", r.key.attempt));
    }
    s
}

fn brief(o: Option<&crate::compare::Outcome>) -> String {
    o.map_or("—".into(), crate::compare::Outcome::brief)
}

/// The lines under one stage: every step of a stage with a gate (this run's, then the
/// recorded one's when it differs), and for the other stages only the steps that differ.
pub fn lines(c: &Comparison, stage: Stage, width: usize, t: &Theme) -> Vec<Line<'static>> {
    let gated = stage == Stage::CodingValidation;
    let mut out = Vec::new();
    for (i, r) in c.rows_of(stage) {
        if !gated && !r.diverges() {
            continue;
        }
        let mark = match (c.first_divergence == Some(i), r.diverges()) {
            (true, _) => "»",
            (false, true) => "≠",
            (false, false) => "=",
        };
        // A run-level stage (Evidence Check, the paper) names no hypothesis: no gap for it.
        let who = match who(r) {
            w if w.is_empty() => w,
            w => format!("{w} "),
        };
        let now = format!("  {mark} {who}now {}", brief(r.b.as_ref()));
        if r.diverges() {
            out.push(Line::styled(clip(&now, width), t.style(Role::Attention)));
            let pad = " ".repeat(who.chars().count());
            let rec = format!("    {pad}rec {}", brief(r.a.as_ref()));
            out.push(Line::styled(clip(&rec, width), t.style(Role::Muted)));
        } else {
            let same = format!("  {mark} {who}{} (as recorded)", brief(r.b.as_ref()));
            out.push(Line::styled(clip(&same, width), t.style(Role::Muted)));
        }
    }
    out
}

/// The line above the stages: what the comparison found.
pub fn header(c: &Comparison, width: usize, t: &Theme) -> Line<'static> {
    let text = format!("vs recorded: {}", crate::compare::table::verdict(c));
    let role = if c.diverged() {
        Role::Attention
    } else {
        Role::Muted
    };
    Line::styled(clip(&text, width), t.style(role))
}
