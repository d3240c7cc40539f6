//! The paper as the demo hands it over: figures drawn from the measured files (recorded
//! with their sha256 and checked), references from the recorded literature search, and a
//! PDF compiled in-process whose text (read back with `pdftotext` from poppler-utils) holds
//! the title, every table value and every reference's title, with a figure's SVG embedded.

use std::path::Path;
use std::process::Command;

fn youra(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .output()
        .expect("run youra")
}

/// The PDF's text as `pdftotext` reads it, spaces folded so line breaks do not matter.
fn pdf_text(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .args(["-layout", pdf.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils) must be installed: apt-get install -y poppler-utils");
    assert!(
        out.status.success(),
        "pdftotext failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `text` holds `value`'s words in order, each within a row's width of the last: a
/// cell Typst wrapped comes out of the PDF interleaved with its row's other cells.
fn wrapped_in(text: &str, value: &str) -> bool {
    if text.contains(value) {
        return true;
    }
    let words: Vec<&str> = value.split(' ').collect();
    text.match_indices(words[0]).any(|(start, first)| {
        let mut at = start + first.len();
        words[1..].iter().all(|w| {
            let mut end = text.len().min(at + 160);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let window = &text[at..end];
            match window.find(w) {
                Some(i) => {
                    at += i + w.len();
                    true
                }
                None => false,
            }
        })
    })
}

/// The table cells of a Markdown paper (header and separator rows excluded).
fn table_values(md: &str) -> Vec<String> {
    md.lines()
        .filter(|l| l.starts_with('|') && !l.contains("---|"))
        .skip(1)
        .flat_map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|c| !c.is_empty())
        .collect()
}

fn check_paper(dir: &Path) {
    let paper = dir.join("paper");
    let md = std::fs::read_to_string(paper.join("06_paper_final.md")).expect("final paper");
    // Figures: drawn, linked in the Markdown, recorded with their data.
    let figures = youra::paper::figures::load_manifest(dir).expect("manifest");
    assert!(
        figures.len() >= 2,
        "a curve and the gate summary at least: {figures:?}"
    );
    assert!(
        figures.iter().any(|f| f.file == "figures/gates.svg"),
        "{figures:?}"
    );
    for f in &figures {
        assert!(
            md.contains(&format!("]({})", f.file)),
            "{} is not linked in the paper",
            f.file
        );
        assert!(paper.join(&f.file).is_file(), "{} was not written", f.file);
        assert!(!f.sources.is_empty(), "{} names its data", f.file);
        for s in &f.sources {
            let bytes = std::fs::read(dir.join(&s.path)).expect("the plotted file exists");
            assert_eq!(
                youra::paper::figures::sha256_hex(&bytes),
                s.sha256,
                "{}",
                s.path
            );
        }
    }
    // References: the recorded search, each cited by key, the bib exactly those records.
    let records = youra::paper::records(dir).expect("literature.jsonl");
    assert_eq!(records.len(), 4, "{records:?}");
    let bib = std::fs::read_to_string(paper.join("references.bib")).expect("bib");
    let keys: Vec<String> = records.iter().map(|r| r.key.clone()).collect();
    assert_eq!(youra::paper::bib::keys(&bib), keys);
    for k in &keys {
        assert!(md.contains(&format!("@{k}")), "the paper cites {k}");
    }
    assert!(
        youra::paper::check(dir, &md).is_empty(),
        "{:?}",
        youra::paper::check(dir, &md)
    );
    // The PDF: non-empty, with the title, every table value and every reference's title.
    let pdf = paper.join("paper.pdf");
    let bytes = std::fs::read(&pdf).expect("paper.pdf");
    assert!(
        bytes.starts_with(b"%PDF-") && bytes.len() > 10_000,
        "{} bytes",
        bytes.len()
    );
    let text = pdf_text(&pdf);
    let title = md.lines().next().unwrap().trim_start_matches("# ");
    assert!(
        text.contains(&fold(title)),
        "title missing from the PDF text: {text}"
    );
    // Every reference prints its year and DOI: the `@misc` data set too (issue 43: Typst's
    // IEEE style printed a `@misc` with a `url` as a web page, without either).
    for r in &records {
        let (year, doi) = (r.year.expect("a year"), r.doi.as_deref().expect("a DOI"));
        let doi = youra::paper::refs::normalize_doi(doi);
        let at = text.find(&fold(&r.title)).expect("the reference's title");
        let entry: String = text[at..]
            .chars()
            .take(260)
            .collect::<String>()
            .replace(' ', "");
        assert!(
            entry.contains(&year.to_string()) && entry.contains(&doi.replace(' ', "")),
            "reference {:?} lacks its year or DOI in the PDF: {entry}",
            r.title
        );
    }
    let values = table_values(&md);
    assert!(values.len() > 10, "{values:?}");
    for v in values {
        assert!(
            wrapped_in(&text, &fold(&v)),
            "table value {v:?} missing from the PDF text"
        );
    }
    for r in &records {
        assert!(
            text.contains(&fold(&r.title)),
            "reference {:?} missing from the PDF text",
            r.title
        );
    }
    // A figure's SVG is embedded: the gate summary's caption and its drawn text.
    assert!(
        text.contains("Gate criteria: each measured value against its threshold"),
        "the gate figure's own text is in the PDF"
    );
    // The LaTeX twin: escaped, cites the keys.
    let tex = std::fs::read_to_string(paper.join("paper.tex")).expect("paper.tex");
    assert!(
        tex.contains("\\cite{gorman2014ecological}") && tex.contains("\\bibliography{references}")
    );
}

#[test]
fn the_demo_ends_with_figures_references_and_a_pdf() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = youra(&["demo", "--headless", "--dir", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "demo failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    check_paper(&dir);
    let check = youra(&["report", "check", dir.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "report check: {}",
        String::from_utf8_lossy(&check.stdout)
    );

    // A plotted file that changes after the figure was drawn fails the check, as does an
    // invented citation.
    let final_md = dir.join("paper/06_paper_final.md");
    let md = std::fs::read_to_string(&final_md).unwrap();
    let forged = md.replacen(
        "[@fisher1936use]",
        "[@fisher1936use; @smith2023penguins]",
        1,
    );
    assert_ne!(forged, md);
    std::fs::write(&final_md, &forged).unwrap();
    let check = youra(&["report", "check", dir.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(1), "{said}");
    assert!(
        said.contains("hallucinated reference: @smith2023penguins"),
        "{said}"
    );
    std::fs::write(&final_md, &md).unwrap();
    let figures = youra::paper::figures::load_manifest(&dir).unwrap();
    let plotted = dir.join(&figures[0].sources[0].path);
    let mut data = std::fs::read_to_string(&plotted).unwrap();
    data.push_str("{\"step\": 99, \"accuracy\": 0.99}\n");
    std::fs::write(&plotted, data).unwrap();
    let check = youra(&["report", "check", dir.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(1), "{said}");
    assert!(said.contains("changed since it was drawn"), "{said}");
}

#[test]
fn model_text_stays_text_and_a_sanitized_number_stays_three_hyphens() {
    let tmp = tempfile::tempdir().unwrap();
    let md = "# Escapes #set and $x$\n\n## Results\n\nA reply wrote #import \"evil.typ\", @nobody, <label> and 50% // not a comment.\n\n| Sub-hypothesis | Value |\n|---|---|\n| h-e1 | --- |\n";
    let p = youra::paper::publish(tmp.path(), md)
        .expect("compiles: nothing a model wrote is Typst code");
    assert_eq!(p.references, 0);
    let text = pdf_text(&tmp.path().join("paper/paper.pdf"));
    for literal in [
        "Escapes #set and $x$",
        "#import",
        "@nobody",
        "<label>",
        "50% // not a comment",
        "h-e1 ---",
    ] {
        assert!(text.contains(literal), "{literal:?} missing from: {text}");
    }
    assert!(!text.contains('\u{2014}'), "--- became an em dash: {text}");
    let tex = std::fs::read_to_string(tmp.path().join("paper/paper.tex")).unwrap();
    assert!(tex.contains("h-{}e1 & -{}-{}-{} \\\\"), "{tex}");
    assert!(tex.contains("\\#import"), "{tex}");

    // A link to a figure that is not in paper/ (or leads out of it) is not embedded, and the
    // PDF still compiles; the checker reports it.
    let md = "# T\n\n![Forged](figures/none.svg)\n\n![Secrets](../../../../etc/passwd)\n";
    youra::paper::publish(tmp.path(), md).expect("compiles without the missing figures");
    let text = pdf_text(&tmp.path().join("paper/paper.pdf"));
    assert!(
        text.contains("(figure missing: Forged)") && text.contains("(figure missing: Secrets)"),
        "{text}"
    );
    let found = youra::paper::check(tmp.path(), md);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0]
            .message
            .contains("not a figure drawn from the run's data"),
        "{found:?}"
    );
}
