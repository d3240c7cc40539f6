//! Experiments: the queue (waiting, running where and for how long, finished with exit and
//! elapsed time) of sub-hypotheses with experiments, results or logs, each with its count of
//! events in the whole log; the selected one's metric curve (`results/metrics.jsonl`,
//! thinned to the chart's width by `tui::downsample`) and the tail of its newest log; GPU
//! use when `nvidia-smi` exists.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

use super::{block, clip};
use crate::rundir::jobs::{JobRow, JobState};
use crate::tui::app::{App, PaneId};
use crate::tui::experiments::{Experiment, RunState};
use crate::tui::rows::Metrics;
use crate::tui::theme::Role;

fn state_text(s: &RunState) -> (String, Role) {
    match s {
        RunState::Running => ("running".into(), Role::Attention),
        RunState::Finished(Some(0)) => ("done".into(), Role::Ok),
        RunState::Finished(Some(c)) => (format!("exit {c}"), Role::GateFailed),
        RunState::Finished(None) => ("done".into(), Role::Ok),
        RunState::Unknown => ("results".into(), Role::Muted),
    }
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let outer = block(app, PaneId::Experiments);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let t = &app.theme;
    let ex = &app.data.experiments;
    let mut header: Vec<Line> = app
        .data
        .gpus
        .iter()
        .map(|g| Line::styled(clip(g, inner.width as usize), t.style(Role::Muted)))
        .collect();
    if ex.is_empty() {
        header.push(Line::styled(
            "no experiments yet (h-*/results/metrics.jsonl, h-*/**/*.log)",
            t.style(Role::Muted),
        ));
        frame.render_widget(Paragraph::new(header), inner);
        return;
    }
    let sel = app.selected(PaneId::Experiments).min(ex.len() - 1);
    let list_h = (ex.len() + header.len())
        .min(inner.height as usize / 3)
        .max(1) as u16;
    let e = &ex[sel];
    let chart_h = if e.metrics.is_some() && e.log.is_some() {
        inner.height.saturating_sub(list_h) / 2
    } else if e.metrics.is_some() {
        inner.height
    } else {
        0
    };
    let [list_area, chart_area, tail_area] = Layout::vertical([
        Constraint::Length(list_h),
        Constraint::Length(chart_h),
        Constraint::Min(0),
    ])
    .areas(inner);
    header.extend(ex.iter().enumerate().map(|(i, e)| {
        row(
            app,
            e,
            i == sel && app.focus == PaneId::Experiments,
            inner.width as usize,
        )
    }));
    frame.render_widget(Paragraph::new(header), list_area);
    if let Some(m) = &e.metrics {
        chart(app, m, frame, chart_area);
    }
    if e.log.is_some() {
        let n = tail_area.height as usize;
        let lines: Vec<Line> = e
            .tail
            .iter()
            .skip(e.tail.len().saturating_sub(n))
            .map(|l| Line::styled(clip(l, tail_area.width as usize), t.style(Role::Text)))
            .collect();
        frame.render_widget(Paragraph::new(lines), tail_area);
    }
}

/// The queue's word for the row where it has one (it knows waiting, where and how long).
fn job_text(job: &JobRow) -> (String, Role) {
    let role = match &job.state {
        JobState::Waiting => Role::Muted,
        JobState::Running { .. } => Role::Attention,
        JobState::Finished { exit, .. } if exit == "0" => Role::Ok,
        JobState::Finished { .. } => Role::GateFailed,
    };
    (job.label(), role)
}

fn row(app: &App, e: &Experiment, selected: bool, width: usize) -> Line<'static> {
    let t = &app.theme;
    let (state, role) = e
        .job
        .as_ref()
        .map_or_else(|| state_text(&e.state), job_text);
    let what = match (&e.metrics, &e.log) {
        (Some(m), _) => m
            .series
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        (None, Some(l)) => l
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        (None, None) => String::new(),
    };
    // Its events in the whole log, counted as the reader went (blank until the file is
    // indexed: the quick first read sees only the end).
    let file = &app.data.events_file;
    let events = file.index.as_ref().map_or_else(String::new, |_| {
        let n = file.counts.of_hypothesis(&e.hypothesis);
        format!("{} ev", crate::plan::compact(n))
    });
    let text = clip(
        &format!("{:<10} {:<8} {events:>8}  {what}", e.hypothesis, state),
        width,
    );
    Line::styled(
        text,
        if selected {
            t.style(Role::Selected)
        } else {
            t.style(role)
        },
    )
}

/// The first metric's curve, with each earlier attempt of the same sub-hypothesis as its
/// own (muted) series: a refinement's gain shows against what it replaced.
pub fn chart(app: &App, m: &Metrics, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let Some((name, pts)) = m.series.first() else {
        return;
    };
    // Braille draws two dots per cell across: more points than that only cost the frame,
    // and the thinning keeps every column's extremes (a spike stays on screen).
    let columns = usize::from(area.width) * 2;
    let pts = crate::tui::downsample::min_max(pts, columns);
    let earlier: Vec<(u32, Vec<(f64, f64)>)> = m
        .earlier
        .iter()
        .map(|(n, p)| (*n, crate::tui::downsample::min_max(p, columns)))
        .collect();
    // The thinned series keep the extremes, so the bounds are the full series' bounds.
    let all = || pts.iter().chain(earlier.iter().flat_map(|(_, p)| p.iter()));
    let (xmin, xmax) = bounds(all().map(|p| p.0));
    let (ymin, ymax) = bounds(all().map(|p| p.1));
    let mut data: Vec<Dataset> = earlier
        .iter()
        .map(|(n, p)| {
            Dataset::default()
                .name(format!("attempt {n}"))
                .marker(Marker::Dot)
                .graph_type(GraphType::Line)
                .style(t.style(Role::Muted))
                .data(p)
        })
        .collect();
    data.push(
        Dataset::default()
            .name(if earlier.is_empty() {
                name.clone()
            } else {
                format!("{name} (now)")
            })
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.style(Role::Chart))
            .data(&pts),
    );
    let labels = |a: f64, b: f64| vec![Line::raw(fmt(a)), Line::raw(fmt(b))];
    let chart = Chart::new(data)
        .x_axis(
            Axis::default()
                .title(m.x_name.clone())
                .bounds([xmin, xmax])
                .labels(labels(xmin, xmax))
                .style(t.style(Role::Muted)),
        )
        .y_axis(
            Axis::default()
                .bounds([ymin, ymax])
                .labels(labels(ymin, ymax))
                .style(t.style(Role::Muted)),
        );
    frame.render_widget(chart, area);
}

fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if lo == hi {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    }
}

fn fmt(v: f64) -> String {
    if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}
