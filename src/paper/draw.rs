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
pub const MAX_POINTS: usize = 2_000;
/// The most series in one figure (attempts × labels); more are not drawn.
pub const MAX_SERIES: usize = 12;
/// The most characters of a label.
const MAX_LABEL_CHARS: usize = 80;
/// Markers are drawn on a series only this short (beyond, they are a smear and bytes).
const MAX_MARKED: usize = 200;
/// The most gate criteria in the summary.
const MAX_BARS: usize = 40;
/// A measured/required ratio is drawn at most this high (its exact value is written).
const MAX_RATIO: f64 = 10.0;

/// `s` without control, bidi or zero-width characters, at most [`MAX_LABEL_CHARS`] long.
pub fn clean_label(s: &str) -> String {
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
pub fn thin(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
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
}

const SIZE: (u32, u32) = (640, 400);
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
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
pub fn bounded_curve(c: &Curve) -> Curve {
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
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
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
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        for (i, (name, points)) in c.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(err)?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            if points.len() <= MAX_MARKED {
                chart
                    .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(err)?;
            }
        }
        if let Some(t) = c.threshold {
            let dashed = DashedLineSeries::new(vec![(x0, t), (x1, t)], 6, 4, BLACK.stroke_width(1));
            chart
                .draw_series(dashed)
                .map_err(err)?
                .label(format!("gate threshold {t}"))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerRight)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The gate summary as SVG: per criterion, a grey bar for the required value and a green
/// (passed) or red (failed) bar for the measured one, both relative to the required value
/// (so a gain of 0.03 against 0.02 is as visible as an accuracy against 0.92); the exact
/// values are written above each pair.
pub fn gates(bars: &[GateBar]) -> Result<String, String> {
    if bars.is_empty() {
        return Err(err("no gate criteria"));
    }
    let bars = &bars[..bars.len().min(MAX_BARS)];
    // Drawn between 0 and MAX_RATIO whatever was measured: a required 1e-300 must not make
    // an axis of 1e300.
    let ratio = |b: &GateBar| -> Option<f64> {
        let m = b.measured?;
        let r = m / b.required;
        (b.required != 0.0 && r.is_finite()).then(|| r.clamp(0.0, MAX_RATIO))
    };
    let top = bars
        .iter()
        .filter_map(ratio)
        .fold(1.0_f64, f64::max)
        .max(1.0)
        * 1.3;
    let n = bars.len();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption("Gate criteria: required vs measured", ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(10)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..n as f64, 0.0..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("measured / required")
            .draw()
            .map_err(err)?;
        let grey = RGBColor(170, 170, 170);
        let (green, red) = (RGBColor(44, 160, 44), RGBColor(214, 39, 40));
        for (i, b) in bars.iter().enumerate() {
            let x = i as f64;
            chart
                .draw_series([Rectangle::new(
                    [(x + 0.15, 0.0), (x + 0.48, 1.0)],
                    grey.filled(),
                )])
                .map_err(err)?;
            if let Some(r) = ratio(b) {
                let c = if b.passed == Some(false) { red } else { green };
                chart
                    .draw_series([Rectangle::new([(x + 0.52, 0.0), (x + 0.85, r)], c.filled())])
                    .map_err(err)?;
            }
            let v = crate::report::registry::format_value;
            let note = format!(
                "{} {} / {}",
                b.op,
                v(b.required),
                b.measured.map_or("not measured".to_string(), v)
            );
            chart
                .draw_series([
                    Text::new(
                        clean_label(&b.label),
                        (x + 0.1, top * 0.97),
                        ("sans-serif", 13),
                    ),
                    Text::new(
                        clean_label(&note),
                        (x + 0.1, top * 0.91),
                        ("sans-serif", 13),
                    ),
                ])
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
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
            measured: Some(0.9356),
            passed: Some(true),
        }];
        let svg = gates(&bars).unwrap();
        assert!(
            svg.contains("&gt;= 0.92 / 0.9356") || svg.contains(">= 0.92 / 0.9356"),
            "{svg}"
        );
        assert!(svg.contains("h-e1 accuracy"));
        assert!(gates(&[]).is_err());
    }
}
