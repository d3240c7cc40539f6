//! The paper's Typst from the attacker's side: model text is data, never code. Arbitrary
//! text compiled by the real Typst path reads back from the PDF (pdftotext) as written; a
//! final paper with Typst code after inline code (`` `acc`.at(…, default: calc.pow(7, 7))
//! ``, a nested `for`) evaluates nothing and does not hang; citation punctuation survives;
//! images come only from the figure manifest; a compile past its deadline or its memory
//! bound ends without a PDF and says why; no Markdown a model writes fails the compile.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use youra::paper::bounded::{Failure, compile_all};
use youra::paper::settings::Bounds;

/// The PDF's text as `pdftotext -raw` reads it (in content order, and without joining a
/// line that ends in `-` to the next, as its default layout does).
fn pdf_text(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .args(["-raw", pdf.to_str().expect("utf-8 path"), "-"])
        .output()
        .expect("pdftotext (poppler-utils) must be installed: apt-get install -y poppler-utils");
    assert!(
        out.status.success(),
        "pdftotext failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn pdf_text_of(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path().join("t.pdf");
    std::fs::write(&p, bytes).expect("write pdf");
    pdf_text(&p)
}

/// Characters an attacker would use, and text the bundled fonts can show.
fn paragraph_text() -> impl Strategy<Value = String> {
    let pool: Vec<char> = "#[]{}().,:;\\$*_`@<>/=-+~'\"%&!?^|abcxyzABZ0179 \néüßαλж—"
        .chars()
        .collect();
    prop::collection::vec(prop::sample::select(pool), 0..80).prop_map(|v| v.into_iter().collect())
}

proptest! {
    // Each case compiles a PDF: few cases.
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn any_text_reads_back_from_the_pdf_as_written(s in paragraph_text()) {
        let dir = tempfile::tempdir().expect("temp dir");
        let markup = youra::paper::typst_md::text_document(&s);
        let pdf = youra::paper::pdf::compile(dir.path(), markup.clone())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{markup}")))?;
        prop_assert_eq!(squeeze(&pdf_text_of(&pdf)), squeeze(&s), "{}", markup);
    }
}

/// Markdown pieces an attacker would combine into a final paper.
fn hostile_markdown() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "word ",
        "`acc`",
        ".at(0, default: calc.pow(7, 7))",
        "#calc.pow(7, 7)",
        "$x$",
        "#",
        "[",
        "]",
        "{",
        "}",
        "(",
        ")",
        ";",
        "\\",
        "*",
        "_",
        "**b**",
        "*e*",
        "~~s~~",
        "\n",
        "\n\n",
        "- ",
        "1. ",
        "> ",
        "# ",
        "## ",
        "---",
        "<b>",
        "@gorman2014ecological",
        "[@gorman2014ecological]; ",
        "[@gorman2014ecological; @x]",
        "[l](https://x.org)",
        "[j](javascript:x)",
        "![c](figures/gates.svg)",
        "![y][r]\n\n[r]: <../x\";.svg>\n",
        "| a | b |\n|---|---|\n| ] | [d] |\n",
        "  \n",
        "```\n#x\n```\n",
        "é",
        "\u{7}",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// No Markdown a model writes makes the paper fail to compile or evaluates anything.
    #[test]
    fn any_markdown_compiles_and_evaluates_nothing(md in hostile_markdown()) {
        let dir = tempfile::tempdir().expect("temp dir");
        let record = youra::paper::refs::Record {
            key: "gorman2014ecological".into(),
            title: "Ecological sexual dimorphism".into(),
            year: Some(2014),
            ..Default::default()
        };
        std::fs::write(dir.path().join("references.bib"), youra::paper::bib::bibtex(&[record]))
            .expect("bib");
        let keys: Vec<youra::paper::citekey::CiteKey> =
            youra::paper::citekey::CiteKey::parse("gorman2014ecological").into_iter().collect();
        let inputs = youra::paper::emit::Inputs { keys: &keys, figures: &[] };
        let markup = youra::paper::typst_md::document(&md, &inputs).text;
        let pdf = youra::paper::pdf::compile(dir.path(), markup.clone())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{md:?}\n{markup}")))?;
        prop_assert!(!pdf_text_of(&pdf).contains("823543"), "{}", markup);
    }
}

/// A run folder with one retrieved work and no figures.
fn run_with_one_reference() -> tempfile::TempDir {
    let run = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        run.path().join("literature.jsonl"),
        "{\"key\":\"gorman2014ecological\",\"title\":\"Ecological sexual dimorphism\",\"authors\":[\"Kristen B. Gorman\"],\"year\":2014}\n",
    )
    .expect("literature");
    run
}

#[test]
fn typst_code_in_the_final_paper_is_text_and_never_runs() {
    let run = run_with_one_reference();
    let md = "# Results\n\nThe accuracy `acc`.at(0, default: calc.pow(7, 7)) and `x`.at(0, default: {for i in range(100000) { for j in range(100000) { } }}) #calc.pow(7, 7) $calc.pow(7,7)$ measured [@gorman2014ecological]; Horst et al. said.\n";
    let started = Instant::now();
    let published = youra::paper::publish(run.path(), md).expect("publish");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(published.no_pdf, None, "{published:?}");
    let text = pdf_text(&run.path().join("paper/paper.pdf"));
    assert!(
        !text.contains("823543"),
        "Typst evaluated model text:\n{text}"
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(".at(0, default: calc.pow(7, 7))"),
        "the code is shown as written: {flat}"
    );
    assert!(
        flat.contains("[1]; Horst et al. said."),
        "the semicolon after a citation survives: {flat}"
    );
    let tex = std::fs::read_to_string(run.path().join("paper/paper.tex")).expect("tex");
    assert!(
        tex.contains("\\cite{gorman2014ecological}; Horst et al. said."),
        "{tex}"
    );
}

#[test]
fn images_come_only_from_the_figure_manifest() {
    let run = run_with_one_reference();
    let md = "# T\n\nSee ![x][r] and ![y](../../etc/passwd).\n\n[r]: <../../etc/x\";#calc.pow(7,7);\".svg>\n";
    let published = youra::paper::publish(run.path(), md).expect("publish");
    assert_eq!(published.no_pdf, None, "{published:?}");
    assert_eq!(published.dropped.len(), 2, "{:?}", published.dropped);
    assert!(
        published.summary().contains("left out"),
        "{}",
        published.summary()
    );
    for f in ["paper/paper.typ", "paper/paper.tex"] {
        let text = std::fs::read_to_string(run.path().join(f)).expect(f);
        assert!(!text.contains("etc/"), "{f}:\n{text}");
        assert!(!text.contains("includesvg"), "{f}");
    }
    let text = pdf_text(&run.path().join("paper/paper.pdf"));
    assert!(text.contains("figure missing: x"), "{text}");
}

#[test]
fn a_compile_past_its_deadline_is_killed_and_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The issue's nested `for`: 10^10 rounds, little memory.
    let spin = "#for i in range(100000) { for j in range(100000) { } }".to_string();
    let before = youra::paper::bounded::killed();
    let started = Instant::now();
    let got = compile_all(
        dir.path(),
        vec![spin],
        Bounds {
            deadline: Duration::from_secs(2),
            memory_bytes: 2 << 30,
        },
    );
    let took = started.elapsed();
    assert_eq!(got, Err(Failure::Deadline(Duration::from_secs(2))));
    assert!(took < Duration::from_secs(10), "{took:?}");
    let killed: Vec<u32> = youra::paper::bounded::killed()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(!killed.is_empty(), "the spinning child was not killed");
    for pid in killed {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "child {pid} is still there"
        );
    }
    assert!(
        Failure::Deadline(Duration::from_secs(2))
            .to_string()
            .starts_with("no PDF: compile took longer than 2 s"),
    );
    // The next compile gets a fresh child.
    let again = compile_all(
        dir.path(),
        vec!["Fine.".into()],
        Bounds {
            deadline: Duration::from_secs(60),
            memory_bytes: 2 << 30,
        },
    )
    .expect("a fresh child");
    assert!(
        matches!(&again[..], [Ok(pdf)] if pdf.starts_with(b"%PDF-")),
        "{again:?}"
    );
}

#[test]
fn a_compile_past_its_memory_bound_ends_without_a_pdf() {
    let dir = tempfile::tempdir().expect("temp dir");
    let hog = "#let a = range(0, 400000000).map(x => (x, x))\n#a.len()".to_string();
    let started = Instant::now();
    let got = compile_all(
        dir.path(),
        vec![hog],
        Bounds {
            deadline: Duration::from_secs(60),
            memory_bytes: 512 << 20,
        },
    );
    assert!(
        started.elapsed() < Duration::from_secs(50),
        "{:?}",
        started.elapsed()
    );
    match got {
        Err(Failure::Died(m)) => assert!(m.contains("signal") || m.contains("memory"), "{m}"),
        Ok(r) => assert!(
            r.iter().all(Result::is_err),
            "a PDF from a 6 GB array: {r:?}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn publish_past_the_deadline_writes_tex_and_no_pdf() {
    let run = run_with_one_reference();
    std::fs::create_dir_all(run.path().join("paper")).expect("paper dir");
    std::fs::write(
        run.path().join("paper/paper.pdf"),
        b"%PDF- an earlier attempt's",
    )
    .expect("old");
    let settings = youra::paper::PaperSettings {
        compile_timeout_s: 0.001,
        ..Default::default()
    };
    // A paper no compile ends within the deadline: another test's child may hold a small
    // paper's layout memoized, and a memoized compile answers within a millisecond. Text
    // no compile has seen, and a good deal of it, takes a fresh layout every time.
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let markdown = (0..400).fold(String::from("# T\n\n"), |mut m, i| {
        m.push_str(&format!(
            "Paragraph {i} of run {nonce}, set anew by every compile.\n\n"
        ));
        m
    });
    let p = youra::paper::publish_with(run.path(), &markdown, &settings).expect("publish");
    assert_eq!(
        p.no_pdf
            .as_deref()
            .map(|s| s.split(" (").next().unwrap_or(s)),
        Some("no PDF: compile took longer than 0.001 s"),
        "{p:?}"
    );
    assert!(
        p.summary()
            .contains("paper/paper.pdf not written: no PDF: compile took longer than 0.001 s")
    );
    assert!(
        !run.path().join("paper/paper.pdf").exists(),
        "a stale PDF passes for this paper"
    );
    assert!(run.path().join("paper/paper.tex").is_file());
    assert!(run.path().join("paper/references.bib").is_file());
}

#[test]
fn paper_settings_are_checked_at_load() {
    for (toml, key) in [
        (
            "[paper]\ncompile_timeout_s = inf\n",
            "paper.compile_timeout_s",
        ),
        (
            "[paper]\ncompile_timeout_s = 0.0\n",
            "paper.compile_timeout_s",
        ),
        (
            "[paper]\ncompile_memory_mb = 1\n",
            "paper.compile_memory_mb",
        ),
    ] {
        let run = tempfile::tempdir().expect("temp dir");
        std::fs::write(run.path().join("youra.toml"), toml).expect("toml");
        let err = youra::config::load(run.path()).expect_err(toml).to_string();
        assert!(err.contains(key), "{toml}: {err}");
    }
    let run = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        run.path().join("youra.toml"),
        "[paper]\ncompile_timeout_s = 30\n",
    )
    .expect("toml");
    let c = youra::config::load(run.path()).expect("valid");
    assert_eq!(c.paper.compile_timeout_s, 30.0);
}

#[test]
fn publishing_follows_no_link_a_handed_run_planted() {
    let run = run_with_one_reference();
    let victim = tempfile::tempdir().expect("temp dir");
    let target = victim.path().join("bashrc");
    std::fs::write(&target, "mine\n").expect("victim file");
    std::fs::create_dir_all(run.path().join("paper")).expect("paper dir");
    std::os::unix::fs::symlink(&target, run.path().join("paper/paper.tex")).expect("link");
    let got = youra::paper::publish(run.path(), "# T\n\nText.\n");
    assert!(got.is_err(), "{got:?}");
    assert_eq!(std::fs::read_to_string(&target).expect("victim"), "mine\n");
}
