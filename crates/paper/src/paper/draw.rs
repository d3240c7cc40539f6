//! Drawing the paper's figures as SVG with plotters' SVG backend: pure functions from plotted
//! data to SVG text (no files, no fonts: the text is SVG `<text>`, which the PDF's Typst
//! renders with its bundled fonts). The data comes from a run, so every drawing is bounded
//! here whatever the caller did: at most [`MAX_SERIES`] series of [`MAX_POINTS`] points, only
//! values a chart can draw (`exec::collected::bounded`: plotters' tick search never ends on
//! an axis near ±1e308), and labels without control or bidi characters (one in the SVG
//! makes the PDF fail).

use plotters::prelude::*;

use crate::exec::collected::bounded;

/// The most points drawn per series: a figure is 640 pixels wide, and 3M rows drawn as they
/// come made a 285 MB SVG.
pub(crate) const MAX_POINTS: usize = 2_000;
/// The most series in one figure (attempts × labels); more are not drawn.
pub(crate) const MAX_SERIES: usize = 12;
/// The most characters of a label.
const MAX_LABEL_CHARS: usize = 80;
/// Markers are drawn on a series only this short (beyond, they are a smear and bytes).
const MAX_MARKED: usize = 200;
/// The most gate criteria in the summary.
const MAX_BARS: usize = 40;
/// The gate summary's title band and the height of one criterion's panel.
const GATE_TITLE: u32 = 34;
const GATE_PANEL: u32 = 92;

/// `s` without control, bidi or zero-width characters, at most [`MAX_LABEL_CHARS`] long.
pub(crate) fn clean_label(s: &str) -> String {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    };
    let kept: String = s.chars().filter(|c| !unsafe_char(*c)).collect();
    match kept.char_indices().nth(MAX_LABEL_CHARS) {
        Some((at, _)) => format!("{}…", &kept[..at]),
        None => kept,
    }
}

/// `points` a chart can draw, thinned to at most `max`: per column of x (`max / 2` equal
/// slices), the lowest and the highest point, in their order, so a one-step spike stays.
pub(crate) fn thin(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    let drawable: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| bounded(*x).is_some() && bounded(*y).is_some())
        .copied()
        .collect();
    let columns = (max / 2).max(1);
    if drawable.len() <= max {
        return drawable;
    }
    let (lo, hi) = drawable.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.0), hi.max(p.0))
    });
    let column = |x: f64| {
        let c = if hi > lo {
            (x - lo) / (hi - lo) * columns as f64
        } else {
            0.0
        };
        (c.max(0.0) as usize).min(columns - 1)
    };
    let mut extremes: Vec<Option<(usize, usize)>> = vec![None; columns];
    for (i, p) in drawable.iter().enumerate() {
        let slot = &mut extremes[column(p.0)];
        *slot = Some(match *slot {
            None => (i, i),
            Some((a, b)) => (
                if p.1 < drawable[a].1 { i } else { a },
                if p.1 > drawable[b].1 { i } else { b },
            ),
        });
    }
    let mut keep: Vec<usize> = extremes
        .into_iter()
        .flatten()
        .flat_map(|(a, b)| [a, b])
        .collect();
    keep.sort_unstable();
    keep.dedup();
    keep.into_iter().map(|i| drawable[i]).collect()
}

/// One line chart: a metric against steps, one series per attempt (and label).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub title: String,
    pub x_name: String,
    pub metric: String,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// The gate's threshold on this metric, drawn dashed.
    pub threshold: Option<f64>,
}

/// One gate criterion: what was required and what was measured.
#[derive(Debug, Clone, PartialEq)]
pub struct GateBar {
    pub label: String,
    pub op: String,
    pub required: f64,
    pub measured: Option<f64>,
    pub passed: Option<bool>,
    /// The measured value's interval, where the gate read repeats.
    pub interval: Option<(f64, f64)>,
    /// The interval's verdict on this criterion (PASS, FAIL, INCONCLUSIVE).
    pub verdict: Option<String>,
}

const SIZE: (u32, u32) = (640, 400);
/// The legend under a curve: two columns of rows this tall, below a gap.
const LEGEND_COLUMNS: usize = 2;
const LEGEND_ROW: u32 = 18;
const LEGEND_TOP: u32 = 8;
/// The most characters of a legend entry (a column is 300 pixels of 11-point text).
const MAX_LEGEND_CHARS: usize = 52;
/// As many colours as series: no two lines of one figure share one.
const PALETTE: [RGBColor; MAX_SERIES] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 128),
    RGBColor(128, 0, 0),
];

fn err(e: impl std::fmt::Display) -> String {
    format!("cannot draw the figure: {e}")
}

/// A range around `lo..hi` with a margin, never empty: bounded values make a finite span,
/// and a zero one (a constant series) gets a width relative to its value.
fn padded(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let span = (hi - lo).abs().max(hi.abs().max(lo.abs()) * 0.05).max(1e-6);
    (lo - span * 0.1)..(hi + span * 0.1)
}

/// `c` as it is drawn: labels cleaned, at most [`MAX_SERIES`] series of [`MAX_POINTS`]
/// drawable points (series left empty are dropped), a threshold only when drawable.
pub(crate) fn bounded_curve(c: &Curve) -> Curve {
    Curve {
        title: clean_label(&c.title),
        x_name: clean_label(&c.x_name),
        metric: clean_label(&c.metric),
        series: c
            .series
            .iter()
            .map(|(name, pts)| (clean_label(name), thin(pts, MAX_POINTS)))
            .filter(|(_, pts)| !pts.is_empty())
            .take(MAX_SERIES)
            .collect(),
        threshold: c.threshold.and_then(bounded),
    }
}

/// The metric curves as SVG.
pub fn curves(c: &Curve) -> Result<String, String> {
    let c = &bounded_curve(c);
    let pts = || c.series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts() {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        return Err(err(
            "no point within the drawable range (finite, within ±1e12)",
        ));
    }
    if let Some(t) = c.threshold {
        (y0, y1) = (y0.min(t), y1.max(t));
    }
    let mut entries: Vec<(String, RGBColor, bool)> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (name.clone(), PALETTE[i % PALETTE.len()], false))
        .collect();
    if let Some(t) = c.threshold {
        entries.push((format!("gate threshold {t}"), BLACK, true));
    }
    let rows = entries.len().div_ceil(LEGEND_COLUMNS) as u32;
    let mut svg = String::new();
    {
        let size = (SIZE.0, SIZE.1 + LEGEND_TOP + rows * LEGEND_ROW);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        // The legend sits under the plot, never over a line it would hide.
        let (plot, legend) = root.split_vertically(SIZE.1);
        let mut chart = ChartBuilder::on(&plot)
            .caption(&c.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(padded(x0, x1), padded(y0, y1))
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(c.x_name.as_str())
            .y_desc(c.metric.as_str())
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        for (i, (_, points)) in c.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(err)?;
            if points.len() <= MAX_MARKED {
                chart
                    .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(err)?;
            }
        }
        if let Some(t) = c.threshold {
            let dashed = DashedLineSeries::new(vec![(x0, t), (x1, t)], 6, 4, BLACK.stroke_width(1));
            chart.draw_series(dashed).map_err(err)?;
        }
        draw_legend(&legend, &entries)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// `entries` (label, colour, dashed) in columns on `area`, a short line before each label.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, RGBColor, bool)],
) -> Result<(), String> {
    let column = area.dim_in_pixel().0 as i32 / LEGEND_COLUMNS as i32;
    for (i, (label, color, dashed)) in entries.iter().enumerate() {
        let x = 16 + (i % LEGEND_COLUMNS) as i32 * column;
        let y = (LEGEND_TOP + (i / LEGEND_COLUMNS) as u32 * LEGEND_ROW) as i32 + 6;
        let segments: &[(i32, i32)] = if *dashed {
            &[(0, 7), (11, 18)]
        } else {
            &[(0, 18)]
        };
        for &(a, b) in segments {
            area.draw(&PathElement::new(
                vec![(x + a, y), (x + b, y)],
                color.stroke_width(2),
            ))
            .map_err(err)?;
        }
        let mut text: String = clean_label(label).chars().take(MAX_LEGEND_CHARS).collect();
        if text.chars().count() < clean_label(label).chars().count() {
            text.push('…');
        }
        area.draw(&Text::new(text, (x + 24, y - 6), ("sans-serif", 12)))
            .map_err(err)?;
    }
    Ok(())
}

/// The side of `required` that meets `op`: `Some(true)` above, `Some(false)` below, `None`
/// for equality (a point, no side).
fn meets_above(op: &str) -> Option<bool> {
    match op.trim() {
        ">=" | ">" => Some(true),
        "<=" | "<" => Some(false),
        _ => None,
    }
}

/// The gate summary as SVG: one panel per criterion, each on the metric's own scale (an
/// accuracy and a gain share no axis): the threshold dashed, the side that meets it shaded,
/// the measured value as a point (green met, red missed, amber undecided) with its interval
/// as whiskers where the gate read repeats, and the values written above.
pub fn gates(bars: &[GateBar]) -> Result<String, String> {
    if bars.is_empty() {
        return Err(err("no gate criteria"));
    }
    let bars = &bars[..bars.len().min(MAX_BARS)];
    let n = bars.len() as u32;
    let mut svg = String::new();
    {
        let size = (SIZE.0, GATE_TITLE + n * GATE_PANEL);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (title, panels) = root.split_vertically(GATE_TITLE);
        title
            .draw(&Text::new(
                "Gate criteria: each measured value against its threshold",
                (12, 8),
                ("sans-serif", 18),
            ))
            .map_err(err)?;
        for (b, area) in bars.iter().zip(panels.split_evenly((bars.len(), 1))) {
            gate_panel(b, &area)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// One criterion's panel of [`gates`].
fn gate_panel<DB: DrawingBackend>(
    b: &GateBar,
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String> {
    let required = bounded(b.required);
    let measured = b.measured.and_then(bounded);
    let interval = b
        .interval
        .and_then(|(lo, hi)| Some((bounded(lo)?, bounded(hi)?)));
    let values: Vec<f64> = [required, measured]
        .into_iter()
        .flatten()
        .chain(interval.into_iter().flat_map(|(lo, hi)| [lo, hi]))
        .collect();
    let v = crate::report::registry::format_value;
    let verdict = match (b.verdict.as_deref(), b.passed) {
        (Some(w), _) => w.to_lowercase(),
        (None, Some(true)) => "met".into(),
        (None, Some(false)) => "missed".into(),
        (None, None) => "not judged".into(),
    };
    // Four decimals, as the paper's tables: a mean over repeats is a long float.
    let p = |x: f64| v((x * 1e4).round() / 1e4);
    let shown = match (measured, interval) {
        (Some(m), Some((lo, hi))) => format!("{} [{} to {}]", p(m), p(lo), p(hi)),
        (Some(m), None) => p(m),
        (None, _) => "not measured".into(),
    };
    let heading = clean_label(&format!(
        "{} {} {}: measured {shown}, {verdict}",
        b.label,
        b.op,
        required.map_or("(not drawable)".into(), v)
    ));
    let (lo, hi) = values
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
    let range = if lo <= hi { padded(lo, hi) } else { 0.0..1.0 };
    let mut chart = ChartBuilder::on(area)
        .caption(heading, ("sans-serif", 13))
        .margin_left(16)
        .margin_right(24)
        .margin_top(4)
        .x_label_area_size(24)
        .build_cartesian_2d(range.clone(), 0.0..1.0)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_labels(6)
        .x_label_style(("sans-serif", 12))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    let amber = RGBColor(230, 160, 0);
    let (green, red) = (RGBColor(44, 160, 44), RGBColor(214, 39, 40));
    if let Some(t) = required {
        if let Some(above) = meets_above(&b.op) {
            let side = if above {
                [(t, 0.0), (range.end, 1.0)]
            } else {
                [(range.start, 0.0), (t, 1.0)]
            };
            chart
                .draw_series([Rectangle::new(side, green.mix(0.12).filled())])
                .map_err(err)?;
        }
        chart
            .draw_series(DashedLineSeries::new(
                vec![(t, 0.0), (t, 1.0)],
                5,
                3,
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
    }
    let color = match verdict.as_str() {
        "pass" | "met" => green,
        "fail" | "missed" => red,
        _ => amber,
    };
    if let Some((lo, hi)) = interval {
        chart
            .draw_series([
                PathElement::new(vec![(lo, 0.5), (hi, 0.5)], color.stroke_width(2)),
                PathElement::new(vec![(lo, 0.35), (lo, 0.65)], color.stroke_width(2)),
                PathElement::new(vec![(hi, 0.35), (hi, 0.65)], color.stroke_width(2)),
            ])
            .map_err(err)?;
    }
    if let Some(m) = measured {
        chart
            .draw_series([Circle::new((m, 0.5), 5, color.filled())])
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_is_an_svg_with_its_labels() {
        let c = Curve {
            title: "h-e1: accuracy per step".into(),
            x_name: "step".into(),
            metric: "accuracy".into(),
            series: vec![("attempt 1".into(), vec![(1.0, 0.8), (2.0, 0.9)])],
            threshold: Some(0.92),
        };
        let svg = curves(&c).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        for text in [
            "h-e1: accuracy per step",
            "attempt 1",
            "gate threshold 0.92",
            "<polyline",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
        let empty = Curve {
            series: vec![],
            ..c
        };
        assert!(curves(&empty).is_err());
    }

    fn curve_of(series: Vec<(String, Vec<(f64, f64)>)>, threshold: Option<f64>) -> Curve {
        Curve {
            title: "t".into(),
            x_name: "step".into(),
            metric: "accuracy".into(),
            series,
            threshold,
        }
    }

    #[test]
    fn values_near_the_largest_float_end_in_a_figure_or_an_error_not_a_spin() {
        let huge = vec![
            (1.0, 1.7e308),
            (2.0, -1.7e308),
            (3.0, f64::NAN),
            (1e308, 0.5),
        ];
        let only_huge = curve_of(vec![("a".into(), huge.clone())], Some(1e308));
        let e = curves(&only_huge).unwrap_err();
        assert!(e.contains("no point within the drawable range"), "{e}");
        let mut mixed = huge;
        mixed.extend([(4.0, 0.8), (5.0, 0.9)]);
        let svg = curves(&curve_of(vec![("a".into(), mixed)], Some(-1e300))).unwrap();
        assert!(
            svg.contains("<polyline") && !svg.contains("gate threshold"),
            "{svg}"
        );
        // A constant series at the bound: a zero span still draws.
        let flat = vec![(1.0, 1e12), (1.0, 1e12)];
        assert!(curves(&curve_of(vec![("a".into(), flat)], None)).is_ok());
    }

    #[test]
    fn control_characters_never_reach_the_svg_and_labels_are_short() {
        let label = "attempt 1, \u{1b}[31mred\u{7}\u{202e}evil".to_string();
        let mut c = curve_of(vec![(label, vec![(1.0, 0.5), (2.0, 0.6)])], None);
        c.title = "h-e1\u{0}: acc\u{1b}".into();
        let svg = curves(&c).unwrap();
        assert!(
            !svg.chars()
                .any(|ch| ch.is_control() && ch != '\n' || ch == '\u{202e}'),
            "a control character in the SVG"
        );
        assert!(svg.contains("attempt 1, [31mredevil"), "{svg}");
        let bars = [GateBar {
            label: "h\u{1b}[2J".into(),
            op: ">=\u{7}".into(),
            required: 1e-300,
            measured: Some(1.0),
            passed: Some(true),
            interval: Some((f64::NAN, 1e308)),
            verdict: Some("PASS\u{1b}".into()),
        }];
        let svg = gates(&bars).unwrap();
        assert!(!svg.chars().any(|ch| ch.is_control() && ch != '\n'));
        assert_eq!(
            clean_label(&"x".repeat(500)).chars().count(),
            MAX_LABEL_CHARS + 1
        );
    }

    #[test]
    fn a_long_series_is_thinned_and_its_spike_kept() {
        let mut pts: Vec<(f64, f64)> = (0..300_000).map(|i| (i as f64, 0.5)).collect();
        pts[123_456].1 = 0.99;
        let thinned = thin(&pts, MAX_POINTS);
        assert!(thinned.len() <= MAX_POINTS, "{}", thinned.len());
        assert!(thinned.contains(&(123_456.0, 0.99)));
        let many: Vec<_> = (0..40).map(|i| (format!("s{i}"), pts.clone())).collect();
        let svg = curves(&curve_of(many, None)).unwrap();
        assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
        // Series s0..s11 are drawn (and named in the legend), s12 onwards are not.
        assert!(
            svg.contains("s11") && !svg.contains("s12"),
            "{MAX_SERIES} series"
        );
    }

    #[test]
    fn the_gate_summary_shows_required_and_measured() {
        let bars = [GateBar {
            label: "h-e1 accuracy".into(),
            op: ">=".into(),
            required: 0.92,
            measured: Some(0.934),
            passed: None,
            interval: Some((0.904, 0.964)),
            verdict: Some("INCONCLUSIVE".into()),
        }];
        let svg = gates(&bars).unwrap();
        assert!(
            svg.contains("h-e1 accuracy &gt;= 0.92: measured 0.934 [0.904 to 0.964], inconclusive"),
            "{svg}"
        );
        // The point is amber (undecided), the met side shaded, the threshold dashed.
        assert!(svg.contains("#E6A000") || svg.contains("#e6a000"), "{svg}");
        let missed = GateBar {
            op: "<=".into(),
            measured: Some(0.0342),
            required: 0.02,
            passed: Some(false),
            interval: None,
            verdict: None,
            label: "h-m1 gain".into(),
        };
        let svg = gates(&[missed]).unwrap();
        assert!(
            svg.contains("h-m1 gain &lt;= 0.02: measured 0.0342, missed"),
            "{svg}"
        );
        assert!(svg.contains("#D62728") || svg.contains("#d62728"), "{svg}");
        assert!(gates(&[]).is_err());
    }
}
