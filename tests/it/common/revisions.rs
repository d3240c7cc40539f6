//! Checks that an engine transition was one write: the history entries it left (one per
//! changed field) all carry one revision, and nothing else carries it.

use std::path::Path;

use youra::vsa::HistoryEntry;
use youra::vsa::store::Store;

/// One field a transition changes: its path (or a list's path: its items count) and text
/// the new value must contain (`""`: any).
pub struct Field<'a>(pub &'a str, pub &'a str);

fn matches(e: &HistoryEntry, f: &Field<'_>) -> bool {
    let Some(p) = e.path.as_deref() else {
        return false;
    };
    let path_ok = p == f.0
        || p.strip_prefix(f.0)
            .is_some_and(|rest| rest.starts_with('['));
    path_ok && e.new.as_deref().unwrap_or("null").contains(f.1)
}

/// The revision of the newest transition, written after revision `after`, that changed all
/// of `fields`; panics, naming them, when they were written in different revisions or when
/// the revision holds other writers' entries (another actor's edit folded in).
pub fn one_revision(dir: &Path, after: u64, what: &str, fields: &[Field<'_>]) -> u64 {
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let h = &snap.vsa.history;
    let revs: Vec<Option<u64>> = fields
        .iter()
        .map(|f| {
            h.iter()
                .filter(|e| e.revision.is_some_and(|r| r > after) && matches(e, f))
                .filter_map(|e| e.revision)
                .min()
        })
        .collect();
    let listing = || {
        fields
            .iter()
            .zip(&revs)
            .map(|(f, r)| format!("{} ~ {:?}: revision {r:?}", f.0, f.1))
            .collect::<Vec<_>>()
            .join("\n  ")
    };
    let dump = || {
        h.iter()
            .rev()
            .take(30)
            .map(|e| {
                format!(
                    "r{:?} {:?} {:?} -> {:?}",
                    e.revision, e.actor, e.path, e.new
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let first =
        revs[0].unwrap_or_else(|| panic!("{what}: not written\n  {}\n{}", listing(), dump()));
    assert!(
        revs.iter().all(|r| *r == Some(first)),
        "{what}: one transition, several revisions\n  {}\n{}",
        listing(),
        dump()
    );
    let actors: Vec<&str> = h
        .iter()
        .filter(|e| e.revision == Some(first))
        .filter_map(|e| e.actor.as_deref())
        .collect();
    assert!(
        actors.iter().all(|a| *a == "engine"),
        "{what}: revision {first} mixes writers: {actors:?}"
    );
    first
}
