//! Literature search for Literature Grounding: structured records (title, authors, year,
//! venue, DOI, arXiv id, abstract) from Semantic Scholar (with `SEMANTIC_SCHOLAR_API_KEY` as
//! `x-api-key` when set), then OpenAlex, then arXiv: the first that returns works wins. A 429
//! or 5xx is retried with bounded backoff, honouring `Retry-After` up to a cap, so a rate
//! limit costs seconds, not the stage. When no service answers (no network) the stage says
//! so and the paper cites nothing. A replayed run reads a recorded search instead
//! ([`recorded`]), labelled as such. Base URLs are parameters so tests use loopback servers.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::paper::refs::{Record, assign_keys, normalize_arxiv, normalize_doi};

pub(crate) const OPENALEX_URL: &str = "https://api.openalex.org";
/// The replay provider's counterpart: a recorded search a replayed run reads.
pub const RECORDED: &str = "replay/literature.jsonl";

#[derive(Debug, Clone, Default)]
pub struct Search {
    /// One sentence for the artifact: where the sources came from.
    pub note: String,
    pub records: Vec<Record>,
}

impl Search {
    pub(crate) fn results_markdown(&self) -> String {
        if self.records.is_empty() {
            return "(no search results: cite nothing)".into();
        }
        self.records
            .iter()
            .map(|p| {
                let year = p.year.map(|y| format!(" ({y})")).unwrap_or_default();
                let venue = p
                    .venue
                    .as_deref()
                    .filter(|v| !v.is_empty())
                    .map(|v| format!(", {v}"))
                    .unwrap_or_default();
                let authors = match p.authors.as_slice() {
                    [] => String::new(),
                    [one] => format!("{one}: "),
                    [first, ..] => format!("{first} et al.: "),
                };
                format!("- [@{}] {authors}{}{year}{venue}", p.key, p.title)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// How hard to retry a rate-limited or failing service.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    /// Tries per service, the first included.
    pub tries: u32,
    pub base: Duration,
    /// No single wait is longer, whatever `Retry-After` asks.
    pub cap: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            tries: 3,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(8),
        }
    }
}

/// The wait before retry `n` (1-based): `Retry-After` seconds when given, else doubling
/// from `base`; never more than `cap`. A pure rule.
pub fn wait(b: &Backoff, n: u32, retry_after: Option<&str>) -> Duration {
    let asked = retry_after
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64);
    let doubling = b.base.saturating_mul(1 << n.saturating_sub(1).min(16));
    asked.unwrap_or(doubling).min(b.cap)
}

/// One search service: the question and where to ask, to records.
type Service = fn(&str, &Endpoints<'_>) -> Result<Vec<Record>, String>;

pub struct Endpoints<'a> {
    pub semantic_scholar: &'a str,
    pub openalex: &'a str,
    pub arxiv: &'a str,
    pub timeout: Duration,
    pub api_key: Option<String>,
    pub backoff: Backoff,
}

/// Search the services in order; the records come back with citation keys.
pub fn search(enabled: bool, question: &str, at: &Endpoints<'_>) -> Search {
    if !enabled {
        return Search { note: "Literature search: disabled in youra.toml; no works were retrieved, so the paper cites none.".into(), records: Vec::new() };
    }
    let mut failures = Vec::new();
    let services: [(&str, Service); 3] = [
        ("Semantic Scholar", semantic_scholar),
        ("OpenAlex", openalex),
        ("arXiv", arxiv),
    ];
    for (name, run) in services {
        match run(question, at) {
            Ok(r) if !r.is_empty() => return found(name, r),
            Ok(_) => failures.push(format!("{name} found nothing")),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    Search {
        note: format!(
            "Literature search unavailable ({}); no works were retrieved, so the paper cites none.",
            failures.join("; ")
        ),
        records: Vec::new(),
    }
}

/// A recorded search (`literature.jsonl` lines), as a replayed run's literature.
pub fn recorded(path: &Path) -> Result<Search, String> {
    let mut records = crate::paper::refs::load(path)?;
    assign_keys(&mut records);
    Ok(Search {
        note: format!(
            "Literature search: {} works from a RECORDED search ({}), replayed offline; only these may be cited.",
            records.len(),
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("literature.jsonl")
        ),
        records,
    })
}

fn found(source: &str, mut records: Vec<Record>) -> Search {
    for r in &mut records {
        r.source = source.to_string();
    }
    assign_keys(&mut records);
    Search {
        note: format!(
            "Literature search: {} works from {source}; only these may be cited.",
            records.len()
        ),
        records,
    }
}

/// GET with retries on 429 and 5xx.
fn get(
    url: &str,
    query: &[(&str, &str)],
    at: &Endpoints<'_>,
    key: Option<&str>,
) -> Result<String, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::blocking::Client::builder()
        .timeout(at.timeout)
        .build()
        .map_err(|e| e.to_string())?;
    let url = reqwest::Url::parse_with_params(url, query)
        .map_err(|e| format!("bad search URL {url}: {e}"))?;
    let mut last = String::new();
    for n in 1..=at.backoff.tries.max(1) {
        let mut req = client.get(url.clone());
        if let Some(k) = key {
            req = req.header("x-api-key", k);
        }
        let resp = req.send().map_err(|e| {
            if e.is_timeout() {
                "timed out".to_string()
            } else {
                "unreachable".to_string()
            }
        })?;
        let status = resp.status();
        if status.is_success() {
            return resp.text().map_err(|e| e.to_string());
        }
        last = format!("HTTP {}", status.as_u16());
        if !(status.as_u16() == 429 || status.is_server_error()) || n == at.backoff.tries {
            break;
        }
        let after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        std::thread::sleep(wait(&at.backoff, n, after.as_deref()));
    }
    Err(format!("{last} after {} tries", at.backoff.tries.max(1)))
}

fn semantic_scholar(q: &str, at: &Endpoints<'_>) -> Result<Vec<Record>, String> {
    let url = format!(
        "{}/graph/v1/paper/search",
        at.semantic_scholar.trim_end_matches('/')
    );
    let fields = "title,year,venue,authors,externalIds,abstract,url";
    let text = get(
        &url,
        &[("query", q), ("limit", "8"), ("fields", fields)],
        at,
        at.api_key.as_deref(),
    )?;
    parse_semantic_scholar(&text)
}

fn unreadable(e: serde_json::Error) -> String {
    format!("unreadable reply ({e})")
}

pub(crate) fn parse_semantic_scholar(text: &str) -> Result<Vec<Record>, String> {
    let v: Value = serde_json::from_str(text).map_err(unreadable)?;
    let s = |p: &Value, k: &str| {
        p.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    Ok(v.get("data")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    let ids = p.get("externalIds");
                    Some(Record {
                        title: s(p, "title")?,
                        authors: p
                            .get("authors")
                            .and_then(Value::as_array)
                            .map(|a| a.iter().filter_map(|x| s(x, "name")).collect())
                            .unwrap_or_default(),
                        year: p.get("year").and_then(Value::as_u64).map(|y| y as u32),
                        venue: s(p, "venue"),
                        doi: ids.and_then(|i| s(i, "DOI")).map(|d| normalize_doi(&d)),
                        arxiv: ids.and_then(|i| s(i, "ArXiv")).map(|d| normalize_arxiv(&d)),
                        abstract_text: s(p, "abstract"),
                        url: s(p, "url"),
                        ..Record::default()
                    })
                })
                .collect()
        })
        .unwrap_or_default())
}

fn openalex(q: &str, at: &Endpoints<'_>) -> Result<Vec<Record>, String> {
    let url = format!("{}/works", at.openalex.trim_end_matches('/'));
    let text = get(&url, &[("search", q), ("per-page", "8")], at, None)?;
    parse_openalex(&text)
}

/// OpenAlex `/works`: the abstract comes as an inverted index (word → positions).
pub(crate) fn parse_openalex(text: &str) -> Result<Vec<Record>, String> {
    let v: Value = serde_json::from_str(text).map_err(unreadable)?;
    let abstract_of = |w: &Value| -> Option<String> {
        let index = w.get("abstract_inverted_index")?.as_object()?;
        let mut words: Vec<(u64, &str)> = index
            .iter()
            .flat_map(|(word, pos)| {
                pos.as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_u64)
                    .map(move |p| (p, word.as_str()))
            })
            .collect();
        words.sort();
        Some(
            words
                .into_iter()
                .map(|(_, w)| w)
                .collect::<Vec<_>>()
                .join(" "),
        )
    };
    Ok(v.get("results")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|w| {
                    let title = w
                        .get("title")
                        .or_else(|| w.get("display_name"))?
                        .as_str()?
                        .trim()
                        .to_string();
                    (!title.is_empty()).then_some(())?;
                    Some(Record {
                        title,
                        authors: w
                            .get("authorships")
                            .and_then(Value::as_array)
                            .map(|a| {
                                a.iter()
                                    .filter_map(|x| {
                                        Some(
                                            x.get("author")?
                                                .get("display_name")?
                                                .as_str()?
                                                .to_string(),
                                        )
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                        year: w
                            .get("publication_year")
                            .and_then(Value::as_u64)
                            .map(|y| y as u32),
                        venue: w
                            .pointer("/primary_location/source/display_name")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        doi: w.get("doi").and_then(Value::as_str).map(normalize_doi),
                        abstract_text: abstract_of(w),
                        url: w.get("id").and_then(Value::as_str).map(str::to_string),
                        ..Record::default()
                    })
                })
                .collect()
        })
        .unwrap_or_default())
}

fn arxiv(q: &str, at: &Endpoints<'_>) -> Result<Vec<Record>, String> {
    let url = format!("{}/api/query", at.arxiv.trim_end_matches('/'));
    let query = format!("all:{q}");
    let text = get(
        &url,
        &[("search_query", &query), ("max_results", "8")],
        at,
        None,
    )?;
    Ok(parse_arxiv(&text))
}

/// The entries of an arXiv Atom feed. A minimal reader: the feed's shape is fixed.
pub(crate) fn parse_arxiv(xml: &str) -> Vec<Record> {
    fn tags(s: &str, name: &str) -> Vec<String> {
        let open = format!("<{name}");
        let close = format!("</{name}>");
        let mut out = Vec::new();
        let mut rest = s;
        while let Some(a) = rest.find(&open) {
            let after = &rest[a + open.len()..];
            if !after.starts_with(['>', ' ']) {
                rest = after;
                continue;
            }
            let Some(gt) = after.find('>') else { break };
            let body = &after[gt + 1..];
            let Some(end) = body.find(&close) else { break };
            out.push(unescape(
                &body[..end].split_whitespace().collect::<Vec<_>>().join(" "),
            ));
            rest = &body[end..];
        }
        out
    }
    xml.split("<entry>")
        .skip(1)
        .filter_map(|e| {
            let id = tags(e, "id").into_iter().next();
            Some(Record {
                title: tags(e, "title").into_iter().next()?,
                authors: tags(e, "name"),
                year: tags(e, "published")
                    .first()
                    .and_then(|p| p.get(..4)?.parse().ok()),
                venue: Some("arXiv".into()),
                doi: tags(e, "arxiv:doi")
                    .into_iter()
                    .next()
                    .map(|d| normalize_doi(&d)),
                arxiv: id.as_deref().map(normalize_arxiv),
                abstract_text: tags(e, "summary").into_iter().next(),
                url: id,
                ..Record::default()
            })
        })
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_bounded_and_honours_retry_after() {
        let b = Backoff {
            tries: 4,
            base: Duration::from_millis(100),
            cap: Duration::from_secs(2),
        };
        let cases = [
            (1, None, 100),
            (2, None, 200),
            (3, None, 400),
            (1, Some("1"), 1000),
            (1, Some("3600"), 2000),
            (2, Some("soon"), 200),
            (1, Some("-1"), 100),
        ];
        for (n, after, ms) in cases {
            assert_eq!(
                wait(&b, n, after),
                Duration::from_millis(ms),
                "{n} {after:?}"
            );
        }
    }

    #[test]
    fn replies_parse_to_records() {
        let ss = r#"{"data": [{"title": " Ecological sexual dimorphism ", "year": 2014, "venue": "PLoS ONE", "authors": [{"name": "K. B. Gorman"}], "externalIds": {"DOI": "10.1371/JOURNAL.PONE.0090081"}, "abstract": "Sexual segregation"}, {"paperId": "b"}]}"#;
        let p = parse_semantic_scholar(ss).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].title.as_str(), p[0].year),
            ("Ecological sexual dimorphism", Some(2014))
        );
        assert_eq!(p[0].doi.as_deref(), Some("10.1371/journal.pone.0090081"));
        assert_eq!(p[0].authors, ["K. B. Gorman"]);
        assert!(parse_semantic_scholar("<html>").is_err());
        let oa = r#"{"results":[{"title":"T","publication_year":2002,"doi":"https://doi.org/10.1073/pnas.082099299","authorships":[{"author":{"display_name":"R. Tibshirani"}}],"abstract_inverted_index":{"shrink":[1],"We":[0]},"primary_location":{"source":{"display_name":"PNAS"}}}]}"#;
        let o = parse_openalex(oa).unwrap();
        assert_eq!(o[0].doi.as_deref(), Some("10.1073/pnas.082099299"));
        assert_eq!(o[0].abstract_text.as_deref(), Some("We shrink"));
        assert_eq!(o[0].venue.as_deref(), Some("PNAS"));
        let atom = "<feed><entry><id>http://arxiv.org/abs/1706.03762v5</id><published>2017-06-12T00:00:00Z</published><title>Attention &amp; all</title><summary>We propose</summary><author><name>A. Vaswani</name></author><author><name>N. Shazeer</name></author></entry></feed>";
        let a = parse_arxiv(atom);
        assert_eq!(a[0].title, "Attention & all");
        assert_eq!(a[0].arxiv.as_deref(), Some("1706.03762"));
        assert_eq!(a[0].authors, ["A. Vaswani", "N. Shazeer"]);
        assert_eq!(a[0].year, Some(2017));
    }
}
