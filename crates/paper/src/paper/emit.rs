//! What the Typst and TeX converters share: what they may refer to ([`Inputs`]: the
//! bibliography's keys and the figures youra drew), what they report ([`Emitted`]), and the
//! one reading of citations in the paper's text ([`pieces`]), so both languages cite the
//! same works from the same words. Pure functions over text.

use super::citekey::{self, CiteKey};

/// What a converted paper may refer to besides its own text.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The keys `references.bib` holds: only these become citations.
    pub keys: &'a [CiteKey],
    /// The figure files youra drew (`paper/figures/manifest.json`, relative to `paper/`):
    /// the only images a converter includes, whatever else the Markdown names.
    pub figures: &'a [String],
}

/// A converted paper and what was left out of it (each entry says what and why).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Emitted {
    pub text: String,
    pub dropped: Vec<String>,
}

impl Inputs<'_> {
    /// Whether `target` (an image's destination, inline or reference-style, as
    /// pulldown-cmark resolved it) is one of the figures youra drew.
    pub fn figure(&self, target: &str) -> Option<&str> {
        let t = target.trim().trim_start_matches("./");
        self.figures.iter().map(String::as_str).find(|f| *f == t)
    }

    /// The warning for an image that is not a drawn figure.
    pub(crate) fn dropped_image(target: &str) -> String {
        format!(
            "image {:?} left out: it is not a figure youra drew (paper/figures/manifest.json)",
            target.chars().take(120).collect::<String>()
        )
    }
}

/// A run of the paper's text: literal text, or citations of known keys.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    Cite(Vec<CiteKey>),
}

/// `text` split into literal text and citations: a bracketed group whose every item is a
/// known `@key` (`[@a; @b]`) is one citation; a bare `@key` after a non-alphanumeric
/// character is one when the key is known. Everything else, the punctuation around a
/// citation included (`[@a]; Horst et al.`), is text.
pub fn pieces(text: &str, keys: &[CiteKey]) -> Vec<Piece> {
    let chars: Vec<char> = text.chars().collect();
    let known = |k: &str| keys.iter().find(|key| key.as_str() == k).cloned();
    let key_at = |j: usize| -> Option<(CiteKey, usize)> {
        let raw: String = chars[j..]
            .iter()
            .take_while(|c| citekey::allowed(**c))
            .collect();
        let k = raw.trim_end_matches([':', '-']);
        known(k).map(|key| (key, j + k.chars().count()))
    };
    let mut out: Vec<Piece> = Vec::new();
    let mut plain = String::new();
    let push_cite = |out: &mut Vec<Piece>, plain: &mut String, ks: Vec<CiteKey>| {
        if !plain.is_empty() {
            out.push(Piece::Text(std::mem::take(plain)));
        }
        out.push(Piece::Cite(ks));
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '['
            && chars.get(i + 1) == Some(&'@')
            && let Some(close) = chars[i..].iter().position(|c| *c == ']')
        {
            let inner: String = chars[i + 1..i + close].iter().collect();
            let items: Vec<&str> = inner.split(';').map(str::trim).collect();
            let cites: Vec<CiteKey> = items
                .iter()
                .filter_map(|it| it.strip_prefix('@'))
                .filter_map(known)
                .collect();
            if !cites.is_empty() && cites.len() == items.len() {
                push_cite(&mut out, &mut plain, cites);
                i += close + 1;
                continue;
            }
        }
        let after_boundary = i == 0 || !chars[i - 1].is_alphanumeric();
        if c == '@'
            && after_boundary
            && let Some((k, end)) = key_at(i + 1)
        {
            push_cite(&mut out, &mut plain, vec![k]);
            i = end;
            continue;
        }
        plain.push(c);
        i += 1;
    }
    if !plain.is_empty() {
        out.push(Piece::Text(plain));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<CiteKey> {
        ["gorman2014ecological", "horst2020"]
            .iter()
            .filter_map(|k| CiteKey::parse(k))
            .collect()
    }

    #[test]
    fn citations_and_their_punctuation() {
        let k = keys();
        let t = |s: &str| Piece::Text(s.into());
        let c = |ks: &[&str]| Piece::Cite(ks.iter().filter_map(|k| CiteKey::parse(k)).collect());
        let cases: Vec<(&str, Vec<Piece>)> = vec![
            (
                "measured [@gorman2014ecological]; Horst et al. [@horst2020].",
                vec![
                    t("measured "),
                    c(&["gorman2014ecological"]),
                    t("; Horst et al. "),
                    c(&["horst2020"]),
                    t("."),
                ],
            ),
            (
                "[@gorman2014ecological; @horst2020], me@x.org, @nobody, @horst2020:",
                vec![
                    c(&["gorman2014ecological", "horst2020"]),
                    t(", me@x.org, @nobody, "),
                    c(&["horst2020"]),
                    t(":"),
                ],
            ),
            // Not a group of known keys: the known one is still a citation.
            (
                "[@horst2020; @nobody]",
                vec![t("["), c(&["horst2020"]), t("; @nobody]")],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(pieces(text, &k), want, "{text}");
        }
    }

    #[test]
    fn only_manifest_figures() {
        let figures = vec!["figures/gates.svg".to_string()];
        let i = Inputs {
            keys: &[],
            figures: &figures,
        };
        assert_eq!(i.figure("./figures/gates.svg"), Some("figures/gates.svg"));
        assert_eq!(i.figure("../../etc/x\";.svg"), None);
        assert_eq!(i.figure("figures/other.svg"), None);
    }
}
