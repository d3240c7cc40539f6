//! A citation key youra may write into `references.bib`, `paper.typ` and `paper.tex`: ASCII
//! letters, digits, `_`, `:` and `-`, 1 to 64 of them, starting with a letter. A key is a
//! token in three languages at once (BibTeX's `@misc{KEY,`, Typst's `label("KEY")`, TeX's
//! `\cite{KEY}`); a recorded search may hold any string as a key (one with a newline and
//! `@preamble{…}` adds a BibTeX entry of its own), so only a [`CiteKey`] reaches them.

use std::fmt;

/// The longest key kept (BibTeX's own limits are far above; a longer one is not a name).
pub(crate) const MAX_LEN: usize = 64;

/// A validated citation key (see the module's doc for the alphabet).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CiteKey(String);

impl CiteKey {
    /// `key` when it is a valid key as written; `None` otherwise (never rewritten here: a
    /// caller that wants a key for a record derives one, see `refs::assign_keys`).
    pub fn parse(key: &str) -> Option<CiteKey> {
        let ok = !key.is_empty()
            && key.len() <= MAX_LEN
            && key.starts_with(|c: char| c.is_ascii_alphabetic())
            && key.chars().all(allowed);
        ok.then(|| CiteKey(key.to_string()))
    }

    /// `text` with every character outside the alphabet removed (and a leading non-letter
    /// prefixed with `k`), cut to [`MAX_LEN`]; `None` when nothing is left.
    pub fn sanitize(text: &str) -> Option<CiteKey> {
        let kept: String = text.chars().filter(|c| allowed(*c)).collect();
        if kept.is_empty() {
            return None;
        }
        let mut key = if kept.starts_with(|c: char| c.is_ascii_alphabetic()) {
            kept
        } else {
            format!("k{kept}")
        };
        key.truncate(MAX_LEN);
        CiteKey::parse(&key)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CiteKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One character of a key.
pub fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_alphabet_is_a_key() {
        let cases: [(&str, bool); 9] = [
            ("gorman2014ecological", true),
            ("a:b_c-d", true),
            ("x\n@preamble{\"\\immediate\\write18{touch x}\"}", false),
            ("a,b", false),
            ("a}", false),
            ("", false),
            ("1abc", false),
            ("a.b", false),
            (&"a".repeat(65), false),
        ];
        for (raw, ok) in cases {
            assert_eq!(CiteKey::parse(raw).is_some(), ok, "{raw:?}");
        }
    }

    #[test]
    fn sanitize_keeps_the_alphabet_only() {
        let k = CiteKey::sanitize("x\n@preamble{\"\\immediate\\write18{touch x}\"}").unwrap();
        assert_eq!(k.as_str(), "xpreambleimmediatewrite18touchx");
        assert_eq!(
            CiteKey::sanitize("2020 smith").unwrap().as_str(),
            "k2020smith"
        );
        assert_eq!(CiteKey::sanitize("{}@\n"), None);
    }
}
