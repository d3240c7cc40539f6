//! Experiments: hypotheses with measured results, and the selected one's metric curves
//! (`results/metrics.jsonl`) as a chart.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

use super::{block, clip};
use crate::tui::app::{App, PaneId};
use crate::tui::theme::Role;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let outer = block(app, PaneId::Experiments);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let t = &app.theme;
    if app.data.metrics.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "no measured results yet (h-*/results/metrics.jsonl)",
                t.style(Role::Muted),
            )),
            inner,
        );
        return;
    }
    let sel = app
        .selected(PaneId::Experiments)
        .min(app.data.metrics.len() - 1);
    let list_h = (app.data.metrics.len() as u16).min(inner.height / 3).max(1);
    let [list_area, chart_area] =
        Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(inner);
    let rows: Vec<Line> = app
        .data
        .metrics
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let names: Vec<&str> = m.series.iter().map(|(n, _)| n.as_str()).collect();
            let text = clip(
                &format!(
                    "{:<10} {} points: {}",
                    m.hypothesis,
                    m.series.first().map_or(0, |s| s.1.len()),
                    names.join(", ")
                ),
                inner.width as usize,
            );
            Line::styled(
                text,
                if i == sel {
                    t.style(Role::Selected)
                } else {
                    t.style(Role::Text)
                },
            )
        })
        .collect();
    frame.render_widget(Paragraph::new(rows), list_area);
    let m = &app.data.metrics[sel];
    let Some((name, pts)) = m.series.first() else {
        return;
    };
    let (xmin, xmax) = bounds(pts.iter().map(|p| p.0));
    let (ymin, ymax) = bounds(pts.iter().map(|p| p.1));
    let data = Dataset::default()
        .name(name.clone())
        .marker(Marker::Braille)
        .graph_type(GraphType::Line)
        .style(t.style(Role::Chart))
        .data(pts);
    let axis_labels = |a: f64, b: f64| vec![Line::raw(fmt(a)), Line::raw(fmt(b))];
    let chart = Chart::new(vec![data])
        .x_axis(
            Axis::default()
                .title(m.x_name.clone())
                .bounds([xmin, xmax])
                .labels(axis_labels(xmin, xmax))
                .style(t.style(Role::Muted)),
        )
        .y_axis(
            Axis::default()
                .bounds([ymin, ymax])
                .labels(axis_labels(ymin, ymax))
                .style(t.style(Role::Muted)),
        );
    frame.render_widget(chart, chart_area);
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
