//! Drawing the paper's figures as SVG with plotters' SVG backend: pure functions from plotted
//! data to SVG text (no files, no fonts: the text is SVG `<text>`, which the PDF's Typst
//! renders with its bundled fonts).

use plotters::prelude::*;

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

/// A range around `lo..hi` with a margin, never empty.
fn padded(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let span = (hi - lo).abs().max(hi.abs() * 0.05).max(1e-6);
    (lo - span * 0.1)..(hi + span * 0.1)
}

/// The metric curves as SVG.
pub fn curves(c: &Curve) -> Result<String, String> {
    let pts = || c.series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts().filter(|(x, y)| x.is_finite() && y.is_finite()) {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        return Err(err("no finite points"));
    }
    if let Some(t) = c.threshold.filter(|t| t.is_finite()) {
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
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(err)?;
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
    let ratio = |b: &GateBar| -> Option<f64> {
        let m = b.measured?;
        (b.required != 0.0 && m.is_finite()).then(|| m / b.required)
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
                    Text::new(b.label.clone(), (x + 0.1, top * 0.97), ("sans-serif", 13)),
                    Text::new(note, (x + 0.1, top * 0.91), ("sans-serif", 13)),
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
