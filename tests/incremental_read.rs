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
