//! Drawing is a pure function of the state: the status line (what waits for the researcher
//! first), the banner when the VSA stopped parsing, the panes, the footer of keys, overlays.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::app::{App, PaneId};
use super::dialogs::overlay::Overlay;
use super::keymap::{Command, Mode};
use super::panes;
use super::theme::Role;

pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    if super::runs_view::showing(app) {
        super::runs_view::draw(app, frame);
        if let Some(o) = &app.overlay {
            overlay(app, o, frame, area);
        }
        return;
    }
    let conflict = app.data.vsa.as_ref().and_then(|s| s.vsa.recent_conflict());
    let banner_h =
        u16::from(app.banner.is_some() || conflict.is_some() || app.config_warning.is_some());
    let servers_h = u16::from(!app.data.servers.is_empty());
    let [status, servers, banner, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(servers_h),
        Constraint::Length(banner_h),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(status_line(app, status.width)), status);
    frame.render_widget(Paragraph::new(servers_line(app)), servers);
    if let Some(b) = &app.banner {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!(
                    " VSA unreadable (`youra vsa repair {}` shows the fix); showing the last good state: {b}",
                    crate::notice::message::shell_word(&app.run.root.display().to_string())
                ),
                app.theme.style(Role::Error),
            )),
            banner,
        );
    } else if let Some(w) = &app.config_warning {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!(" {}", crate::term::escape(w)),
                app.theme.style(Role::Error),
            )),
            banner,
        );
    } else if let Some(c) = conflict {
        // "…; 2 conflict(s)": the count is the reason's last clause (vsa::history::stale_entry).
        let n = c
            .reason
            .as_deref()
            .and_then(|r| r.rsplit("; ").next())
            .and_then(|t| t.split_whitespace().next())
            .unwrap_or("some");
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!(
                    " ⚠ an outside write at revision {} reverted {n} field(s) youra had set; the outside value was kept (youra vsa history)",
                    c.revision.unwrap_or(0),
                ),
                app.theme.style(Role::Attention),
            )),
            banner,
        );
    }
    if app.zoomed {
        panes::draw(app, app.focus, frame, body);
    } else {
        for (pane, rect) in layout(app, body) {
            panes::draw(app, pane, frame, rect);
            if body.width < 150 && SHARED.contains(&pane) {
                tab_strip(app, pane, frame, rect);
            }
        }
    }
    frame.render_widget(
        Paragraph::new(super::footer::line(app, footer.width)),
        footer,
    );
    if let Some(o) = &app.overlay {
        overlay(app, o, frame, body);
    }
}

/// Panes and their places: two rows of two at 80 columns, of three from 150.
pub fn layout(app: &App, body: Rect) -> Vec<(PaneId, Rect)> {
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body);
    if body.width >= 150 {
        // The Lifecycle column holds `✓ Phase 2B  Verification Planning` whole.
        let t: [Rect; 3] = Layout::horizontal([
            Constraint::Length(39),
            Constraint::Min(40),
            Constraint::Percentage(35),
        ])
        .areas(top);
        let b: [Rect; 3] = Layout::horizontal([
            Constraint::Percentage(40),
            Constraint::Percentage(35),
            Constraint::Percentage(25),
        ])
        .areas(bottom);
        return vec![
            (PaneId::Lifecycle, t[0]),
            (PaneId::Gates, t[1]),
            (PaneId::Reflection, t[2]),
            (PaneId::Events, b[0]),
            (PaneId::Experiments, b[1]),
            (PaneId::Plan, b[2]),
        ];
    }
    let left = if body.width >= 100 { 36 } else { 30 };
    let t: [Rect; 2] =
        Layout::horizontal([Constraint::Length(left), Constraint::Min(30)]).areas(top);
    let b: [Rect; 2] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bottom);
    // The bottom-right slot shows whichever of Events, Experiments, Plan has focus.
    let last = match app.focus {
        PaneId::Experiments | PaneId::Plan => app.focus,
        _ => PaneId::Events,
    };
    vec![
        (PaneId::Lifecycle, t[0]),
        (PaneId::Gates, t[1]),
        (PaneId::Reflection, b[0]),
        (last, b[1]),
    ]
}

/// The panes that share the bottom-right slot below 150 columns.
const SHARED: [PaneId; 3] = [PaneId::Events, PaneId::Experiments, PaneId::Plan];

/// Below 150 columns Events, Experiments and the Plan tree share one slot: its top border
/// becomes a tab strip naming all three with their keys, the one shown highlighted, so none
/// is hidden from a researcher who does not know the numbers (`tab` also reaches them).
fn tab_strip(app: &App, shown: PaneId, frame: &mut Frame, rect: Rect) {
    let t = &app.theme;
    let mut spans = vec![Span::styled("─", t.style(Role::Border))];
    for p in SHARED {
        let n = PaneId::ALL
            .iter()
            .position(|x| *x == p)
            .map_or(0, |i| i + 1);
        let role = if p == shown {
            if app.focus == p {
                Role::Selected
            } else {
                Role::Title
            }
        } else {
            Role::Muted
        };
        spans.push(Span::styled(format!(" {n} {} ", p.title()), t.style(role)));
        spans.push(Span::styled("│", t.style(Role::Border)));
    }
    // Too narrow for every name and the news: the panes not shown go by a short name, so
    // "• 4 new" is never the part cut.
    let short = |p: PaneId| match p {
        PaneId::Experiments => "Exps",
        PaneId::Plan => "Plan",
        _ => p.title(),
    };
    if shown == PaneId::Events {
        let n = panes::events::new_count(app);
        if n > 0 {
            spans.push(Span::styled(format!(" • {n} new "), t.style(Role::Key)));
        }
        let f = app.filters.describe(false);
        if !f.is_empty() {
            spans.push(Span::styled(format!(" {f} "), t.style(Role::Key)));
        }
    }
    let strip = Rect {
        x: rect.x + 1,
        y: rect.y,
        width: rect.width.saturating_sub(2),
        height: 1.min(rect.height),
    };
    if Line::from(spans.clone()).width() > usize::from(strip.width) {
        for (i, p) in SHARED.iter().enumerate() {
            if *p != shown {
                let n = PaneId::ALL.iter().position(|x| x == p).map_or(0, |i| i + 1);
                spans[1 + 2 * i].content = format!(" {n} {} ", short(*p)).into();
            }
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), strip);
}

/// The status line, most urgent first, so a narrow terminal cuts only the least of it: what
/// waits, the stage and since when, the status, the plan budget left, tokens and cost, the
/// revision, the run's name. Past the stage, a part that does not fit whole is left out
/// rather than cut (`8.6k tokens $` said nothing).
fn status_line(app: &App, width: u16) -> Line<'static> {
    let t = &app.theme;
    let mut spans = vec![Span::styled(" youra ", t.style(Role::Title))];
    // What waits for the researcher comes first: it is what the eye must land on.
    let waits = waiting(app);
    if let Some(w) = &waits {
        spans.push(Span::styled(format!(" {w} "), t.style(Role::Attention)));
        spans.push(Span::raw(" "));
    }
    // A model endpoint the engine waits for (`engine::outage`): the run is not stuck.
    if let Some(w) = model_wait(app) {
        spans.push(Span::styled(format!(" ⌛ {w} "), t.style(Role::Attention)));
        spans.push(Span::raw(" "));
    }
    // An unconfined run says so before anything else about it.
    if app.data.sandbox == crate::exec::SandboxMode::Off {
        spans.push(Span::styled(" UNSANDBOXED ", t.style(Role::Attention)));
        spans.push(Span::raw(" "));
    }
    let Some(snap) = &app.data.vsa else {
        return Line::from(spans);
    };
    let v = &snap.vsa;
    let stage = v
        .workflow
        .current_phase
        .as_deref()
        .map(|p| {
            crate::stage::Stage::parse(p).map_or_else(|| p.to_string(), |s| s.name().to_string())
        })
        .unwrap_or_else(|| "-".into());
    // Today's date goes without saying.
    let today = chrono::Utc::now().format("%m-%d ").to_string();
    let since = app
        .data
        .stage_since
        .as_deref()
        .map(|s| format!(" since {}", s.strip_prefix(&today).unwrap_or(s)))
        .unwrap_or_default();
    spans.push(Span::styled(
        format!("{stage}{since}"),
        t.style(Role::Emphasis),
    ));
    let essential = spans.len();
    // What waits already says the status; otherwise it is the next thing to know.
    if waits.is_none() {
        let status = v
            .workflow
            .status
            .as_ref()
            .map_or("-".into(), ToString::to_string);
        spans.push(Span::styled(format!(" · {status}"), t.style(Role::Text)));
    }
    if let Some(r) = app.data.plan.as_ref().and_then(|p| p.remaining_share()) {
        spans.push(Span::styled(
            format!(" · budget {:.0}% left", (r * 100.0).clamp(0.0, 100.0)),
            t.style(if r < 0.15 {
                Role::Attention
            } else {
                Role::Text
            }),
        ));
    }
    if let Some(u) = &app.data.usage {
        spans.push(Span::styled(
            format!(" · {}", usage_text(u)),
            t.style(Role::Text),
        ));
    }
    spans.push(Span::styled(
        format!(" · rev {}", v.revision),
        t.style(Role::Muted),
    ));
    spans.push(Span::styled(
        format!(" · {}", v.project_name.as_deref().unwrap_or("run")),
        t.style(Role::Muted),
    ));
    let (mut used, mut i) = (0, 0);
    spans.retain(|s| {
        let keep = i < essential || used + s.width() <= usize::from(width);
        i += 1;
        used += if keep { s.width() } else { 0 };
        keep
    });
    Line::from(spans)
}

/// `waiting for <endpoint> since <time>` while the newest of the engine's outage, stop and
/// start events is a `model_waiting` one (events are newest first).
fn model_wait(app: &App) -> Option<String> {
    let last = app.data.events.iter().find(|e| {
        matches!(
            e.kind.as_deref(),
            Some("model_waiting" | "model_back" | "model_gave_up" | "stop" | "engine_start")
        )
    })?;
    if last.kind.as_deref() != Some("model_waiting") {
        return None;
    }
    let at = last.text.find("waiting for ")?;
    let text = &last.text[at..];
    Some(text.split(" (retrying").next().unwrap_or(text).to_string())
}

/// `6.2k tokens $0.0123` (`$0` for free models, `+ unknown` for unpriced ones): what the run
/// has spent on models so far, from the ledger.
pub(crate) fn usage_text(u: &crate::llm::ledger::Totals) -> String {
    let tokens = u.input_tokens + u.output_tokens;
    let tokens = if tokens >= 1_000_000 {
        format!("{:.1}M", tokens as f64 / 1e6)
    } else if tokens >= 1_000 {
        format!("{:.1}k", tokens as f64 / 1e3)
    } else {
        tokens.to_string()
    };
    let cost = if u.cost_usd == 0.0 && u.unpriced_calls == 0 {
        "$0".to_string()
    } else {
        u.cost_text()
    };
    format!("{tokens} tokens {cost}")
}

/// The run's MCP servers and their health: one glance says whether the roles have tools.
fn servers_line(app: &App) -> Line<'static> {
    use super::tools::State;
    let t = &app.theme;
    let mut spans = vec![Span::styled(" tools ", t.style(Role::Muted))];
    for s in &app.data.servers {
        let (mark, role) = match s.state {
            State::Up => ("●", Role::Ok),
            State::Down => ("✗", Role::GateFailed),
            State::Unknown => ("?", Role::Muted),
        };
        let detail = match (s.state, s.tools, &s.error) {
            (_, _, Some(e)) => format!(" ({})", panes::clip(e, 30)),
            (State::Up, Some(n), None) => format!(" {n} tools"),
            (State::Unknown, _, None) => " unknown".into(),
            _ => String::new(),
        };
        spans.push(Span::styled(format!(" {mark} "), t.style(role)));
        spans.push(Span::styled(
            format!("{}{detail} ", s.name),
            t.style(Role::Text),
        ));
    }
    Line::from(spans)
}

/// What waits for the researcher, with the key that acts on it (from the keymap, so a
/// rebound key is named as it is).
pub fn waiting(app: &App) -> Option<String> {
    let v = &app.data.vsa.as_ref()?.vsa;
    use crate::vsa::enums::WorkflowStatus as W;
    let key = |mode: Mode, c: Command| {
        app.keymap
            .key_for(mode, c)
            .or_else(|| app.keymap.key_for(Mode::Global, c))
            .map(|k| k.to_string())
            .unwrap_or_else(|| format!(":{}", c.name()))
    };
    if let Some(r) = v.workflow.review.as_ref().filter(|r| r.waits()) {
        return Some(format!(
            "⚑ {}'s experiment{} waits for review: {}",
            r.hypothesis.as_deref().unwrap_or("?"),
            r.node
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default(),
            key(Mode::Global, Command::OpenReview)
        ));
    }
    if v.workflow.awaits_decision() {
        let e = v.workflow.escalation.as_ref();
        let what = e
            .map(|e| {
                format!(
                    "{} for {}",
                    e.proposed_action.as_deref().unwrap_or("?"),
                    e.hypothesis.as_deref().unwrap_or("?"),
                )
            })
            .unwrap_or_else(|| "an escalation".into());
        return Some(format!(
            "⚑ {what} waits: {}",
            key(Mode::Global, Command::OpenEscalation)
        ));
    }
    match v.workflow.status {
        Some(W::Paused) => {
            let why = app
                .data
                .vsa
                .as_ref()
                .and_then(|s| {
                    s.vsa.history.iter().rev().find(|h| {
                        h.path.as_deref() == Some("workflow.status")
                            && h.new.as_deref() == Some(W::Paused.as_str())
                    })
                })
                .and_then(|h| h.reason.clone())
                .map(|r| format!(" ({})", panes::clip(&r, 48)))
                .unwrap_or_default();
            Some(format!(
                "⏸ PAUSED{why} — {} resumes · {} runs one stage",
                key(Mode::Lifecycle, Command::Resume),
                key(Mode::Lifecycle, Command::Step)
            ))
        }
        Some(W::Stopped) => Some(format!(
            "■ MUST_STOP: {} — fix it, then {} resumes",
            panes::clip(
                v.workflow.stop_reason.as_deref().unwrap_or("see history"),
                60
            ),
            key(Mode::Lifecycle, Command::Resume)
        )),
        Some(W::AwaitingApproval) => Some(format!(
            "AWAITING APPROVAL — {} opens the card",
            key(Mode::Global, Command::OpenEscalation)
        )),
        _ => None,
    }
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn overlay(app: &App, o: &Overlay, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    match o {
        Overlay::Help(scroll) => {
            let (mode, name) = if super::runs_view::showing(app) {
                (Mode::Runs, "Runs")
            } else {
                (app.focus.mode(), app.focus.title())
            };
            super::dialogs::help::draw(app, mode, name, *scroll, frame, area)
        }
        Overlay::HelpOver(scroll, under) => {
            overlay(app, under, frame, area);
            super::dialogs::help::draw(app, under.mode(), under.name(), *scroll, frame, area)
        }
        Overlay::Edit(d) => super::dialogs::render::edit(app, d, frame, centered(area, 72, 11)),
        Overlay::Reason(d) | Overlay::CommandLine(d) => {
            let w = super::dialogs::render::reason_width(d);
            super::dialogs::render::reason(app, d, frame, centered(area, w, 9))
        }
        Overlay::Picker(p) => {
            let r = centered(area, 70, (p.items.len() as u16 + 2).min(area.height));
            frame.render_widget(Clear, r);
            let first = panes::scroll_for(p.selected, r.height.saturating_sub(2) as usize);
            let lines: Vec<Line> = (first..p.items.len())
                .map(|i| {
                    Line::styled(
                        p.label(i),
                        if i == p.selected {
                            t.style(Role::Selected)
                        } else {
                            t.style(Role::Text)
                        },
                    )
                })
                .collect();
            let block = Block::default()
                .borders(Borders::ALL)
                .title(format!(" {} (enter opens) ", p.title))
                .border_style(t.style(Role::BorderFocus));
            frame.render_widget(Paragraph::new(lines).block(block), r);
        }
        Overlay::Paper(v) => super::dialogs::paper::draw(v, t, frame, area),
        Overlay::Escalation(tab) => panes::escalation::draw(app, *tab, frame, area),
        Overlay::Review(card) => super::review_card::draw(app, card, frame, area),
        Overlay::Viewer(v) => {
            let r = area;
            frame.render_widget(Clear, r);
            let block = Block::default()
                .borders(Borders::ALL)
                .title(format!(" {} ", v.title))
                .border_style(t.style(Role::BorderFocus));
            let text: Vec<Line> = v.lines.iter().skip(v.scroll).cloned().collect();
            frame.render_widget(
                Paragraph::new(text).wrap(Wrap { trim: false }).block(block),
                r,
            );
            if let Some(q) = &v.query {
                let bottom = Rect {
                    y: r.y + r.height.saturating_sub(1),
                    height: 1,
                    ..r
                };
                frame.render_widget(
                    Paragraph::new(Line::styled(format!("/{q}"), t.style(Role::Key))),
                    bottom,
                );
            }
        }
    }
}
