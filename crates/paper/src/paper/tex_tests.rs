//! `paper.tex`'s emitter from the attacker's side: arbitrary text comes out as the same
//! literal text with no control sequence of its own, and a whole converted paper holds only
//! the control sequences youra writes, with balanced braces.

use proptest::prelude::*;

use super::*;
use crate::paper::citekey::CiteKey;

/// Every control sequence in `tex` (`\name` or `\<char>`), and whether its unescaped
/// braces balance (never closing below zero).
fn scan(tex: &str) -> (Vec<String>, bool) {
    let chars: Vec<char> = tex.chars().collect();
    let (mut seqs, mut depth, mut ok) = (Vec::new(), 0i64, true);
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let name: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                if name.is_empty() {
                    seqs.push(chars.get(i + 1).map(|c| c.to_string()).unwrap_or_default());
                    i += 2;
                } else {
                    i += 1 + name.len();
                    seqs.push(name);
                }
                continue;
            }
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                ok &= depth >= 0;
            }
            _ => {}
        }
        i += 1;
    }
    (seqs, ok && depth == 0)
}

/// The text [`text`] wrote, decoded: what a reader of the typeset page sees.
fn decode(tex: &str) -> String {
    let mut out = tex.to_string();
    for (esc, c) in [
        ("\\textbackslash{}", "\\"),
        ("\\textasciitilde{}", "~"),
        ("\\textasciicircum{}", "^"),
        ("\\textless{}", "<"),
        ("\\textgreater{}", ">"),
        ("{[}", "["),
        ("{]}", "]"),
        ("-{}", "-"),
    ] {
        out = out.replace(esc, c);
    }
    for c in ['{', '}', '$', '&', '#', '%', '_'] {
        out = out.replace(&format!("\\{c}"), &c.to_string());
    }
    out
}

#[test]
fn text_is_escaped_and_dashes_stay() {
    let cases = [
        ("50% & $5 #1 a_b", "50\\% \\& \\$5 \\#1 a\\_b"),
        ("---", "-{}-{}-{}"),
        ("\\input{x}", "\\textbackslash{}input\\{x\\}"),
        (
            "[2cm] ^^5c",
            "{[}2cm{]} \\textasciicircum{}\\textasciicircum{}5c",
        ),
    ];
    for (raw, want) in cases {
        assert_eq!(text(raw), want, "{raw}");
    }
}

#[test]
fn a_paper_becomes_latex_with_only_drawn_figures() {
    let md = "# T\n\nAs [@g2014]; me@x.org.\n\n| A | B |\n|---|---|\n| h-e1 | --- |\n\n![Cap](figures/gates.svg)\n\n![x][r]\n\n[r]: <../../etc/x\";.svg>\n";
    let keys: Vec<CiteKey> = CiteKey::parse("g2014").into_iter().collect();
    let figures = vec!["figures/gates.svg".to_string()];
    let e = document(
        md,
        &Inputs {
            keys: &keys,
            figures: &figures,
        },
    );
    let tex = &e.text;
    assert!(tex.contains("\\title{T}"), "{tex}");
    assert!(tex.contains("As \\cite{g2014}; me@x.org."), "{tex}");
    assert!(tex.contains("h-{}e1 & -{}-{}-{} \\\\"), "{tex}");
    assert!(
        tex.contains("\\includegraphics[width=0.85\\linewidth]{figures/gates.pdf}"),
        "{tex}"
    );
    assert!(!tex.contains("svg"), "no svg package, no SVG: {tex}");
    assert!(!tex.contains("etc/x"), "{tex}");
    assert_eq!(e.dropped.len(), 1, "{:?}", e.dropped);
    assert!(tex.contains("\\bibliography{references}"));
}

#[test]
fn figure_pdfs_have_plain_names_only() {
    assert_eq!(
        figure_pdf("figures/h-e1_metric.svg").as_deref(),
        Some("figures/h-e1_metric.pdf")
    );
    for bad in [
        "figures/a b.svg",
        "../x.svg",
        "figures/x}.svg",
        "x.png",
        ".svg",
    ] {
        assert_eq!(figure_pdf(bad), None, "{bad}");
    }
}

/// The control sequences a converted paper may hold: youra's own.
const YOURA_WRITES: &[&str] = &[
    "documentclass",
    "usepackage",
    "begin",
    "end",
    "title",
    "date",
    "maketitle",
    "section",
    "subsection",
    "paragraph",
    "emph",
    "textbf",
    "texttt",
    "item",
    "centering",
    "includegraphics",
    "linewidth",
    "caption",
    "toprule",
    "midrule",
    "bottomrule",
    "newline",
    "cite",
    "nocite",
    "bibliographystyle",
    "bibliography",
    "textbackslash",
    "textasciitilde",
    "textasciicircum",
    "textless",
    "textgreater",
    "{",
    "}",
    "$",
    "&",
    "#",
    "%",
    "_",
    "\\",
];

/// Markdown pieces an attacker would combine.
fn hostile_markdown() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "word ",
        "\\input{/etc/passwd}",
        "\\write18{touch x}",
        "\\immediate",
        "\\",
        "{",
        "}",
        "}}}",
        "#",
        "$",
        "%",
        "&",
        "_",
        "^",
        "^^5c",
        "~",
        "<",
        ">",
        "[",
        "]",
        "[2cm]",
        "*",
        "`",
        "`code\\x`",
        "\n",
        "\n\n",
        "- ",
        "1. ",
        "> ",
        "# ",
        "## ",
        "---",
        "@g2014",
        "[@g2014; @x]",
        "![c](figures/gates.svg)",
        "![y][r]\n\n[r]: <../x.svg>\n",
        "| a | b |\n|---|---|\n| \\c | [d] |\n",
        "  \n",
        "é",
        "\u{7}",
        "\\\\[3cm]",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn text_has_no_control_sequence_of_its_own(s in "\\PC*") {
        let out = text(&s);
        let (seqs, balanced) = scan(&out);
        prop_assert!(balanced, "{out}");
        for q in &seqs {
            prop_assert!(
                TEXT_ESCAPES.iter().any(|e| e.trim_start_matches('\\').trim_end_matches("{}") == q),
                "{q} in {out}"
            );
        }
        // Every special is escaped: nothing but the escapes' own braces is left.
        let mut bare = out.clone();
        for e in TEXT_ESCAPES.iter().chain(["-{}"].iter()) {
            bare = bare.replace(e, "");
        }
        prop_assert!(!bare.contains(['\\', '{', '}', '$', '&', '#', '%', '_', '^', '~', '[', ']']), "{bare}");
        let want: String = s.chars().filter(|c| !c.is_control() || *c == '\n').collect();
        prop_assert_eq!(decode(&out), want);
    }

    #[test]
    fn a_converted_paper_holds_only_youras_control_sequences(md in hostile_markdown()) {
        let keys: Vec<CiteKey> = CiteKey::parse("g2014").into_iter().collect();
        let figures = vec!["figures/gates.svg".to_string()];
        let e = document(&md, &Inputs { keys: &keys, figures: &figures });
        let (seqs, balanced) = scan(&e.text);
        prop_assert!(balanced, "unbalanced braces:\n{}", e.text);
        for q in &seqs {
            prop_assert!(YOURA_WRITES.contains(&q.as_str()), "\\{q} in\n{}", e.text);
        }
        prop_assert!(!e.text.contains("../x.svg"), "{}", e.text);
    }
}
