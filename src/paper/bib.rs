//! `paper/references.bib`: the retrieved records as BibTeX, and nothing else. Field values are
//! escaped for BibTeX and for the Typst/hayagriva reader of the same file: braces balanced
//! by escaping, TeX specials backslashed, control characters dropped.

use super::refs::{Record, normalize_arxiv, normalize_doi};

/// A BibTeX field value (inside `{…}`): specials escaped, whitespace folded, so a title
/// from a search service cannot close the field or open a TeX command.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
    {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '%' | '&' | '$' | '#' | '_' => {
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
/// field is removed.
fn verbatim(value: &str) -> String {
    value
        .chars()
        .filter(|c| !c.is_control() && !matches!(c, '{' | '}' | '\\' | ' '))
        .collect()
}

/// One record as a BibTeX entry: `@article` with a venue, `@misc` without.
pub fn entry(r: &Record) -> String {
    let kind = if r.venue.as_deref().is_some_and(|v| !v.trim().is_empty()) {
        "article"
    } else {
        "misc"
    };
    let mut fields: Vec<(&str, String)> = vec![("title", format!("{{{}}}", escape(&r.title)))];
    if !r.authors.is_empty() {
        let authors: Vec<String> = r.authors.iter().map(|a| escape(a)).collect();
        fields.push(("author", authors.join(" and ")));
    }
    if let Some(y) = r.year {
        fields.push(("year", y.to_string()));
    }
    if let Some(v) = r.venue.as_deref().filter(|v| !v.trim().is_empty()) {
        fields.push(("journal", escape(v)));
    }
    if let Some(d) = &r.doi {
        fields.push(("doi", verbatim(&normalize_doi(d))));
    }
    if let Some(a) = &r.arxiv {
        fields.push(("eprint", verbatim(&normalize_arxiv(a))));
        fields.push(("archiveprefix", "arXiv".into()));
    }
    if let Some(u) = &r.url {
        fields.push(("url", verbatim(u)));
    }
    let body: Vec<String> = fields
        .into_iter()
        .map(|(k, v)| format!("  {k} = {{{v}}}"))
        .collect();
    format!("@{kind}{{{},\n{}\n}}\n", r.key, body.join(",\n"))
}

/// The whole file: one entry per record, in retrieval order.
pub fn bibtex(records: &[Record]) -> String {
    let mut out = String::from(
        "% The works this run's literature search retrieved (literature.jsonl), and only those.\n\n",
    );
    for r in records {
        out.push_str(&entry(r));
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
            ("A {b} & c_d 50%", "A \\{b\\} \\& c\\_d 50\\%"),
            (
                "x\\y ~ ^",
                "x\\textbackslash{}y \\textasciitilde{} \\textasciicircum{}",
            ),
            ("two\n  lines\u{7}", "two lines"),
        ];
        for (raw, want) in cases {
            assert_eq!(escape(raw), want, "{raw}");
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
        let e = entry(&r);
        assert!(e.starts_with("@article{gorman2014ecological,\n"), "{e}");
        assert!(
            e.contains("title = {{Ecological Sexual Dimorphism\\}}}"),
            "{e}"
        );
        assert!(
            e.contains("author = {Kristen B. Gorman and Tony D. Williams}"),
            "{e}"
        );
        assert!(e.contains("doi = {10.1371/journal.pone.0090081}"), "{e}");
        let two = bibtex(&[
            r.clone(),
            Record {
                key: "b".into(),
                title: "B".into(),
                ..Record::default()
            },
        ]);
        assert_eq!(keys(&two), ["gorman2014ecological", "b"]);
    }
}
