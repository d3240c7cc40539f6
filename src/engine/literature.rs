//! Literature search for Literature Grounding: Semantic Scholar's paper search, then arXiv's
//! query API, each with a short timeout. When neither answers (no network) the stage says
//! in its artifact that the model wrote the section alone. Base URLs are settings so tests
//! can point them at a local server.

use std::time::Duration;

use serde_json::Value;

#[derive(Debug, Clone, Default)]
pub struct Search {
    /// One sentence for the artifact: where the sources came from.
    pub note: String,
    pub papers: Vec<Paper>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Paper {
    pub title: String,
    pub year: Option<u32>,
    pub venue: Option<String>,
    pub url: Option<String>,
}

impl Search {
    pub fn results_markdown(&self) -> String {
        if self.papers.is_empty() {
            return "(no search results)".into();
        }
        self.papers
            .iter()
            .map(|p| {
                let year = p.year.map(|y| format!(" ({y})")).unwrap_or_default();
                let venue = p
                    .venue
                    .as_deref()
                    .filter(|v| !v.is_empty())
                    .map(|v| format!(", {v}"))
                    .unwrap_or_default();
                format!(
                    "- {}{year}{venue}{}",
                    p.title,
                    p.url
                        .as_deref()
                        .map(|u| format!(" <{u}>"))
                        .unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

pub struct Endpoints<'a> {
    pub semantic_scholar: &'a str,
    pub arxiv: &'a str,
    pub timeout: Duration,
}

pub fn search(enabled: bool, question: &str, at: &Endpoints<'_>) -> Search {
    if !enabled {
        return Search { note: "Literature search: disabled in youra.toml; written by the model alone, sources unverified.".into(), papers: Vec::new() };
    }
    let mut failures = Vec::new();
    match semantic_scholar(question, at) {
        Ok(p) if !p.is_empty() => return found("Semantic Scholar", p),
        Ok(_) => failures.push("Semantic Scholar found nothing".to_string()),
        Err(e) => failures.push(format!("Semantic Scholar: {e}")),
    }
    match arxiv(question, at) {
        Ok(p) if !p.is_empty() => return found("arXiv", p),
        Ok(_) => failures.push("arXiv found nothing".to_string()),
        Err(e) => failures.push(format!("arXiv: {e}")),
    }
    Search {
        note: format!(
            "Literature search unavailable ({}); written by the model alone, sources unverified.",
            failures.join("; ")
        ),
        papers: Vec::new(),
    }
}

fn found(source: &str, papers: Vec<Paper>) -> Search {
    Search {
        note: format!(
            "Literature search: {} papers from {source}; only these are verified sources.",
            papers.len()
        ),
        papers,
    }
}

fn get(url: &str, query: &[(&str, &str)], timeout: Duration) -> Result<String, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| e.to_string())?;
    let url = reqwest::Url::parse_with_params(url, query)
        .map_err(|e| format!("bad search URL {url}: {e}"))?;
    let resp = client.get(url).send().map_err(|e| {
        if e.is_timeout() {
            "timed out".to_string()
        } else {
            "unreachable".to_string()
        }
    })?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status().as_u16()));
    }
    resp.text().map_err(|e| e.to_string())
}

fn semantic_scholar(q: &str, at: &Endpoints<'_>) -> Result<Vec<Paper>, String> {
    let url = format!(
        "{}/graph/v1/paper/search",
        at.semantic_scholar.trim_end_matches('/')
    );
    let text = get(
        &url,
        &[
            ("query", q),
            ("limit", "8"),
            ("fields", "title,year,venue,url"),
        ],
        at.timeout,
    )?;
    parse_semantic_scholar(&text)
}

pub fn parse_semantic_scholar(text: &str) -> Result<Vec<Paper>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("unreadable reply ({e})"))?;
    Ok(v.get("data")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    Some(Paper {
                        title: p.get("title")?.as_str()?.trim().to_string(),
                        year: p.get("year").and_then(Value::as_u64).map(|y| y as u32),
                        venue: p.get("venue").and_then(Value::as_str).map(str::to_string),
                        url: p.get("url").and_then(Value::as_str).map(str::to_string),
                    })
                })
                .collect()
        })
        .unwrap_or_default())
}

fn arxiv(q: &str, at: &Endpoints<'_>) -> Result<Vec<Paper>, String> {
    let url = format!("{}/api/query", at.arxiv.trim_end_matches('/'));
    let query = format!("all:{q}");
    let text = get(
        &url,
        &[("search_query", &query), ("max_results", "8")],
        at.timeout,
    )?;
    Ok(parse_arxiv(&text))
}

/// The entries of an arXiv Atom feed: title, year of `published`, `id` as the URL. A
/// minimal reader: the feed's shape is fixed and only these three fields are used.
pub fn parse_arxiv(xml: &str) -> Vec<Paper> {
    let tag = |s: &str, name: &str| -> Option<String> {
        let open = format!("<{name}");
        let a = s.find(&open)?;
        let body = &s[a + s[a..].find('>')? + 1..];
        let end = body.find(&format!("</{name}>"))?;
        Some(body[..end].split_whitespace().collect::<Vec<_>>().join(" "))
    };
    xml.split("<entry>")
        .skip(1)
        .filter_map(|e| {
            Some(Paper {
                title: tag(e, "title")?,
                year: tag(e, "published").and_then(|p| p.get(..4)?.parse().ok()),
                venue: Some("arXiv".into()),
                url: tag(e, "id"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_parse() {
        let ss = r#"{"total": 2, "data": [{"paperId": "a", "title": " Ecological sexual dimorphism ", "year": 2014, "venue": "PLoS ONE", "url": "https://x/a"}, {"paperId": "b"}]}"#;
        let p = parse_semantic_scholar(ss).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].title, "Ecological sexual dimorphism");
        assert_eq!(p[0].year, Some(2014));
        assert!(parse_semantic_scholar("<html>").is_err());
        let atom = "<feed><entry><id>http://arxiv.org/abs/1</id><published>2020-01-02T00:00:00Z</published><title>Penguins\n  and bills</title></entry></feed>";
        let a = parse_arxiv(atom);
        assert_eq!(
            a,
            vec![Paper {
                title: "Penguins and bills".into(),
                year: Some(2020),
                venue: Some("arXiv".into()),
                url: Some("http://arxiv.org/abs/1".into())
            }]
        );
    }

    #[test]
    fn search_against_a_local_server_and_without_one() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            if let Ok((mut s, _)) = listener.accept() {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                let body = r#"{"data":[{"title":"Palmer penguins","year":2014}]}"#;
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        let base = format!("http://{addr}");
        let at = Endpoints {
            semantic_scholar: &base,
            arxiv: "http://127.0.0.1:9",
            timeout: Duration::from_secs(5),
        };
        let s = search(true, "penguin bills", &at);
        assert_eq!(s.papers.len(), 1);
        assert!(
            s.note.contains("1 papers from Semantic Scholar"),
            "{}",
            s.note
        );
        let down = Endpoints {
            semantic_scholar: "http://127.0.0.1:9",
            arxiv: "http://127.0.0.1:9",
            timeout: Duration::from_secs(2),
        };
        let s = search(true, "penguin bills", &down);
        assert!(s.papers.is_empty());
        assert!(s.note.contains("written by the model alone"), "{}", s.note);
    }
}
