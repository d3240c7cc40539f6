//! A git object id as youra hands it to git: exactly 40 lower-case hex digits, parsed once
//! where it enters (a node's `packet.json`, git's own output) and never anything else. A
//! `commit` field of a handed run folder is another person's text: unchecked, it reached
//! git's argv as `--output=<file>` and git wrote the diff over any file the researcher could
//! write. An [`ObjectId`] cannot begin with `-`, hold a blank or name a revision expression
//! (`HEAD~1`, `:/text`, `@{-1}`); every git call also puts `--end-of-options` before it.

use std::fmt;

/// 40 lower-case hex digits: a SHA-1 object id (youra's repositories are SHA-1 ones).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(String);

/// Why a text is not an [`ObjectId`] (the caller names where it came from).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{shown:?} is not a git object id (40 lower-case hex digits)")]
pub struct BadObjectId {
    /// The text, cut to 80 characters (it may be long and hostile; escape before a terminal).
    pub shown: String,
}

impl ObjectId {
    pub(crate) const LEN: usize = 40;

    /// `text` as an object id, or why not. Nothing is trimmed: a packet's value is the id
    /// itself or it is refused.
    pub fn parse(text: &str) -> Result<ObjectId, BadObjectId> {
        let ok = text.len() == Self::LEN
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if ok {
            Ok(ObjectId(text.to_string()))
        } else {
            Err(BadObjectId {
                shown: text.chars().take(80).collect(),
            })
        }
    }

    /// git's output (one id and a line end) as an object id.
    pub(crate) fn from_output(out: &[u8]) -> Result<ObjectId, BadObjectId> {
        ObjectId::parse(String::from_utf8_lossy(out).trim_end_matches(['\n', '\r']))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ObjectId {
    /// The id, cut by a precision as strings are (`{id:.12}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.0)
    }
}

impl AsRef<str> for ObjectId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_forty_lower_case_hex_digits_are_an_id() {
        let good = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        assert_eq!(ObjectId::parse(good).unwrap().as_str(), good);
        assert_eq!(
            format!("{:.12}", ObjectId::parse(good).unwrap()),
            &good[..12]
        );
        assert_eq!(
            ObjectId::from_output(format!("{good}\n").as_bytes())
                .unwrap()
                .as_str(),
            good
        );
        for bad in [
            "",
            "--output=/tmp/x",
            "HEAD",
            "HEAD~1",
            ":/text",
            "4B825DC642CB6EB9A060E54BF8D69288FBEE4904",
            "4b825dc642cb6eb9a060e54bf8d69288fbee490",
            "4b825dc642cb6eb9a060e54bf8d69288fbee49044",
            " 4b825dc642cb6eb9a060e54bf8d69288fbee490",
            "4b825dc642cb6eb9a060e54bf8d69288fbee490\n",
            "-b825dc642cb6eb9a060e54bf8d69288fbee4904",
            "4b825dc642cb6eb9a060e54bf8d69288fbee49ö",
        ] {
            assert!(ObjectId::parse(bad).is_err(), "{bad:?}");
        }
    }

    proptest::proptest! {
        /// Whatever a packet holds, an accepted id is 40 hex digits that git cannot read
        /// as an option or a revision expression.
        #[test]
        fn an_accepted_id_is_never_an_option(s in "\\PC{0,60}") {
            if let Ok(id) = ObjectId::parse(&s) {
                proptest::prop_assert_eq!(id.as_str().len(), 40);
                proptest::prop_assert!(!id.as_str().starts_with('-'));
                proptest::prop_assert!(id.as_str().bytes().all(|b| b.is_ascii_hexdigit()));
            }
        }
    }
}
