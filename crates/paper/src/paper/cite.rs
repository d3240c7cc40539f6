//! Citations and identifiers as the paper writes them, and the rule that each one names a
//! work the run retrieved. A citation is `[@key]` (several: `[@a; @b]`) or a bare `@key`
//! after a space or bracket; a DOI is `10.NNNN/…`; an arXiv id follows `arXiv:` or
//! `arxiv.org/abs/`. Pure functions over text and records: the checker and the review call
//! them with what they loaded.

use super::refs::{Record, normalize_arxiv, normalize_doi};

/// Something the paper wrote that must name a retrieved work.
#[derive(Debug, Clone, PartialEq)]
pub struct Mention {
    pub kind: MentionKind,
    /// The key, DOI or arXiv id as written (normalized for identifiers).
    pub text: String,
    /// 1-based.
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MentionKind {
    Citation,
    Doi,
    Arxiv,
}

/// A mention that names no retrieved work, or names one with other identifiers.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub mention: Mention,
    /// Whether the mention names a work that was never retrieved (else: a wrong identifier).
    pub unretrieved: bool,
    pub message: String,
    pub evidence: String,
}

fn key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')
}

/// Every citation, DOI and arXiv id outside fenced code, in paper order.
pub fn mentions(md: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in md.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let line_no = i + 1;
        // Inline code (`@decorator`, `x@1.0`) is code, not a citation: blanked, same width.
        let blanked = without_inline_code(line);
        let line = blanked.as_str();
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (j, &(at, c)) in chars.iter().enumerate() {
            let prev = j.checked_sub(1).map(|p| chars[p].1);
            if c == '@'
                && prev.is_none_or(|p| p.is_whitespace() || matches!(p, '[' | '(' | ';' | ','))
            {
                let key: String = line[at + 1..]
                    .chars()
                    .take_while(|c| key_char(*c))
                    .collect();
                let key = key.trim_end_matches(['.', ':', '-']).to_string();
                if key.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    out.push(Mention {
                        kind: MentionKind::Citation,
                        text: key,
                        line: line_no,
                        column: j + 1,
                    });
                }
            }
        }
        out.extend(identifiers(line, line_no));
    }
    out
}

/// The line with the inside of each closed backtick span replaced by spaces (byte length
/// kept, so columns stay right).
fn without_inline_code(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut open = false;
    let closed = line.matches('`').count() / 2 * 2;
    let mut seen = 0;
    for c in line.chars() {
        if c == '`' && seen < closed {
            seen += 1;
            open = !open;
            out.push(c);
        } else if open {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// DOIs and arXiv ids in one line.
fn identifiers(line: &str, line_no: usize) -> Vec<Mention> {
    let mut out = Vec::new();
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    while let Some(off) = lower[from..].find("10.") {
        let at = from + off;
        from = at + 3;
        let starts_word =
            at == 0 || !lower[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '.');
        let rest = &line[at..];
        let token: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, '>' | '<' | '"' | ']' | '`'))
            .collect();
        let Some((prefix, suffix)) = token.split_once('/') else {
            continue;
        };
        let registrant = &prefix[3..];
        if starts_word
            && (4..=9).contains(&registrant.len())
            && registrant.chars().all(|c| c.is_ascii_digit())
            && !suffix.is_empty()
        {
            out.push(Mention {
                kind: MentionKind::Doi,
                text: normalize_doi(&token),
                line: line_no,
                column: line[..at].chars().count() + 1,
            });
            from = at + token.len();
        }
    }
    for marker in ["arxiv:", "arxiv.org/abs/"] {
        let mut from = 0;
        while let Some(off) = lower[from..].find(marker) {
            let at = from + off + marker.len();
            from = at;
            let id: String = line[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-'))
                .collect();
            let id = id.trim_end_matches('.');
            if id.chars().any(|c| c.is_ascii_digit()) {
                out.push(Mention {
                    kind: MentionKind::Arxiv,
                    text: normalize_arxiv(id),
                    line: line_no,
                    column: line[..at - marker.len()].chars().count() + 1,
                });
            }
        }
    }
    out
}

/// The rule: a citation names a retrieved record; a DOI or arXiv id is a retrieved record's,
/// and, on a line that cites a record, that record's own.
pub fn problems(md: &str, records: &[Record]) -> Vec<Problem> {
    let all = mentions(md);
    let known: Vec<&str> = records.iter().map(|r| r.key.as_str()).collect();
    let cited_on = |line: usize| -> Vec<&Record> {
        all.iter()
            .filter(|m| m.line == line && m.kind == MentionKind::Citation)
            .filter_map(|m| records.iter().find(|r| r.key == m.text))
            .collect()
    };
    let listing = if known.is_empty() {
        "the run retrieved no works (literature.jsonl is empty or missing)".to_string()
    } else {
        format!("retrieved keys: {}", known.join(", "))
    };
    let mut out = Vec::new();
    for m in &all {
        let (has, field): (fn(&Record, &str) -> bool, &str) = match m.kind {
            MentionKind::Citation => {
                if !known.contains(&m.text.as_str()) {
                    out.push(Problem {
                        mention: m.clone(),
                        unretrieved: true,
                        message: format!(
                            "hallucinated reference: @{} is not a work this run's literature search retrieved; cite a retrieved key or remove the citation",
                            m.text
                        ),
                        evidence: listing.clone(),
                    });
                }
                continue;
            }
            MentionKind::Doi => (
                |r: &Record, id: &str| r.doi.as_deref().is_some_and(|d| normalize_doi(d) == id),
                "DOI",
            ),
            MentionKind::Arxiv => (
                |r: &Record, id: &str| r.arxiv.as_deref().is_some_and(|a| normalize_arxiv(a) == id),
                "arXiv id",
            ),
        };
        let cited = cited_on(m.line);
        let wrong_for = cited.iter().find(|r| !has(r, &m.text));
        let owner = records.iter().find(|r| has(r, &m.text));
        let message = match (owner, wrong_for) {
            (None, _) => format!(
                "hallucinated reference: {field} {} belongs to no work this run retrieved",
                m.text
            ),
            (Some(o), Some(w)) if o.key != w.key => format!(
                "wrong {field}: {} is @{}'s, not @{}'s, which this line cites",
                m.text, o.key, w.key
            ),
            _ => continue,
        };
        let evidence = match wrong_for {
            Some(w) => format!(
                "@{} ({}) has {field} {}",
                w.key,
                w.title,
                match m.kind {
                    MentionKind::Doi => w.doi.as_deref().map(normalize_doi),
                    _ => w.arxiv.as_deref().map(normalize_arxiv),
                }
                .unwrap_or_else(|| "none".into())
            ),
            None => listing.clone(),
        };
        out.push(Problem {
            mention: m.clone(),
            unretrieved: owner.is_none(),
            message,
            evidence,
        });
    }
    out
}

/// The keys the paper cites, first citation first, each once.
pub fn cited_keys(md: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for m in mentions(md) {
        if m.kind == MentionKind::Citation && !keys.contains(&m.text) {
            keys.push(m.text);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gorman() -> Record {
        Record {
            key: "gorman2014ecological".into(),
            title: "Ecological Sexual Dimorphism".into(),
            doi: Some("10.1371/journal.pone.0090081".into()),
            ..Record::default()
        }
    }

    #[test]
    fn mentions_are_found_where_written() {
        let md = "Gorman et al. [@gorman2014ecological; @horst2020palmerpenguins] wrote (doi 10.1371/journal.pone.0090081).\nMail me@example.org, see arXiv:1706.03762v5, not `@cache` or `10.1234/code`.\n```\n@notacite 10.1234/x\n```\n";
        let m = mentions(md);
        let got: Vec<(MentionKind, &str, usize)> = m
            .iter()
            .map(|m| (m.kind, m.text.as_str(), m.line))
            .collect();
        assert_eq!(
            got,
            [
                (MentionKind::Citation, "gorman2014ecological", 1),
                (MentionKind::Citation, "horst2020palmerpenguins", 1),
                (MentionKind::Doi, "10.1371/journal.pone.0090081", 1),
                (MentionKind::Arxiv, "1706.03762", 2),
            ]
        );
    }

    #[test]
    fn the_rule_over_a_table_of_papers() {
        let records = [
            gorman(),
            Record {
                key: "other".into(),
                title: "O".into(),
                doi: Some("10.1000/other".into()),
                ..Record::default()
            },
        ];
        // (paper, number of problems, first is "unretrieved")
        let cases: [(&str, usize, bool); 6] = [
            ("As [@gorman2014ecological] showed.", 0, false),
            ("As [@smith2020made] showed.", 1, true),
            (
                "[@gorman2014ecological] (10.1371/journal.pone.0090081)",
                0,
                false,
            ),
            (
                "[@gorman2014ecological] (10.1371/journal.pone.0099999)",
                1,
                true,
            ),
            ("[@gorman2014ecological] (10.1000/other)", 1, false),
            ("Transformers (arXiv:1706.03762).", 1, true),
        ];
        for (md, n, unretrieved) in cases {
            let p = problems(md, &records);
            assert_eq!(p.len(), n, "{md}: {p:?}");
            if let Some(first) = p.first() {
                assert_eq!(first.unretrieved, unretrieved, "{md}");
                assert!(
                    first.message.starts_with("hallucinated") || first.message.starts_with("wrong"),
                    "{}",
                    first.message
                );
            }
        }
        assert!(
            problems("[@x]", &[])[0]
                .evidence
                .contains("retrieved no works")
        );
    }
}
