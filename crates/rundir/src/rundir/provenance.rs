//! Where an imported Reflective Memory record came from (`youra memory import`), as its
//! front matter states it: written by `prior`, read back by `memory`. Below both, one owner
//! of the keys.

use serde::Serialize;

/// Where an imported record came from, as its front matter states it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// The source run's folder (absolute, as resolved at import).
    pub source_run: String,
    /// The source run's name (its folder's name), shown beside its lessons.
    pub source_name: String,
    /// The record's id in the source run, as `youra memory list` showed it there.
    pub original_id: String,
    /// When it was imported (RFC 3339, UTC).
    pub imported_at: String,
}

const FROM: &str = "imported_from";
const RUN: &str = "imported_run";
const ORIGINAL: &str = "original_id";
const AT: &str = "imported_at";

impl Provenance {
    /// From a record's front matter; `None` unless it names the source run and the original id.
    pub(crate) fn from_front_matter(fm: &[(String, String)]) -> Option<Provenance> {
        let get = |k: &str| {
            fm.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
                .filter(|v| !v.is_empty())
        };
        Some(Provenance {
            source_run: get(FROM)?,
            source_name: get(RUN).unwrap_or_default(),
            original_id: get(ORIGINAL)?,
            imported_at: get(AT).unwrap_or_default(),
        })
    }

    pub(super) fn front_matter(&self) -> String {
        [
            (FROM, &self.source_run),
            (RUN, &self.source_name),
            (ORIGINAL, &self.original_id),
            (AT, &self.imported_at),
        ]
        .iter()
        .map(|(k, v)| format!("{k}: {}\n", quoted(v)))
        .collect()
    }
}

/// A value the front-matter reader takes back as written: quoted, inner quotes dropped.
fn quoted(v: &str) -> String {
    format!("\"{}\"", v.replace(['"', '\n', '\r'], " "))
}
