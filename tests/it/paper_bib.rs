//! `references.bib` from the attacker's side, read by a real `bibtex` (texlive-binaries):
//! a recorded key with a newline and `@preamble{"\immediate\write18{…}"}`, a retrieved title
//! `}}} @misc{forged, title={x}` and one with TeX commands. The `.bbl` lists exactly the
//! retrieved works, and no command of theirs.

use std::process::Command;

use youra::paper::refs::{Record, assign_keys};

fn hostile_records() -> Vec<Record> {
    let mut records = vec![
        Record {
            key: "x\n@preamble{\"\\immediate\\write18{touch pwned}\"}".into(),
            title: "A record whose key was recorded by a stranger".into(),
            authors: vec!["Eve Mallory".into()],
            year: Some(2024),
            ..Record::default()
        },
        Record {
            key: "forger2025".into(),
            title: "}}} @misc{forged, title={x}".into(),
            authors: vec!["A. Forger".into()],
            year: Some(2025),
            venue: Some("arXiv } @article{again,".into()),
            ..Record::default()
        },
        Record {
            key: "commands2023".into(),
            title: "\\immediate\\write18{touch pwned2} \\input{/etc/passwd} 50% & $x$ #1 a_b ~ ^"
                .into(),
            authors: vec!["B. {Brace".into()],
            year: Some(2023),
            url: Some("https://x.org/a}b{c\\d @e".into()),
            ..Record::default()
        },
    ];
    assign_keys(&mut records);
    records
}

/// A style that writes what `plain.bst` writes for our question: the preamble (where an
/// injected `@preamble` would land) and one `\bibitem{key}` with the title per entry.
/// Written here so the test needs only the `bibtex` binary, not a TeX distribution.
const STYLE: &str = r#"ENTRY { title } {} {}
FUNCTION {item} { newline$ "\bibitem{" cite$ * "}" * write$ newline$ title write$ newline$ }
FUNCTION {article} { item }
FUNCTION {misc} { item }
FUNCTION {default.type} { item }
READ
FUNCTION {begin.bib} { preamble$ empty$ 'skip$ { preamble$ write$ newline$ } if$ "\begin{thebibliography}{9}" write$ newline$ }
EXECUTE {begin.bib}
ITERATE {call.type$}
FUNCTION {end.bib} { newline$ "\end{thebibliography}" write$ newline$ }
EXECUTE {end.bib}
"#;

#[test]
fn real_bibtex_sees_exactly_the_retrieved_entries() {
    let records = hostile_records();
    let keys: Vec<&str> = records.iter().map(|r| r.key.as_str()).collect();
    assert!(
        keys.iter()
            .all(|k| youra::paper::citekey::CiteKey::parse(k).is_some()),
        "{keys:?}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let bib = youra::paper::bib::bibtex(&records);
    std::fs::write(dir.path().join("references.bib"), &bib).expect("bib");
    std::fs::write(dir.path().join("youratest.bst"), STYLE).expect("bst");
    std::fs::write(
        dir.path().join("paper.aux"),
        "\\citation{*}\n\\bibstyle{youratest}\n\\bibdata{references}\n",
    )
    .expect("aux");
    let out = Command::new("bibtex")
        .arg("paper")
        .current_dir(dir.path())
        .env("openout_any", "p")
        .output()
        .expect("bibtex (texlive-binaries) must be installed: apt-get install -y texlive-binaries");
    let log = String::from_utf8_lossy(&out.stdout);
    let bbl = std::fs::read_to_string(dir.path().join("paper.bbl")).expect("paper.bbl");
    assert!(
        !log.contains("error message"),
        "bibtex found errors in youra's .bib:\n{log}\n{bib}"
    );
    let items: Vec<&str> = bbl
        .lines()
        .filter_map(|l| l.strip_prefix("\\bibitem{"))
        .map(|l| l.trim_end_matches('}'))
        .collect();
    assert_eq!(
        items, keys,
        "the .bbl lists the retrieved works only:\n{bbl}\n{bib}"
    );
    // The forged entries' words stay in their titles as text; what matters is that no entry
    // and no command of theirs reached the .bbl.
    for banned in [
        "\\write18",
        "\\immediate",
        "\\input",
        "preamble",
        "{forged",
        "{again",
    ] {
        assert!(!bbl.contains(banned), "{banned} reached the .bbl:\n{bbl}");
    }
    assert!(
        bbl.contains("miscforged, title=x"),
        "the title's words are kept as text:\n{bbl}"
    );
    assert!(!dir.path().join("pwned").exists());
}

#[test]
fn the_bib_file_has_one_entry_per_record_and_balanced_braces() {
    let records = hostile_records();
    let bib = youra::paper::bib::bibtex(&records);
    let entries = bib.lines().filter(|l| l.starts_with('@')).count();
    assert_eq!(entries, records.len(), "{bib}");
    let mut depth = 0i64;
    for c in bib.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0, "a brace closes more than it opened:\n{bib}");
    }
    assert_eq!(depth, 0, "{bib}");
    assert_eq!(youra::paper::bib::keys(&bib).len(), records.len());
}
