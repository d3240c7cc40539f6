//! Verified references: the literature search against a loopback server replaying recorded
//! Semantic Scholar, OpenAlex and arXiv replies (rate-limited first, then answering), the
//! bibliography that holds exactly the retrieved records, and the checker that fails a paper
//! citing a work the run never retrieved or a DOI that is not the record's.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use youra::engine::literature::{Backoff, Endpoints, search};
use youra::paper::refs::{self, Record};
use youra::report::findings::{FindingKind, Severity};

const S2: &str = include_str!("../fixtures/literature/semantic_scholar.json");
const OPENALEX: &str = include_str!("../fixtures/literature/openalex.json");
const ARXIV: &str = include_str!("../fixtures/literature/arxiv.xml");

/// A loopback server answering each request from a script of `(path prefix, status, body)`,
/// in order per prefix; it records every request line and its `x-api-key`.
struct Replay {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// A request as the server saw it: its path and query, and its `x-api-key`.
type Seen = (String, Option<String>);

fn serve(script: Vec<(&'static str, u16, &'static str)>) -> Replay {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let script = Arc::new(Mutex::new(script));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut reader = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let mut key = None;
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("x-api-key:") {
                    key = Some(v.trim().to_string());
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            log.lock().unwrap().push((path.clone(), key));
            let mut script = script.lock().unwrap();
            let at = script.iter().position(|(p, _, _)| path.starts_with(p));
            let (status, body) = match at {
                Some(i) => {
                    let (_, st, b) = script.remove(i);
                    (st, b)
                }
                None => (404, "not scripted"),
            };
            let reason = match status {
                200 => "OK",
                429 => "Too Many Requests",
                _ => "Error",
            };
            let _ = write!(
                s,
                "HTTP/1.1 {status} {reason}\r\nRetry-After: 0\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.flush();
            let mut sink = [0u8; 16];
            let _ = s.read(&mut sink);
        }
    });
    Replay { base, seen }
}

fn endpoints(r: &Replay, key: Option<&str>) -> Endpoints<'static> {
    let base: &'static str = Box::leak(r.base.clone().into_boxed_str());
    Endpoints {
        semantic_scholar: base,
        openalex: base,
        arxiv: base,
        timeout: Duration::from_secs(5),
        api_key: key.map(str::to_string),
        backoff: Backoff {
            tries: 3,
            base: Duration::from_millis(10),
            cap: Duration::from_millis(50),
        },
    }
}

#[test]
fn semantic_scholar_rate_limited_then_answering_with_the_key() {
    let r = serve(vec![
        ("/graph/v1/paper/search", 429, "slow down"),
        ("/graph/v1/paper/search", 200, S2),
    ]);
    let s = search(true, "penguin bills", &endpoints(&r, Some("k-123")));
    let seen = r.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "one 429, one retry: {seen:?}");
    assert!(
        seen.iter().all(|(_, k)| k.as_deref() == Some("k-123")),
        "{seen:?}"
    );
    assert!(s.note.contains("from Semantic Scholar"), "{}", s.note);
    let titles: Vec<&str> = s.records.iter().map(|r| r.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Ecological Sexual Dimorphism and Environmental Variability within a Community of Antarctic Penguins (Genus Pygoscelis)",
            "Diagnosis of multiple cancer types by shrunken centroids of gene expression",
        ]
    );
    let g = &s.records[0];
    assert_eq!(g.key, "gorman2014ecological");
    assert_eq!(g.doi.as_deref(), Some("10.1371/journal.pone.0090081"));
    assert_eq!(g.authors.len(), 3);
    assert!(g.abstract_text.is_some());
    // The bibliography holds exactly the retrieved records.
    let bib = youra::paper::bib::bibtex(&s.records);
    assert_eq!(
        youra::paper::bib::keys(&bib),
        ["gorman2014ecological", "tibshirani2002diagnosis"]
    );
    assert!(bib.contains("doi = {10.1073/pnas.082099299}"), "{bib}");
}

#[test]
fn falls_back_to_openalex_then_arxiv_after_bounded_retries() {
    let r = serve(vec![
        ("/graph/v1/paper/search", 503, "down"),
        ("/graph/v1/paper/search", 503, "down"),
        ("/graph/v1/paper/search", 503, "down"),
        ("/works", 429, "slow"),
        ("/works", 200, OPENALEX),
    ]);
    let s = search(true, "centroids", &endpoints(&r, None));
    assert!(s.note.contains("from OpenAlex"), "{}", s.note);
    assert_eq!(s.records.len(), 1);
    assert_eq!(s.records[0].doi.as_deref(), Some("10.1073/pnas.082099299"));
    assert_eq!(
        r.seen.lock().unwrap().len(),
        5,
        "3 tries of Semantic Scholar, 2 of OpenAlex"
    );
    assert!(
        r.seen.lock().unwrap().iter().all(|(_, k)| k.is_none()),
        "no key without the variable"
    );

    let r = serve(vec![
        ("/graph/v1/paper/search", 200, "{\"data\": []}"),
        ("/works", 200, "{\"results\": []}"),
        ("/api/query", 429, ""),
        ("/api/query", 200, ARXIV),
    ]);
    let s = search(true, "attention", &endpoints(&r, None));
    assert!(s.note.contains("from arXiv"), "{}", s.note);
    assert_eq!(s.records[0].arxiv.as_deref(), Some("1706.03762"));
}

#[test]
fn without_network_nothing_is_retrieved_and_the_paper_says_so() {
    let down = Endpoints {
        semantic_scholar: "http://127.0.0.1:9",
        openalex: "http://127.0.0.1:9",
        arxiv: "http://127.0.0.1:9",
        timeout: Duration::from_secs(2),
        api_key: None,
        backoff: Backoff::default(),
    };
    let s = search(true, "penguin bills", &down);
    assert!(s.records.is_empty());
    assert!(
        s.note.contains("unavailable") && s.note.contains("cites none"),
        "{}",
        s.note
    );
    let md = "# T\n\n## Related Work\n\nBills are known to differ.\n";
    let noted = youra::paper::with_reference_note(md, &s.records);
    assert!(noted.contains(youra::paper::NO_REFERENCES_NOTE), "{noted}");
    assert_eq!(
        youra::paper::with_reference_note(&noted, &s.records),
        noted,
        "noted once"
    );
    let tmp = tempfile::tempdir().unwrap();
    let published = youra::paper::publish(tmp.path(), &noted).unwrap();
    assert_eq!(published.references, 0);
    let bib = std::fs::read_to_string(tmp.path().join("paper/references.bib")).unwrap();
    assert!(youra::paper::bib::keys(&bib).is_empty(), "{bib}");
    let typ = std::fs::read_to_string(tmp.path().join("paper/paper.typ")).unwrap();
    assert!(
        !typ.contains("#bibliography") && !typ.contains("#cite"),
        "{typ}"
    );
}

fn run_with(records: &[Record]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join(refs::LITERATURE_FILE),
        refs::to_jsonl(records),
    )
    .unwrap();
    tmp
}

#[test]
fn a_citation_of_an_unretrieved_work_or_a_wrong_doi_is_major() {
    let mut records =
        youra::paper::refs::parse(include_str!("../../assets/demo/literature.jsonl")).unwrap();
    refs::assign_keys(&mut records);
    let run = run_with(&records);
    // (paper, expected finding kinds)
    let cases: [(&str, &[FindingKind]); 5] = [
        ("Data [@gorman2014ecological].", &[]),
        (
            "Data [@gorman2014ecological; @smith2021deep].",
            &[FindingKind::HallucinatedReference],
        ),
        (
            "Data [@gorman2014ecological] (doi:10.1371/journal.pone.0090081).",
            &[],
        ),
        (
            "Data [@gorman2014ecological] (doi:10.1073/pnas.082099299).",
            &[FindingKind::WrongIdentifier],
        ),
        (
            "Data [@horst2020palmerpenguins], doi 10.9999/invented.42.",
            &[FindingKind::HallucinatedReference],
        ),
    ];
    for (md, want) in cases {
        let f = youra::paper::check(run.path(), md);
        let kinds: Vec<FindingKind> = f.iter().map(|f| f.kind).collect();
        assert_eq!(kinds, want, "{md}: {f:?}");
        assert!(f.iter().all(|f| f.severity == Severity::Major));
    }
}
