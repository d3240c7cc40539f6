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
