use super::*;

fn cell_texts(row: &str) -> Vec<&str> {
    cells(row, 0)
        .iter()
        .map(|c| row[c.start..c.end].trim())
        .collect()
}

#[test]
fn cells_table() {
    let cases: &[(&str, &[&str])] = &[
        ("| a | b |", &["a", "b"]),
        ("a | b", &["a", "b"]),
        ("| a | b", &["a", "b"]),
        ("|  | 0.9 |", &["", "0.9"]),
        ("| `x|y` | 2 |", &["`x|y`", "2"]),
        (r"| a \| b | 3 |", &[r"a \| b", "3"]),
        ("|---|:--:|", &["---", ":--:"]),
    ];
    for (row, want) in cases {
        assert_eq!(cell_texts(row), *want, "{row:?}");
    }
}

#[test]
fn delimiter_rows_table() {
    let cases = [
        ("|---|---|", true),
        ("| :--- | ---: | :-: |", true),
        ("---|---", true),
        ("| a | b |", false),
        ("---", false),
        ("| -- x |", false),
        ("", false),
    ];
    for (row, want) in cases {
        assert_eq!(is_delimiter_row(row), want, "{row:?}");
    }
}

#[test]
fn line_kinds() {
    let text = "---\ntitle: x 2\n---\nProse 0.5\n\n| m | acc |\n|---|---|\n| a | 0.9 |\n| b | 0.8 |\n\
                after\n```\n| not | table |\n|---|---|\n```\n<!-- 12\n 13 -->\nend";
    let kinds: Vec<LineKind> = lines(text).into_iter().map(|l| l.kind).collect();
    use LineKind::*;
    assert_eq!(
        kinds,
        vec![
            Code,
            Code,
            Code,
            Prose,
            Prose,
            TableHeader,
            TableDelimiter,
            TableRow { header: 5 },
            TableRow { header: 5 },
            Prose,
            Code,
            Code,
            Code,
            Code,
            Code,
            Code,
            Prose,
        ]
    );
}

#[test]
fn a_pipe_line_without_delimiter_is_prose() {
    let text = "a | b\nc | d\n";
    assert!(lines(text).iter().all(|l| l.kind == LineKind::Prose));
}

#[test]
fn header_and_delimiter_must_agree_on_cells() {
    let text = "| a | b | c |\n|---|---|\n| 1 | 2 | 3 |";
    assert!(lines(text).iter().all(|l| l.kind == LineKind::Prose));
}

#[test]
fn columns_count_characters() {
    let text = "β = 0.5";
    assert_eq!(column(text, 0, text.find('0').unwrap_or(0)), 5);
}

#[test]
fn references_section_until_the_next_heading_of_its_level() {
    let text = "## 7 References\n[1] Smith 2020, vol. 3\n### Web\nx 12\n## Appendix\n0.5\n";
    let kinds: Vec<LineKind> = lines(text).into_iter().map(|l| l.kind).collect();
    use LineKind::*;
    assert_eq!(
        kinds,
        vec![Prose, Reference, Prose, Reference, Prose, Prose, Prose]
    );
}

#[test]
fn heading_levels() {
    let cases = [
        ("## a", Some(2)),
        ("# a", Some(1)),
        ("#a", None),
        ("####### a", None),
        ("a", None),
    ];
    for (line, want) in cases {
        assert_eq!(heading_level(line), want, "{line:?}");
    }
}
