//! The PDF says what was checked and nothing else: every number in the demo's `paper.pdf`
//! (read back with pdftotext) is in `06_paper_final.md`, the text the sanitizer and
//! `report check` checked, except the ones youra's own layout adds (page, figure, table and
//! citation numbers), the drawn figures' own text (checked against their data by `report
//! check`) and the bibliography (the retrieved records). `paper.tex` needs no shell escape:
//! no `svg` package, its figures PDFs youra made.

use std::path::Path;
use std::process::Command;

fn pdf_text(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .args([pdf.to_str().expect("utf-8 path"), "-"])
        .output()
        .expect("pdftotext (poppler-utils) must be installed: apt-get install -y poppler-utils");
    assert!(
        out.status.success(),
        "pdftotext failed on {}",
        pdf.display()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The numbers in `text`: runs of digits with inner dots (`0.6137`, `2014`, `10.1371`).
fn numbers(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|t| t.trim_matches('.'))
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_number_in_the_demo_pdf_is_in_the_checked_text() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("demo");
    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--dir", dir.to_str().expect("utf-8")])
        .output()
        .expect("run the demo");
    assert!(
        out.status.success(),
        "demo failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let paper = dir.join("paper");
    let md = std::fs::read_to_string(paper.join("06_paper_final.md")).expect("final paper");
    let text = pdf_text(&paper.join("paper.pdf"));
    // The body, up to the bibliography Typst writes from references.bib.
    let body = text
        .rsplit_once("References")
        .map_or(text.as_str(), |(b, _)| b);
    let figures = youra::paper::figures::load_manifest(&dir).expect("manifest");
    assert!(!figures.is_empty());
    let mut drawn = String::new();
    for f in &figures {
        let pdf = youra::paper::tex::figure_pdf(&f.file).expect("a plain figure name");
        drawn.push_str(&pdf_text(&paper.join(pdf)));
    }
    // The checked text as published: with the intervals youra adds from its own record of
    // the gates and attempts (`paper::with_gate_intervals`), never from the model's text.
    let md_numbers = numbers(&youra::paper::with_gate_intervals(&dir, &md));
    let drawn_numbers = numbers(&drawn);
    let mut unchecked = Vec::new();
    for n in numbers(body) {
        let layout = n.parse::<u32>().is_ok_and(|v| v <= 20);
        if !(layout || md_numbers.contains(&n) || drawn_numbers.contains(&n)) {
            unchecked.push(n);
        }
    }
    assert!(
        unchecked.is_empty(),
        "numbers in paper.pdf that the checked text does not hold: {unchecked:?}\n{body}"
    );
    // The citation's semicolon survives, in the PDF and in paper.tex.
    assert!(md.contains("[@gorman2014ecological]; Horst"), "{md}");
    let flat = body.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("]; Horst"), "{flat}");
    let tex = std::fs::read_to_string(paper.join("paper.tex")).expect("paper.tex");
    assert!(tex.contains("\\cite{gorman2014ecological}; Horst"), "{tex}");
    // paper.tex builds without shell escape: its figures are the PDFs youra made.
    assert!(!tex.contains("svg"), "{tex}");
    for f in &figures {
        let pdf = youra::paper::tex::figure_pdf(&f.file).expect("plain");
        assert!(
            tex.contains(&format!("{{{pdf}}}")),
            "{pdf} not in paper.tex"
        );
        let bytes = std::fs::read(paper.join(&pdf)).expect("figure pdf");
        assert!(bytes.starts_with(b"%PDF-"), "{pdf}");
    }
}
