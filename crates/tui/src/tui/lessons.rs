//! The Reflection pane's lessons browser as data: the memory records of every run given to
//! `youra tui` (the shown run first), filtered, grouped by hypothesis or by failure category,
//! and narrowed by a `/` search. The pane draws these entries and the commands act on the
//! same entries, so what is drawn, counted, opened and linked agree. Pure: no I/O here.

use ratatui::crossterm::event::KeyEvent;

use super::app::{App, PaneId};
use super::effect::Effect;
use super::keymap::Command;
use super::lessons_state::{Grouping, Search, SearchEdit};
use crate::rundir::lessons::RecordLinks;
use crate::rundir::memory::MemoryRecord;

/// One listed record.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// The run's name when several runs are shown.
    pub run: Option<&'a str>,
    /// The folder of the record's run (its links are shown relative to it).
    pub root: &'a std::path::Path,
    pub record: &'a MemoryRecord,
    pub links: Option<&'a RecordLinks>,
    /// The group heading it is listed under (`None`: the grouping's "none" heading).
    pub group: Option<&'a str>,
}

/// The shown run's name: its folder's.
pub fn run_name(app: &App) -> &str {
    app.run
        .root
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("this run")
}

/// Every record of every run, before filters.
pub(crate) fn all_records(app: &App) -> impl Iterator<Item = &MemoryRecord> {
    app.data
        .memory
        .iter()
        .chain(app.data.lessons_from.iter().flat_map(|o| o.records.iter()))
}

/// The listed entries, in display order: grouped (records without a group last), then by
/// run in the order given, kind and id.
pub fn entries(app: &App) -> Vec<Entry<'_>> {
    let shown_name = run_name(app);
    let several = !app.data.lessons_from.is_empty();
    let grouping = app.lessons.grouping;
    let query = &app.lessons.search.query;
    let mut out: Vec<(usize, Entry)> = Vec::new();
    let shown = (
        shown_name,
        app.run.root.as_path(),
        &app.data.memory[..],
        &app.data.memory_links[..],
    );
    let runs = std::iter::once(shown).chain(app.data.lessons_from.iter().map(|o| {
        (
            o.name.as_str(),
            o.root.as_path(),
            &o.records[..],
            &o.links[..],
        )
    }));
    for (n, (name, root, records, links)) in runs.enumerate() {
        for (i, r) in records.iter().enumerate() {
            if !app.filters.keeps(r) {
                continue;
            }
            if !query.is_empty() && !matches(r, name, query) {
                continue;
            }
            let group = match grouping {
                Grouping::Hypothesis => super::filters::group(r),
                Grouping::Category => r.category.as_deref(),
            };
            let entry = Entry {
                run: several.then_some(name),
                root,
                record: r,
                links: links.get(i),
                group,
            };
            out.push((n, entry));
        }
    }
    out.sort_by(|(ra, a), (rb, b)| {
        (a.group.is_none(), a.group)
            .cmp(&(b.group.is_none(), b.group))
            .then(ra.cmp(rb))
            .then(a.record.kind.cmp(&b.record.kind))
            .then(a.record.id.cmp(&b.record.id))
    });
    out.into_iter().map(|(_, e)| e).collect()
}

/// The search matches the record's text, its id or its run's name, case folded.
fn matches(r: &MemoryRecord, run: &str, query: &str) -> bool {
    [r.body.as_str(), r.id.as_str(), run]
        .iter()
        .any(|t| !find_folded(t, query).is_empty())
}

/// Character ranges of `needle` in `hay`, compared case-insensitively character by
/// character (so the ranges index `hay`'s own characters, for highlighting).
pub(crate) fn find_folded(hay: &str, needle: &str) -> Vec<(usize, usize)> {
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let h: Vec<char> = hay.chars().map(fold).collect();
    let n: Vec<char> = needle.chars().map(fold).collect();
    if n.is_empty() || n.len() > h.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i + n.len() <= h.len() {
        if h[i..i + n.len()] == n[..] {
            out.push((i, i + n.len()));
            i += n.len();
        } else {
            i += 1;
        }
    }
    out
}

/// The selected entry, if any.
pub fn selected(app: &App) -> Option<Entry<'_>> {
    entries(app).get(app.selected(PaneId::Reflection)).copied()
}

pub(crate) fn toggle_grouping(app: &mut App) {
    app.lessons.grouping = match app.lessons.grouping {
        Grouping::Hypothesis => Grouping::Category,
        Grouping::Category => Grouping::Hypothesis,
    };
    app.selected_mut(PaneId::Reflection, 0);
}

pub(crate) fn start_search(app: &mut App) {
    app.lessons.search = Search {
        typing: true,
        query: String::new(),
    };
    app.selected_mut(PaneId::Reflection, 0);
}

/// Esc outside typing drops a kept search.
pub(crate) fn clear_search(app: &mut App) {
    if !app.lessons.search.query.is_empty() {
        app.lessons.search = Search::default();
        app.selected_mut(PaneId::Reflection, 0);
    }
}

/// A key while the query is typed: Enter keeps it as the filter, Esc clears it, Backspace
/// edits, every other character is part of the query (never a pane command).
pub(crate) fn search_key(app: &mut App, key: KeyEvent, cmd: Option<Command>) -> Vec<Effect> {
    if app.lessons.search.edit(key, cmd) != SearchEdit::Ignored {
        app.selected_mut(PaneId::Reflection, 0);
    }
    Vec::new()
}

/// `n` / `N`: the next or previous matching record, wrapping around.
pub(crate) fn step_match(app: &mut App, forward: bool) {
    if app.lessons.search.query.is_empty() {
        app.toast = Some(("no search: / searches the records".into(), false));
        return;
    }
    let n = app.rows(PaneId::Reflection);
    if n == 0 {
        app.toast = Some((
            format!("no record matches “{}”", app.lessons.search.query),
            true,
        ));
        return;
    }
    let s = app.selected(PaneId::Reflection);
    let next = if forward {
        (s + 1) % n
    } else {
        (s + n - 1) % n
    };
    app.selected_mut(PaneId::Reflection, next);
}

/// Which link of the selected record to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    Archive,
    Log,
}

/// Open the selected record's archive marker or attempt log in the viewer.
pub(crate) fn open_link(app: &mut App, link: Link) -> Vec<Effect> {
    let Some(e) = selected(app) else {
        app.toast = Some(("no record selected".into(), true));
        return Vec::new();
    };
    let path = e.links.and_then(|l| match link {
        Link::Archive => l.archive.clone(),
        Link::Log => l.log.clone(),
    });
    let h = e.record.hypothesis.clone().unwrap_or_else(|| "-".into());
    match path {
        Some(p) => vec![Effect::OpenFile(p)],
        None => {
            app.toast = Some((
                match link {
                    Link::Archive => format!("no archive names {h} (_archive/*/_ARCHIVED.md)"),
                    Link::Log => format!("no experiment log of {h} in its folder"),
                },
                true,
            ));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::find_folded;

    #[test]
    fn folded_matches_index_the_original_characters() {
        assert_eq!(find_folded("Scale ÉTÉ scale", "scale"), [(0, 5), (10, 15)]);
        assert_eq!(find_folded("été", "ÉT"), [(0, 2)]);
        assert!(find_folded("abc", "").is_empty());
        assert!(find_folded("ab", "abc").is_empty());
    }
}
