//! `paper/references.bib`: the retrieved records as BibTeX, and nothing else. [`value`] is
//! the one door for a retrieved text into a BibTeX field and [`CiteKey`] the only key:
//! BibTeX counts every brace (a backslash does not escape one), so a field holds no brace
//! but those [`value`] writes itself, in pairs (`\textbackslash{}`); a title with `}}}` or
//! a key with a newline and `@preamble{…}` cannot close its entry or add one. The same file
//! is read by Typst's bibliography (hayagriva), which takes the same escapes.

use super::citekey::CiteKey;
use super::refs::{Record, normalize_arxiv, normalize_doi};

/// A BibTeX field value (inside `{…}`): whitespace folded, braces and `@` dropped (a brace
/// in a retrieved title is markup, never content), `\` and the TeX specials spelled as
/// commands, control characters dropped. The output's braces are balanced and are all the
/// `{}` after a command this function wrote.
pub fn value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for c in folded.chars() {
        match c {
            '{' | '}' | '@' => {}
            '\\' => out.push_str("\\textbackslash{}"),
            '%' | '&' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A DOI or URL keeps its characters (resolvers need them); only what would break the
/// field or the entry is removed.
fn verbatim(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() && !c.is_whitespace() && !matches!(c, '{' | '}' | '\\' | '@'))
        .collect()
}

/// One record as a BibTeX entry: `@article` with a venue, `@misc` without; `None` when
/// its key is not a [`CiteKey`] (`refs::assign_keys` gives every record one, so this
/// refuses only a record that bypassed it).
pub fn entry(r: &Record) -> Option<String> {
    let key = CiteKey::parse(&r.key)?;
    let kind = if r.venue.as_deref().is_some_and(|v| !v.trim().is_empty()) {
        "article"
    } else {
        "misc"
    };
    let mut fields: Vec<(&str, String)> = vec![("title", format!("{{{}}}", value(&r.title)))];
    if !r.authors.is_empty() {
        let authors: Vec<String> = r.authors.iter().map(|a| value(a)).collect();
        fields.push(("author", authors.join(" and ")));
    }
    if let Some(y) = r.year {
        fields.push(("year", y.to_string()));
    }
    if let Some(v) = r.venue.as_deref().filter(|v| !v.trim().is_empty()) {
        fields.push(("journal", value(v)));
    }
    if let Some(d) = &r.doi {
        fields.push(("doi", verbatim(&normalize_doi(d))));
    }
    if let Some(a) = &r.arxiv {
        fields.push(("eprint", verbatim(&normalize_arxiv(a))));
        fields.push(("archiveprefix", "arXiv".into()));
    }
    // Typst's bibliography (hayagriva) reads a `@misc` with a `url` as a web page, which
    // the IEEE style prints without its year or DOI; a DOI is the better link anyway, so a
    // `@misc` that has one carries no `url` (an `@article` keeps both).
    if let Some(u) = r
        .url
        .as_ref()
        .filter(|_| kind == "article" || r.doi.is_none())
    {
        fields.push(("url", verbatim(u)));
    }
    let body: Vec<String> = fields
        .into_iter()
        .map(|(k, v)| format!("  {k} = {{{v}}}"))
        .collect();
    Some(format!("@{kind}{{{key},\n{}\n}}\n", body.join(",\n")))
}

/// The whole file: one entry per record, in retrieval order.
pub fn bibtex(records: &[Record]) -> String {
    let mut out = String::from(
        "% The works this run's literature search retrieved (literature.jsonl), and only those.\n\n",
    );
    for e in records.iter().filter_map(entry) {
        out.push_str(&e);
        out.push('\n');
    }
    out
}

/// The keys of the entries in a `.bib` text (`@type{key,`), in order.
pub fn keys(bib: &str) -> Vec<String> {
    bib.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix('@')?;
            let (_, after) = rest.split_once('{')?;
            let key = after.split(',').next()?.trim();
            (!key.is_empty()).then(|| key.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_are_escaped() {
        let cases = [
            ("A {b} & c_d 50%", "A b \\& c\\_d 50\\%"),
            (
                "x\\y ~ ^",
                "x\\textbackslash{}y \\textasciitilde{} \\textasciicircum{}",
            ),
            ("two\n  lines\u{7}", "two lines"),
            ("}}} @misc{forged, title={x}", " miscforged, title=x"),
        ];
        for (raw, want) in cases {
            assert_eq!(value(raw), want, "{raw}");
        }
    }

    #[test]
    fn an_entry_has_its_identifiers_and_the_file_only_its_records() {
        let r = Record {
            key: "gorman2014ecological".into(),
            title: "Ecological Sexual Dimorphism}".into(),
            authors: vec!["Kristen B. Gorman".into(), "Tony D. Williams".into()],
            year: Some(2014),
            venue: Some("PLoS ONE".into()),
            doi: Some("https://doi.org/10.1371/journal.pone.0090081".into()),
            ..Record::default()
        };
        let e = entry(&r).unwrap();
        assert!(e.starts_with("@article{gorman2014ecological,\n"), "{e}");
        assert!(
            e.contains("title = {{Ecological Sexual Dimorphism}}"),
            "{e}"
        );
        assert!(
            e.contains("author = {Kristen B. Gorman and Tony D. Williams}"),
            "{e}"
        );
        assert!(e.contains("doi = {10.1371/journal.pone.0090081}"), "{e}");
        // A `@misc` with a DOI links by its DOI: a `url` would make Typst print it as a web
        // page, without year or DOI. Without a DOI it keeps its `url`.
        let data = Record {
            venue: None,
            url: Some("https://example.org/data".into()),
            ..r.clone()
        };
        let e = entry(&data).unwrap();
        assert!(
            e.starts_with("@misc{") && e.contains("doi = {10.1371"),
            "{e}"
        );
        assert!(!e.contains("url = "), "{e}");
        let page = entry(&Record { doi: None, ..data }).unwrap();
        assert!(page.contains("url = {https://example.org/data}"), "{page}");
        let forged = Record {
            key: "x\n@preamble{\"\\immediate\\write18{touch x}\"}".into(),
            ..r.clone()
        };
        assert_eq!(entry(&forged), None, "an invalid key is refused");
        let two = bibtex(&[
            r.clone(),
            forged,
            Record {
                key: "b".into(),
                title: "B".into(),
                ..Record::default()
            },
        ]);
        assert_eq!(keys(&two), ["gorman2014ecological", "b"]);
        assert!(!two.contains("preamble"), "{two}");
    }
}
