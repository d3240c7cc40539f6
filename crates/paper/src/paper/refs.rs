//! The works a run retrieved: one [`Record`] per paper a literature search returned, kept in
//! the run as `literature.jsonl` (one JSON object a line). The paper may cite only these, by
//! [`Record::key`]; `paper/references.bib` is written from them and from nothing else, so a
//! reference cannot be invented between the search and the PDF.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::citekey::CiteKey;

/// Where the run keeps every record its literature search retrieved.
pub const LITERATURE_FILE: &str = "literature.jsonl";

/// One retrieved work, as the search service described it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Record {
    /// The citation key the paper uses (`gorman2014ecological`): unique within the run.
    #[serde(default)]
    pub key: String,
    pub title: String,
    #[serde(default)]
    pub authors: Vec<String>,
    #[serde(default)]
    pub year: Option<u32>,
    #[serde(default)]
    pub venue: Option<String>,
    /// Lower-cased, without a `https://doi.org/` prefix.
    #[serde(default)]
    pub doi: Option<String>,
    /// The arXiv id without version or prefix (`2101.00001`).
    #[serde(default)]
    pub arxiv: Option<String>,
    #[serde(default, rename = "abstract")]
    pub abstract_text: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    /// The service it came from (`Semantic Scholar`, `arXiv`, `OpenAlex`), or `recorded …`.
    #[serde(default)]
    pub source: String,
}

/// A DOI as compared: lower case, no resolver prefix, no trailing punctuation.
pub fn normalize_doi(doi: &str) -> String {
    let d = doi.trim().to_ascii_lowercase();
    let d = [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "doi:",
    ]
    .iter()
    .fold(d, |d, p| d.strip_prefix(p).map(str::to_string).unwrap_or(d));
    d.trim_end_matches(['.', ',', ';', ')']).to_string()
}

/// An arXiv id as compared: no `arXiv:` prefix, no version suffix.
pub fn normalize_arxiv(id: &str) -> String {
    let id = id.trim();
    let id = id
        .rsplit("/abs/")
        .next()
        .unwrap_or(id)
        .trim_start_matches("arXiv:")
        .trim_start_matches("arxiv:");
    match id.rfind('v') {
        Some(i) if i > 0 && id[i + 1..].chars().all(|c| c.is_ascii_digit()) && i + 1 < id.len() => {
            id[..i].to_string()
        }
        _ => id.to_string(),
    }
}

/// The key a record is cited by: first author's family name, year, first long title word
/// (`gorman2014ecological`), ASCII letters and digits only.
fn base_key(r: &Record) -> String {
    let ascii = |s: &str| {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase()
    };
    let family = r
        .authors
        .first()
        .and_then(|a| a.split_whitespace().last())
        .map(ascii)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "anon".into());
    let word = r
        .title
        .split_whitespace()
        .map(ascii)
        .find(|w| w.len() > 3 && !["with", "from", "into", "over", "under"].contains(&w.as_str()))
        .unwrap_or_default();
    let year = r.year.map(|y| y.to_string()).unwrap_or_default();
    format!("{family}{year}{word}")
}

/// Give every record without a valid key a unique one; records that already have a valid
/// [`CiteKey`] keep it (a recorded search's keys are part of the recording). A recorded key
/// outside the alphabet (a newline and `@preamble{…}`, a brace) is refused and replaced by
/// the derived one, so it never reaches the `.bib`. Duplicates get `b`, `c`… appended.
pub fn assign_keys(records: &mut [Record]) {
    let mut used: BTreeSet<String> = BTreeSet::new();
    for r in records.iter_mut() {
        let want = match CiteKey::parse(r.key.trim()) {
            Some(k) => k.as_str().to_string(),
            None => CiteKey::sanitize(&base_key(r))
                .map_or_else(|| "anon".to_string(), |k| k.as_str().to_string()),
        };
        let mut key = want.clone();
        let mut suffix = b'b';
        while used.contains(&key) && suffix <= b'z' {
            key = format!("{want}{}", suffix as char);
            suffix += 1;
        }
        used.insert(key.clone());
        r.key = key;
    }
}

/// Same work: same DOI, same arXiv id, or the same title ignoring case and punctuation.
pub fn same_work(a: &Record, b: &Record) -> bool {
    let t = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase()
    };
    matches!((&a.doi, &b.doi), (Some(x), Some(y)) if normalize_doi(x) == normalize_doi(y))
        || matches!((&a.arxiv, &b.arxiv), (Some(x), Some(y)) if normalize_arxiv(x) == normalize_arxiv(y))
        || (!a.title.is_empty() && t(&a.title) == t(&b.title))
}

/// `literature.jsonl` as records. A missing file is an empty list (the run searched
/// nothing); a line that is not a record is an error naming the line.
pub fn load(path: &Path) -> Result<Vec<Record>, String> {
    // A run folder's file: no link followed, regular files only, capped.
    let text = match crate::fsutil::read_run_text(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse(text: &str) -> Result<Vec<Record>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str::<Record>(l).map_err(|e| {
                format!(
                    "line {} is not a literature record ({e}); fix or delete the line",
                    i + 1
                )
            })
        })
        .collect()
}

/// The records as `literature.jsonl` text.
pub fn to_jsonl(records: &[Record]) -> String {
    records
        .iter()
        .filter_map(|r| serde_json::to_string(r).ok())
        .map(|l| l + "\n")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(title: &str, author: &str, year: u32) -> Record {
        Record {
            title: title.into(),
            authors: vec![author.into()],
            year: Some(year),
            ..Record::default()
        }
    }

    #[test]
    fn keys_are_stable_and_unique() {
        let mut r = vec![
            rec("Ecological sexual dimorphism", "Kristen B. Gorman", 2014),
            rec("Ecological sexual dimorphism II", "K. Gorman", 2014),
            rec("A the of", "", 2001),
            Record {
                key: "kept".into(),
                ..rec("x", "y", 1)
            },
            Record {
                key: "x\n@preamble{\"\\immediate\\write18{touch x}\"}".into(),
                ..rec("Forged keys", "Eve Mallory", 2024)
            },
        ];
        assign_keys(&mut r);
        let keys: Vec<&str> = r.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "gorman2014ecological",
                "gorman2014ecologicalb",
                "anon2001",
                "kept",
                "mallory2024forged"
            ]
        );
    }

    #[test]
    fn identifiers_normalize() {
        let cases = [
            (
                "https://doi.org/10.1371/Journal.PONE.0090081",
                "10.1371/journal.pone.0090081",
            ),
            ("doi:10.1/x.", "10.1/x"),
        ];
        for (raw, want) in cases {
            assert_eq!(normalize_doi(raw), want);
        }
        assert_eq!(
            normalize_arxiv("http://arxiv.org/abs/2101.00001v3"),
            "2101.00001"
        );
        assert_eq!(normalize_arxiv("arXiv:1706.03762"), "1706.03762");
    }

    #[test]
    fn jsonl_round_trips_and_bad_lines_are_named() {
        let mut r = vec![rec("T", "A B", 2000)];
        assign_keys(&mut r);
        assert_eq!(parse(&to_jsonl(&r)).unwrap(), r);
        let err = parse("{\"title\":\"ok\"}\nnot json\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
    }
}
