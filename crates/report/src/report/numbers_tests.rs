use super::*;

/// A number as a test states it: source text of the span, value, kind, unit.
type Expected<'a> = (&'a str, f64, Kind, Option<String>);

fn found(text: &str) -> Vec<(String, f64, Kind, Option<String>)> {
    scan(text)
        .into_iter()
        .map(|n| (text[n.start..n.end].to_string(), n.value, n.kind, n.unit))
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
}

#[test]
fn every_form_table() {
    use Kind::*;
    let u = |s: &str| Some(s.to_string());
    #[rustfmt::skip]
    let cases: &[(&str, &[Expected])] = &[
        ("we train 12 models", &[("12", 12.0, Plain, u("models"))]),
        ("accuracy 0.81 overall", &[("0.81", 0.81, Plain, None)]),
        ("a value of .5 here", &[(".5", 0.5, Plain, None)]),
        ("n = 4,493 models", &[("4,493", 4493.0, Plain, u("models"))]),
        ("12,345,678 rows", &[("12,345,678", 12_345_678.0, Plain, None)]),
        ("1,234.5 s", &[("1,234.5", 1234.5, Plain, u("s"))]),
        ("ids 1, 2, 3 and 4", &[("1", 1.0, Plain, None), ("2", 2.0, Plain, None), ("3", 3.0, Plain, None), ("4", 4.0, Plain, None)]),
        ("1,2,3", &[("1", 1.0, Plain, None), ("2", 2.0, Plain, None), ("3", 3.0, Plain, None)]),
        ("96.5% of cards", &[("96.5%", 96.5, Percent, None)]),
        ("96.5 % of cards", &[("96.5 %", 96.5, Percent, None)]),
        ("p = 1.2e-3", &[("1.2e-3", 1.2e-3, Plain, None)]),
        ("p = 1.1E+2", &[("1.1E+2", 110.0, Plain, None)]),
        ("p = 1.2 × 10^-3", &[("1.2 × 10^-3", 1.2e-3, Plain, None)]),
        ("p = 1.2x10^{-3}", &[("1.2x10^{-3}", 1.2e-3, Plain, None)]),
        ("p = 1.2x10⁻³", &[("1.2x10⁻³", 1.2e-3, Plain, None)]),
        ("p = 1.1×10⁻⁸", &[("1.1×10⁻⁸", 1.1e-8, Plain, None)]),
        ("0.81 ± 0.02", &[("0.81", 0.81, Plain, None), ("0.02", 0.02, Spread, None)]),
        ("0.81 +/- 0.02", &[("0.81", 0.81, Plain, None), ("0.02", 0.02, Spread, None)]),
        ("96.5 ± 0.3%", &[("96.5", 96.5, Percent, None), ("0.3%", 0.3, Spread, None)]),
        ("latency 12 ms", &[("12", 12.0, Plain, u("ms"))]),
        ("latency 12ms", &[("12", 12.0, Plain, u("ms"))]),
        ("uses 3.5 GB", &[("3.5", 3.5, Plain, u("GB"))]),
        ("4k steps", &[("4k", 4000.0, Plain, u("steps"))]),
        ("a 1.5M model", &[("1.5M", 1.5e6, Plain, None)]),
        ("a 7B model", &[("7B", 7e9, Plain, None)]),
        ("2x faster", &[("2", 2.0, Plain, u("x"))]),
        ("β = -3.45", &[("-3.45", -3.45, Plain, None)]),
        ("β = −3.45", &[("−3.45", -3.45, Plain, None)]),
        ("(-0.3)", &[("-0.3", -0.3, Plain, None)]),
        ("from 0.1-3.0", &[("0.1", 0.1, Plain, None), ("3.0", 3.0, Plain, None)]),
        ("from 0.1–3.0", &[("0.1", 0.1, Plain, None), ("3.0", 3.0, Plain, None)]),
        ("2048 tokens", &[("2048", 2048.0, Plain, u("tokens"))]),
        ("in 1850 and 2150", &[("1850", 1850.0, Plain, None), ("2150", 2150.0, Plain, None)]),
        ("R² = 0.4247.", &[("0.4247", 0.4247, Plain, None)]),
    ];
    for (text, want) in cases {
        let got = found(text);
        assert_eq!(got.len(), want.len(), "{text:?}: {got:?}");
        for (g, w) in got.iter().zip(want.iter()) {
            assert_eq!(g.0, w.0, "{text:?}");
            assert!(close(g.1, w.1), "{text:?}: {} != {}", g.1, w.1);
            assert_eq!(g.2, w.2, "{text:?}");
            assert_eq!(g.3, w.3, "{text:?}");
        }
    }
}

#[test]
fn not_measurements_table() {
    let cases = [
        "see §3.2 for details",
        "as in § 4",
        "published in 2024, revised 1999",
        "(Smith et al., 2020a)",
        "prior work [12] and [3, 4] and [1-3] and [^2]",
        "hypothesis h-e1 and h-e1-v2 and H1",
        "a ResNet-18 and Llama-2-7B",
        "version 1.2.3 and v2.0",
        "see Table 2, Figure 3b, Fig. 4, Phase 4.5, Phase 6.5.1",
        "Section 3.2 and Appendix 4 and Eq. 7",
        "with Python 3.10 and CUDA 12.1",
        "on 2026-03-17T19:00:00Z",
        "a 5-fold split with 8-bit weights",
        "the 3rd run in 2D on x86",
        "run `lr=0.001` in code",
        "see [the docs](https://example.org/v1/2024/page3) now",
        "at https://x.org/a/12 today",
        "seed 3 crashed",
    ];
    for text in cases {
        assert_eq!(found(text), vec![], "{text:?}");
    }
}

#[test]
fn heading_and_list_markers_are_not_numbers() {
    let text = "## 3.2 Results at 0.91\n1. first 12 ms\n  2) second";
    let got = found(text);
    let spans: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
    assert_eq!(spans, ["0.91", "12"]);
}

#[test]
fn precision_as_written() {
    let n = &scan("0.81")[0];
    assert!(close(n.half_step, 0.005));
    assert_eq!(n.sig_digits, 2);
    let n = &scan("4,493")[0];
    assert!(close(n.half_step, 0.5));
    assert_eq!(n.sig_digits, 4);
    let n = &scan("1.2e-3")[0];
    assert!(close(n.half_step, 0.5e-4));
    assert_eq!(n.sig_digits, 2);
    let n = &scan("0.0012")[0];
    assert_eq!(n.sig_digits, 2);
    let n = &scan("96.5%")[0];
    assert!(close(n.half_step, 0.05));
    assert!(n.percent);
    let n = &scan("4k")[0];
    assert!(close(n.half_step, 500.0));
}

#[test]
fn spans_are_byte_offsets_in_unicode_text() {
    let text = "β_docs = −3.45, p = 1.1×10⁻⁸";
    let got = scan(text);
    assert_eq!(got.len(), 2);
    assert_eq!(&text[got[0].start..got[0].end], "−3.45");
    assert_eq!(&text[got[1].start..got[1].end], "1.1×10⁻⁸");
}
