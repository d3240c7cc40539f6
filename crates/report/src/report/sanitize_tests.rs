use super::*;
use crate::report::registry::Entry;
use crate::report::verify::DEFAULT_TOLERANCE;

fn registry(values: &[(&str, f64)]) -> Registry {
    Registry {
        entries: values
            .iter()
            .map(|(k, v)| Entry::new((*k).to_string(), *v))
            .collect(),
        ..Registry::empty()
    }
}

/// The sanitized cell text of a one-row table whose body cell is `cell`.
fn sanitized_cell(cell: &str, reg: &Registry) -> String {
    let md = format!("| m | value |\n|---|---|\n| a | {cell} |\n");
    let out = sanitize(&md, reg, DEFAULT_TOLERANCE).text;
    let row = out.lines().nth(2).unwrap_or_default().to_string();
    row.trim_start_matches("| a | ")
        .trim_end_matches(" |")
        .to_string()
}

#[test]
fn tolerance_edges_in_cells() {
    let reg = registry(&[("acc", 0.8), ("n", 1000.0)]);
    let cases = [
        ("0.792", "0.792"), // 0.99×
        ("0.808", "0.808"), // 1.01×
        ("0.7919", "---"),  // just below 0.99×
        ("0.8081", "---"),  // just above 1.01×
        ("990", "990"),     // 0.99×
        ("1010", "1010"),   // 1.01×
        ("989", "---"),
        ("1011", "---"),
    ];
    for (cell, want) in cases {
        assert_eq!(sanitized_cell(cell, &reg), want, "{cell}");
    }
}

#[test]
fn every_form_in_cells() {
    let reg = registry(&[
        ("sparsity", 0.965),
        ("n", 4493.0),
        ("p", 1.1e-8),
        ("acc", 0.8123),
        ("acc_std", 0.02),
        ("beta", -3.45),
        ("latency", 12.0),
        ("tokens", 4000.0),
    ]);
    let cases = [
        ("96.5%", "96.5%"),
        ("97.9%", "---"),
        ("4,493", "4,493"),
        ("4,600", "---"),
        ("1.1×10⁻⁸", "1.1×10⁻⁸"),
        ("1.1e-8", "1.1e-8"),
        ("2.1e-8", "---"),
        ("0.81", "0.81"), // rounding as written
        ("0.81 ± 0.02", "0.81 ± 0.02"),
        ("0.81 ± 0.05", "0.81 ± ---"),
        ("0.95 ± 0.02", "--- ± 0.02"),
        ("**0.95**", "---"),
        ("**0.81**", "**0.81**"),
        ("−3.45", "−3.45"),
        ("3.45", "---"),
        ("12 ms", "12 ms"),
        ("15 ms", "---"),
        ("4k", "4k"),
        ("ResNet-18", "ResNet-18"),
        ("see Table 2", "see Table 2"),
        ("0.95 (best)", "--- (best)"),
        ("—", "—"),
    ];
    for (cell, want) in cases {
        assert_eq!(sanitized_cell(cell, &reg), want, "{cell}");
    }
}

#[test]
fn percent_column_headers_compare_as_percent() {
    let reg = registry(&[("sparsity", 0.965)]);
    let md = "| m | Sparsity (%) | raw |\n|---|---|---|\n| a | 96.5 | 96.5 |\n";
    let out = sanitize(md, &reg, DEFAULT_TOLERANCE);
    assert_eq!(out.text.lines().nth(2), Some("| a | 96.5 | --- |"));
    assert_eq!(out.replacements.len(), 1);
    assert_eq!(out.replacements[0].column, 14);
}

#[test]
fn header_cells_are_labels_and_prose_is_listed_not_replaced() {
    let reg = registry(&[("acc", 0.91)]);
    let md = "# Results\n\nWe reach 0.91 and 0.5 on 12 seeds.\n\n| k=5 | 0.3 |\n|---|---|\n| 0.91 | 0.7 |\n";
    let out = sanitize(md, &reg, DEFAULT_TOLERANCE);
    assert!(out.text.contains("We reach 0.91 and 0.5 on 12 seeds."));
    assert!(out.text.contains("| k=5 | 0.3 |"));
    assert!(out.text.contains("| 0.91 | --- |"));
    let prose: Vec<(usize, usize, &str)> = out
        .unverified_prose
        .iter()
        .map(|u| (u.line, u.column, u.number.as_str()))
        .collect();
    assert_eq!(prose, [(3, 19, "0.5"), (3, 26, "12")]);
    assert_eq!(out.table_numbers, 2);
    assert_eq!(out.prose_numbers, 3);
    let r = &out.replacements[0];
    assert_eq!(
        (r.line, r.column, r.original.as_str(), r.whole_cell),
        (7, 10, "0.7", true)
    );
    assert!(r.reason.contains("nearest acc = 0.91"), "{}", r.reason);
    assert_eq!(r.nearest.as_ref().map(|n| n.key.as_str()), Some("acc"));
}

#[test]
fn an_empty_registry_replaces_every_table_number() {
    let md = "| a | b |\n|---|---|\n| 1.5 | 2 |\n";
    let out = sanitize(md, &Registry::empty(), DEFAULT_TOLERANCE);
    assert_eq!(out.text, "| a | b |\n|---|---|\n| --- | --- |\n");
    assert!(out.replacements[0].reason.contains("registry is empty"));
}

#[test]
fn code_and_references_are_not_checked() {
    let md = "```\n| a | b |\n|---|---|\n| 1.5 | 2 |\n```\n## References\n[1] A. B. 2019. vol 12, pp. 3-4.\n";
    let out = sanitize(md, &Registry::empty(), DEFAULT_TOLERANCE);
    assert_eq!(out.text, md);
    assert!(
        out.unverified_prose.is_empty(),
        "{:?}",
        out.unverified_prose
    );
}

#[test]
fn context_is_cut_on_char_boundaries() {
    let line = "ééééééééééééééééééééééééééééééé 0.5 ééééééééééééééééééééééééééééééééééééé";
    let start = line.find('0').unwrap_or(0);
    let c = context(line, start, start + 3);
    assert!(
        c.starts_with('…') && c.ends_with('…') && c.contains("0.5"),
        "{c}"
    );
}

/// Two hypotheses that measured accuracy, and what the run declared.
fn two_hypotheses() -> Registry {
    let mut reg = registry(&[
        ("h-e1.results.metrics.accuracy", 0.9123),
        ("h-e2.results.metrics.accuracy", 0.8532),
        ("h-e1.results.metrics.f1", 0.79),
    ]);
    reg.entries.extend([
        Entry::new("h-e1.gate.criteria.0.value".into(), 0.9).declared(),
        Entry::new("h-e1.config.seed".into(), 42.0).declared(),
        Entry::new("data.penguins_csv.rows".into(), 344.0).declared(),
    ]);
    reg
}

#[test]
fn swapped_accuracies_are_wrong_claims_in_tables_and_prose() {
    let reg = two_hypotheses();
    let md = "h-e1 reaches an accuracy of 0.85, while h-e2 reaches 0.91.\n\n\
              | Sub-hypothesis | Accuracy |\n|---|---|\n| h-e1 | 0.85 |\n| h-e2 | 0.91 |\n";
    let out = sanitize(md, &reg, DEFAULT_TOLERANCE);
    assert_eq!(out.text.lines().nth(4), Some("| h-e1 | --- |"));
    assert_eq!(out.text.lines().nth(5), Some("| h-e2 | --- |"));
    let wrong: Vec<(usize, usize, &str, &str)> = out
        .replacements
        .iter()
        .map(|r| {
            (
                r.line,
                r.column,
                r.original.as_str(),
                r.wrong_claim.as_ref(),
            )
        })
        .chain(
            out.unverified_prose
                .iter()
                .map(|u| (u.line, u.column, u.number.as_str(), u.wrong_claim.as_ref())),
        )
        .map(|(l, c, n, wc)| (l, c, n, wc.map_or("", |w| w.states.key.as_str())))
        .collect();
    assert_eq!(
        wrong,
        [
            (5, 10, "0.85", "h-e2.results.metrics.accuracy"),
            (6, 10, "0.91", "h-e1.results.metrics.accuracy"),
            (1, 29, "0.85", "h-e2.results.metrics.accuracy"),
            (1, 54, "0.91", "h-e1.results.metrics.accuracy"),
        ]
    );
    let wc = out.replacements[0]
        .wrong_claim
        .as_ref()
        .expect("a wrong claim");
    assert_eq!(wc.claim, "h-e1 · accuracy");
    assert_eq!(wc.expected.key, "h-e1.results.metrics.accuracy");
    assert!(out.replacements[0].reason.starts_with("wrong claim: its context names h-e1 · accuracy, measured as h-e1.results.metrics.accuracy = 0.9123"), "{}", out.replacements[0].reason);
    // Stated the right way round, every number is bound and passes.
    let right = "h-e1 reaches an accuracy of 0.91, while h-e2 reaches 0.85.\n\n\
                 | Sub-hypothesis | Accuracy |\n|---|---|\n| h-e1 | 0.91 |\n| h-e2 | 0.85 |\n";
    let out = sanitize(right, &reg, DEFAULT_TOLERANCE);
    assert!(
        out.replacements.is_empty() && out.unverified_prose.is_empty(),
        "{out:?}"
    );
    assert_eq!(out.bound.len(), 4);
    assert!(out.unbound.is_empty());
}

#[test]
fn every_form_passes_against_its_own_claim() {
    let reg = registry(&[
        ("h-e1.results.sparsity", 0.965),
        ("h-e2.results.sparsity_pct", 92.5),
        ("h-e1.results.n_models", 4493.0),
        ("h-e2.results.n_models", 3749.0),
        ("h-e1.results.p_value", 1.1e-8),
        ("h-e2.results.p_value", 1.4e-8),
        ("h-e1.results.accuracy", 0.8123),
        ("h-e1.results.accuracy_std", 0.02),
        ("h-e2.results.accuracy", 0.7012),
        ("h-e1.results.beta", -3.45),
        ("h-e2.results.beta", -2.75),
        ("h-e1.results.latency_ms", 12.0),
        ("h-e2.results.latency_ms", 15.0),
        ("h-e1.results.tokens", 4000.0),
        ("h-e2.results.tokens", 5000.0),
    ]);
    // (metric column, h-e1's cell as written, h-e2's cell as written); the two values are
    // of a size, so that swapped they read as each other's (see `ground`).
    let cases = [
        ("sparsity", "96.5%", "0.925"), // percent vs fraction, fraction vs a _pct entry
        ("n models", "4,493", "3.75k"), // thousands separators, multiplier
        ("p value", "1.1×10⁻⁸", "1.4e-8"), // scientific notation
        ("accuracy", "0.81 ± 0.02", "0.70"), // rounding as written, a spread
        ("beta", "−3.45", "-2.75"),     // the sign
        ("latency", "12 ms", "15 ms"),  // units
        ("tokens", "4.0k", "5,000"),
    ];
    for (metric, e1, e2) in cases {
        let md = format!("| | {metric} |\n|---|---|\n| h-e1 | {e1} |\n| h-e2 | {e2} |\n");
        let out = sanitize(&md, &reg, DEFAULT_TOLERANCE);
        assert_eq!(out.text, md, "{metric}: {:?}", out.replacements);
        assert!(out.unbound.is_empty(), "{metric}: {:?}", out.unbound);
        // Swapped, each form is a wrong claim.
        let swapped = format!("| | {metric} |\n|---|---|\n| h-e1 | {e2} |\n| h-e2 | {e1} |\n");
        let out = sanitize(&swapped, &reg, DEFAULT_TOLERANCE);
        let wrong = out
            .replacements
            .iter()
            .filter(|r| r.wrong_claim.is_some())
            .count();
        assert!(wrong >= 2, "{metric} swapped: {:?}", out.replacements);
    }
}

#[test]
fn declared_values_pass_as_declared() {
    let reg = two_hypotheses();
    let md = "h-e1's accuracy gate is 0.90 with seed 42 on the 344 penguins.\n\n\
              | h | accuracy | threshold |\n|---|---|---|\n| h-e1 | 0.91 | 0.9 |\n";
    let out = sanitize(md, &reg, DEFAULT_TOLERANCE);
    assert!(out.replacements.is_empty(), "{:?}", out.replacements);
    assert!(
        out.unverified_prose.is_empty(),
        "{:?}",
        out.unverified_prose
    );
    assert_eq!(out.declared_numbers, 3, "0.90, 344 and the table's 0.9");
    assert_eq!(out.bound.len(), 1);
    // A declared value never verifies a measurement: 0.9 is not h-e2's accuracy either.
    let md = "| h | accuracy |\n|---|---|\n| h-e2 | 0.80 |\n";
    assert_eq!(sanitize(md, &reg, DEFAULT_TOLERANCE).replacements.len(), 1);
}

#[test]
fn a_number_whose_context_names_no_claim_is_unbound() {
    let reg = two_hypotheses();
    let md = "Overall we see 0.85. For h-e1, a count of 4.\n";
    let out = sanitize(md, &reg, DEFAULT_TOLERANCE);
    let unbound: Vec<(&str, &str)> = out
        .unbound
        .iter()
        .map(|u| (u.number.as_str(), u.key.as_str()))
        .collect();
    assert_eq!(unbound, [("0.85", "h-e2.results.metrics.accuracy")]);
    // 4 matches nothing: unverified, with h-e1's nearest value.
    assert_eq!(out.unverified_prose.len(), 1);
    assert_eq!(
        out.unverified_prose[0]
            .nearest
            .as_ref()
            .map(|n| n.key.as_str()),
        Some("h-e1.results.metrics.accuracy")
    );
}

#[test]
fn a_dash_where_the_run_measured_the_claim_is_a_missing_value() {
    let reg = registry(&[
        ("h-e1.attempt4.results.metrics.accuracy", 0.7746),
        ("h-e1.results.metrics.accuracy", 0.9356),
        ("h-m1.results.metrics.gain", 0.0323),
    ]);
    let md = "| Sub-hypothesis | Metric | Value |\n|---|---|---|\n\
              | h-e1 (flipper length) | accuracy | --- |\n\
              | h-e1 (standardized) | accuracy | 0.9356 |\n\
              | h-x9 (never run) | f1 | --- |\n";
    let r = sanitize(md, &reg, DEFAULT_TOLERANCE);
    assert_eq!(r.missing.len(), 1, "{:?}", r.missing);
    let m = &r.missing[0];
    assert_eq!(m.line, 3);
    assert!(m.claim.contains("h-e1"), "{m:?}");
    assert!(m.values.contains(&0.7746), "{m:?}");
    let f = crate::report::findings::from_sanitize(&r);
    let missing: Vec<_> = f
        .iter()
        .filter(|f| f.kind == crate::report::findings::FindingKind::MissingValue)
        .collect();
    assert_eq!(missing.len(), 1);
    assert!(crate::report::findings::has_major(&f));
    // A cell of another row that merely holds `---` text inside a number is not one.
    let plain = sanitize(
        "| m | v |\n|---|---|\n| a | 0.9356 |\n",
        &reg,
        DEFAULT_TOLERANCE,
    );
    assert!(plain.missing.is_empty());
}
