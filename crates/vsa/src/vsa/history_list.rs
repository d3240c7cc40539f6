//! The typed history (its entries, and a list of them whose copies share their entries). A snapshot after a write
//! holds the history before it plus the write's own entries; a copy of a 30,000-entry
//! `Vec` per write was what made an engine step grow with the study's age (issue 30).
//! Entries live in chunks behind `Arc`s: a clone copies one pointer per chunk, and a push
//! copies at most the last chunk when an older snapshot still holds it.

use std::sync::Arc;

use serde::Serialize;

use super::timestamp::Timestamp;

/// One entry of the VSA's `history`, typed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HistoryEntry {
    pub timestamp: Option<Timestamp>,
    pub event: Option<String>,
    /// Who made the change: `researcher`, `engine`, `editor`, … (youra's field).
    pub actor: Option<String>,
    pub phase: Option<String>,
    pub hypothesis: Option<String>,
    pub status: Option<String>,
    pub details: Option<String>,
    pub reason: Option<String>,
    pub path: Option<String>,
    pub old: Option<String>,
    pub new: Option<String>,
    /// The revision youra's write of this entry made (youra's field).
    pub revision: Option<u64>,
    pub forced: bool,
}

impl HistoryEntry {
    /// A one-line summary for listings.
    pub fn summary(&self) -> String {
        if let Some(path) = &self.path {
            let old = self.old.as_deref().unwrap_or("null");
            let new = self.new.as_deref().unwrap_or("null");
            return format!("{path}: {old} -> {new}");
        }
        let head = self
            .event
            .as_deref()
            .or(self.status.as_deref())
            .unwrap_or("(entry)");
        match self.details.as_deref().or(self.reason.as_deref()) {
            Some(d) => format!("{head}: {d}"),
            None => head.to_string(),
        }
    }
}

/// Entries per chunk: a shared last chunk is copied whole on the next push.
const CHUNK: usize = 64;

#[derive(Debug, Clone, Default)]
pub struct History {
    chunks: Vec<Arc<Vec<HistoryEntry>>>,
    len: usize,
}

impl History {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Oldest first; `.rev()` for the newest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &HistoryEntry> + Clone {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    pub fn get(&self, i: usize) -> Option<&HistoryEntry> {
        (i < self.len).then(|| &self.chunks[i / CHUNK][i % CHUNK])
    }

    pub fn last(&self) -> Option<&HistoryEntry> {
        self.chunks.last().and_then(|c| c.last())
    }

    /// The entries from `from` on (the ones a transaction added, in tests and listings).
    pub fn since(&self, from: usize) -> impl DoubleEndedIterator<Item = &HistoryEntry> {
        (from.min(self.len)..self.len).map(|i| &self.chunks[i / CHUNK][i % CHUNK])
    }

    pub fn push(&mut self, e: HistoryEntry) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => Arc::make_mut(c).push(e),
            _ => self.chunks.push(Arc::new(vec![e])),
        }
        self.len += 1;
    }

    /// Keep the first `n` entries.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        self.chunks.truncate(n.div_ceil(CHUNK));
        if let Some(c) = self.chunks.last_mut()
            && !n.is_multiple_of(CHUNK)
        {
            Arc::make_mut(c).truncate(n % CHUNK);
        }
        self.len = n;
    }
}

impl std::ops::Index<usize> for History {
    type Output = HistoryEntry;

    fn index(&self, i: usize) -> &HistoryEntry {
        self.get(i)
            .unwrap_or_else(|| panic!("history entry {i} of {}", self.len))
    }
}

impl Extend<HistoryEntry> for History {
    fn extend<I: IntoIterator<Item = HistoryEntry>>(&mut self, iter: I) {
        for e in iter {
            self.push(e);
        }
    }
}

impl FromIterator<HistoryEntry> for History {
    fn from_iter<I: IntoIterator<Item = HistoryEntry>>(iter: I) -> History {
        let mut h = History::default();
        h.extend(iter);
        h
    }
}

impl From<Vec<HistoryEntry>> for History {
    fn from(v: Vec<HistoryEntry>) -> History {
        v.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a History {
    type Item = &'a HistoryEntry;
    type IntoIter = Box<dyn DoubleEndedIterator<Item = &'a HistoryEntry> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl Serialize for History {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(i: usize) -> HistoryEntry {
        HistoryEntry {
            revision: Some(i as u64),
            ..HistoryEntry::default()
        }
    }

    fn revisions(h: &History) -> Vec<u64> {
        h.iter().filter_map(|e| e.revision).collect()
    }

    #[test]
    fn a_copy_shares_and_a_push_or_truncate_leaves_the_original_alone() {
        // Lengths around the chunk's edges, truncated to every interesting point.
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7] {
            let h: History = (0..n).map(entry).collect();
            assert_eq!(h.len(), n);
            assert_eq!(revisions(&h), (0..n as u64).collect::<Vec<_>>());
            for cut in [0, 1, n / 2, n.saturating_sub(1), n, n + 3] {
                let mut c = h.clone();
                c.truncate(cut);
                c.push(entry(1000));
                let kept = cut.min(n);
                assert_eq!(c.len(), kept + 1, "n {n} cut {cut}");
                let mut want: Vec<u64> = (0..kept as u64).collect();
                want.push(1000);
                assert_eq!(revisions(&c), want, "n {n} cut {cut}");
                assert_eq!(c.last().and_then(|e| e.revision), Some(1000));
                assert_eq!(c[kept].revision, Some(1000));
                assert_eq!(
                    c.since(kept).map(|e| e.revision).collect::<Vec<_>>(),
                    [Some(1000)]
                );
                // The original is untouched by the copy's changes.
                assert_eq!(revisions(&h), (0..n as u64).collect::<Vec<_>>());
            }
            assert_eq!(
                h.iter().next_back().and_then(|e| e.revision),
                n.checked_sub(1).map(|x| x as u64)
            );
            assert!(h.get(n).is_none());
        }
    }
}
