//! Appended files read from where the last read ended (issue 30): an append hands out only
//! the new lines; a truncation, a rotation (another file at the path) or a rewrite in place
//! already past the offset starts over and says so; an unfinished last line waits for its
//! newline; a garbage line in the middle is named by its line number and the lines after
//! it are still read.

use std::io::Write;
use std::path::Path;

use youra::rundir::events::{Event, EventTail};
use youra::rundir::tail::Tail;

fn append(path: &Path, bytes: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(bytes.as_bytes()).unwrap();
}

/// Every line a read hands out, with its number, and whether it restarted.
fn lines(tail: &mut Tail) -> (bool, Vec<(u64, String)>) {
    let mut out = Vec::new();
    let r = tail
        .read(|n, l| out.push((n, String::from_utf8_lossy(l).into_owned())))
        .unwrap();
    assert_eq!(r.lines as usize, out.len());
    (r.restarted, out)
}

fn owned(v: &[(u64, &str)]) -> Vec<(u64, String)> {
    v.iter().map(|(n, s)| (*n, s.to_string())).collect()
}

#[test]
fn an_append_reads_only_the_new_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.txt");
    let mut tail = Tail::new(&path);
    assert_eq!(lines(&mut tail), (false, vec![]), "a missing file is empty");
    append(&path, "one\ntwo\n");
    assert_eq!(lines(&mut tail), (false, owned(&[(1, "one"), (2, "two")])));
    assert_eq!(tail.offset(), 8);
    assert_eq!(
        lines(&mut tail),
        (false, vec![]),
        "nothing new, nothing read"
    );
    append(&path, "three\n\nfive\n");
    assert_eq!(
        lines(&mut tail),
        (false, owned(&[(3, "three"), (5, "five")])),
        "an empty line counts, is not handed out"
    );
}

#[test]
fn a_truncated_file_is_read_again_from_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("metrics.jsonl");
    let mut tail = Tail::new(&path);
    append(&path, "a\nb\nc\n");
    assert_eq!(lines(&mut tail).1.len(), 3);
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    append(&path, "x\n");
    assert_eq!(lines(&mut tail), (true, owned(&[(1, "x")])));
    append(&path, "y\n");
    assert_eq!(lines(&mut tail), (false, owned(&[(2, "y")])));
}

#[test]
fn a_file_rewritten_in_place_past_the_offset_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("metrics.jsonl");
    let mut tail = Tail::new(&path);
    append(&path, "step 1\nstep 2\n");
    assert_eq!(lines(&mut tail).1.len(), 2);
    // Same inode, already longer than what was read: only its bytes tell.
    std::fs::write(&path, "rerun 1\nrerun 2\nrerun 3\n").unwrap();
    assert_eq!(
        lines(&mut tail),
        (
            true,
            owned(&[(1, "rerun 1"), (2, "rerun 2"), (3, "rerun 3")])
        )
    );
    append(&path, "rerun 4\n");
    assert_eq!(lines(&mut tail), (false, owned(&[(4, "rerun 4")])));
}

#[test]
fn a_rotated_file_is_read_from_its_start_even_when_longer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("youra.log");
    let mut tail = Tail::new(&path);
    append(&path, "old 1\nold 2\n");
    assert_eq!(lines(&mut tail).1.len(), 2);
    // The writer renames the file away and starts a new one, already longer than the
    // offset: only its identity tells it apart.
    std::fs::rename(&path, dir.path().join("youra.log.1")).unwrap();
    append(&path, "new 1\nnew 2\nnew 3\n");
    assert_eq!(
        lines(&mut tail),
        (true, owned(&[(1, "new 1"), (2, "new 2"), (3, "new 3")]))
    );
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        lines(&mut tail),
        (true, vec![]),
        "a removed file restarts too"
    );
}

#[test]
fn a_partial_last_line_waits_for_its_newline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    let mut tail = Tail::new(&path);
    append(&path, "whole\nhal");
    assert_eq!(lines(&mut tail), (false, owned(&[(1, "whole")])));
    assert_eq!(tail.partial(), Some((2, &b"hal"[..])));
    append(&path, "f a line");
    assert_eq!(lines(&mut tail), (false, vec![]));
    append(&path, "\nnext\n");
    assert_eq!(
        lines(&mut tail),
        (false, owned(&[(2, "half a line"), (3, "next")])),
        "the line is handed out whole, once"
    );
    assert_eq!(tail.partial(), None);
}

#[test]
fn a_garbage_line_in_the_middle_is_named_and_the_rest_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    let ev = |kind: &str| serde_json::to_string(&Event::new(kind)).unwrap() + "\n";
    append(
        &path,
        &(ev("stage_start") + "{not json at all\n" + &ev("llm_call")),
    );
    let mut tail = EventTail::new(&path);
    let mut got = Vec::new();
    let r = tail.read(|e| got.push(e.kind)).unwrap();
    assert_eq!(got, ["stage_start", "llm_call"]);
    assert_eq!(r.bad.iter().map(|b| b.line).collect::<Vec<_>>(), [2]);
    assert!(!r.restarted);
    // A torn UTF-8 character is a bad line of its own too; the next read goes on after it.
    append(&path, &ev("caf\u{e9}"));
    let mut raw = std::fs::read(&path).unwrap();
    raw.extend_from_slice(b"{\"kind\":\"x\xc3\"}\n");
    std::fs::write(&path, &raw).unwrap();
    append(&path, &ev("stage_end"));
    got.clear();
    let r = tail.read(|e| got.push(e.kind)).unwrap();
    assert_eq!(got, ["caf\u{e9}", "stage_end"]);
    assert_eq!(r.bad.iter().map(|b| b.line).collect::<Vec<_>>(), [5]);
    assert_eq!(
        youra::rundir::events::read_counted(&path).1,
        2,
        "a one-shot read counts both"
    );
}

// The TUI's window of events (issue 30, item 2): the follower keeps the newest
// `follow::WINDOW` rows, counts and indexes every line as it arrives, and older lines are
// paged back and searched on disk through the index.

mod window {
    use super::append;
    use youra::tui::event_pages;
    use youra::tui::event_pages_state::{Page, PageRequest, Select};
    use youra::tui::follow::{Follower, TAIL_FIRST_BYTES, WINDOW};

    fn grow(path: &std::path::Path, from: usize, to: usize, pad: usize) {
        let pad = "x".repeat(pad);
        let text: String = (from..=to)
            .map(|i| {
                let kind = if i % 2 == 0 { "llm_call" } else { "note" };
                format!("{{\"time\":\"2026-11-20T00:00:00Z\",\"kind\":\"{kind}\",\"message\":\"event {i}.{pad}\"}}\n")
            })
            .collect();
        append(path, &text);
    }

    fn lines_of(f: &mut Follower) -> (u64, u64, usize) {
        let now = f.events();
        let rows = now.rows.unwrap();
        (
            rows.front().map_or(0, |r| r.line),
            rows.back().map_or(0, |r| r.line),
            rows.len(),
        )
    }

    fn page(f: &mut Follower, path: &std::path::Path, from: u64, to: u64) -> Page {
        let index = f.events().lines.unwrap().clone();
        event_pages::run(PageRequest {
            path: path.to_path_buf(),
            index,
            from,
            to,
            select: Select::Newest,
            search: None,
        })
        .unwrap()
    }

    #[test]
    fn the_window_holds_the_newest_rows_and_counts_them_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let n = WINDOW + 500;
        grow(&path, 1, n, 0);
        let mut f = Follower::new(dir.path());
        assert_eq!(lines_of(&mut f), (501, n as u64, WINDOW));
        assert_eq!(f.events().counts.unwrap().events, n as u64);
        assert_eq!(
            f.events().counts.unwrap().by_kind["llm_call"],
            (n / 2) as u64
        );
        // An append moves the window; the counts follow it, the rows stay bounded.
        grow(&path, n + 1, n + 3, 0);
        assert_eq!(lines_of(&mut f), (504, n as u64 + 3, WINDOW));
        assert_eq!(f.events().counts.unwrap().events, n as u64 + 3);
        assert!(
            f.events()
                .rows
                .unwrap()
                .back()
                .unwrap()
                .text
                .contains(&format!("event {}.", n + 3))
        );
    }

    #[test]
    fn older_lines_are_paged_back_across_the_window_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        grow(&path, 1, WINDOW + 500, 0);
        let mut f = Follower::new(dir.path());
        let (first, _, _) = lines_of(&mut f);
        let p = page(&mut f, &path, first - 200, first - 1);
        let lines: Vec<u64> = p.rows.iter().map(|r| r.line).collect();
        assert_eq!(
            lines.first(),
            Some(&(first - 1)),
            "newest first, just before the window"
        );
        assert_eq!(lines.last(), Some(&(first - 200)));
        assert_eq!(lines.len(), 200);
        assert!(p.rows[0].text.contains(&format!("event {}.", first - 1)));
        // The file's first lines, as `g` asks for them.
        let top = page(&mut f, &path, 1, 5);
        assert_eq!((top.from, top.to, top.rows.len()), (1, 5, 5));
        assert!(top.rows[4].text.contains("event 1."));
    }

    #[test]
    fn a_search_finds_lines_outside_the_window() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        grow(&path, 1, WINDOW + 500, 0);
        let mut f = Follower::new(dir.path());
        let index = f.events().lines.unwrap().clone();
        let search = |query: &str, at: u64, older: bool| {
            event_pages::run(PageRequest {
                path: path.clone(),
                index: index.clone(),
                from: 0,
                to: 0,
                select: Select::Newest,
                search: Some((query.into(), at, older)),
            })
        };
        let p = search("EVENT 7.", u64::MAX, true).unwrap();
        assert_eq!(p.select, Select::Line(7));
        assert!(
            p.rows
                .iter()
                .any(|r| r.line == 7 && r.text.contains("event 7."))
        );
        assert!(p.from <= 7 && p.to >= 7);
        // The next older hit of "event 1" before line 100 is line 19; the next newer after
        // 19 is 100.
        assert_eq!(
            search("event 1", 100, true).unwrap().select,
            Select::Line(19)
        );
        assert_eq!(
            search("event 1", 19, false).unwrap().select,
            Select::Line(100)
        );
        assert!(search("no such event", u64::MAX, true).is_err());
    }

    #[test]
    fn a_truncated_file_resets_the_window_and_counts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        grow(&path, 1, WINDOW + 10, 0);
        let mut f = Follower::new(dir.path());
        assert_eq!(lines_of(&mut f).2, WINDOW);
        std::fs::write(&path, "").unwrap();
        grow(&path, 1, 3, 0);
        assert_eq!(lines_of(&mut f), (1, 3, 3));
        assert_eq!(f.events().counts.unwrap().events, 3);
        assert_eq!(f.events().lines.unwrap().lines(), 3);
    }

    #[test]
    fn a_large_log_is_first_read_by_its_tail_then_indexed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let n = 12_000;
        grow(&path, 1, n, 100);
        assert!(std::fs::metadata(&path).unwrap().len() > TAIL_FIRST_BYTES);
        let mut f = Follower::new(dir.path());
        let quick = f.events();
        assert!(!quick.indexed && quick.counts.is_none() && quick.lines.is_none());
        let rows = quick.rows.unwrap();
        assert_eq!(rows.len(), WINDOW);
        assert!(rows.back().unwrap().text.contains(&format!("event {n}.")));
        // The next read indexes the whole file: numbered rows, every line counted.
        assert_eq!(
            lines_of(&mut f),
            ((n - WINDOW + 1) as u64, n as u64, WINDOW)
        );
        let now = f.events();
        assert!(now.indexed);
        assert_eq!(now.counts.unwrap().events, n as u64);
        assert_eq!(now.lines.unwrap().lines(), n as u64);
    }

    #[test]
    fn events_new_since_the_last_look_are_counted_before_the_window_too() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let text: String = (1..=WINDOW + 1000)
            .map(|i| {
                let day = if i <= 500 { 19 } else { 21 };
                format!("{{\"time\":\"2026-11-{day}T00:00:00Z\",\"kind\":\"note\",\"message\":\"e{i}\"}}\n")
            })
            .collect();
        append(&path, &text);
        let mut f = Follower::new(dir.path());
        f.set_seen(youra::vsa::timestamp::Timestamp::parse(
            "2026-11-20T00:00:00Z",
        ));
        let now = f.events();
        assert_eq!(now.rows.unwrap().len(), WINDOW);
        assert_eq!(now.counts.unwrap().new_since_seen, (WINDOW + 500) as u64);
    }
}
