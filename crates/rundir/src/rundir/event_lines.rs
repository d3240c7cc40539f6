//! Lines of a long append-only log on disk, without holding it: where every `EVERY`th line
//! starts ([`LineIndex`]), where its last lines start ([`tail_start`]), a page of lines read
//! through the index ([`read_lines`]) and a search over the whole file ([`search`]). The
//! TUI keeps a window of recent events in memory and pages back through the file with
//! these (decision 0015).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// One offset is kept per this many lines: 1M lines cost 250 KB of index, and a page read
/// skips at most this many lines before its first.
pub(crate) const EVERY: u64 = 32;

/// Where lines `1`, `1 + EVERY`, `1 + 2·EVERY`, … start (line numbers from 1, as
/// [`super::tail::Tail`] counts them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineIndex {
    offsets: Vec<u64>,
    /// The lines seen so far (the newest line's number).
    lines: u64,
}

impl LineIndex {
    /// Note line `line_no` (1-based, each once, in order) starting at byte `offset`.
    pub fn push(&mut self, line_no: u64, offset: u64) {
        if (line_no - 1).is_multiple_of(EVERY) && (line_no - 1) / EVERY == self.offsets.len() as u64
        {
            self.offsets.push(offset);
        }
        self.lines = self.lines.max(line_no);
    }

    /// How many lines were noted.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// The nearest indexed line at or before `line` and its offset: a read of `line`
    /// starts there and skips the lines in between.
    pub fn locate(&self, line: u64) -> Option<(u64, u64)> {
        let k = (line.max(1) - 1) / EVERY;
        let k = k.min(self.offsets.len().checked_sub(1)? as u64);
        Some((k * EVERY + 1, self.offsets[k as usize]))
    }
}

/// The byte offset where the last `lines` complete lines of the file start (0 when it has
/// fewer), read backwards from its end in chunks: its cost follows those lines, not the
/// file.
pub fn tail_start(path: &Path, lines: usize) -> io::Result<u64> {
    let mut f = crate::fsutil::open_nofollow(path)?;
    let len = f.metadata()?.len();
    let mut end = len;
    let mut newlines = 0usize;
    let mut buf = vec![0u8; 64 * 1024];
    // The file's last byte is the last line's newline (or part of an unfinished line).
    let mut skip_last = true;
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(chunk)?;
        for i in (0..chunk.len()).rev() {
            if chunk[i] != b'\n' {
                continue;
            }
            if std::mem::take(&mut skip_last) && start + i as u64 == len - 1 {
                continue;
            }
            newlines += 1;
            if newlines == lines {
                return Ok(start + i as u64 + 1);
            }
        }
        skip_last = false;
        end = start;
    }
    Ok(0)
}

/// Hand out the lines `from ..= to` (1-based, inclusive) with their numbers, starting the
/// read at the index's nearest offset; a missing file has none. Empty lines are counted,
/// not handed out, as the follower counts them.
pub fn read_lines(
    path: &Path,
    index: &LineIndex,
    from: u64,
    to: u64,
    mut each: impl FnMut(u64, &[u8]),
) -> io::Result<()> {
    let Some((mut line_no, offset)) = index.locate(from) else {
        return Ok(());
    };
    let mut f = BufReader::new(crate::fsutil::open_nofollow(path)?);
    f.seek(SeekFrom::Start(offset))?;
    let mut line = Vec::new();
    while line_no <= to {
        line.clear();
        if f.read_until(b'\n', &mut line)? == 0 || line.last() != Some(&b'\n') {
            break;
        }
        line.pop();
        if line_no >= from && !line.is_empty() {
            each(line_no, &line);
        }
        line_no += 1;
    }
    Ok(())
}

/// The line nearest to line `at` (1-based) that contains `query`, ignoring ASCII case: the
/// newest before it when `older` (`u64::MAX`: the whole file), else the oldest after it.
/// One pass over the file at most, off the UI thread.
pub fn search(path: &Path, query: &str, at: u64, older: bool) -> io::Result<Option<u64>> {
    let needle = query.to_ascii_lowercase();
    if needle.is_empty() {
        return Ok(None);
    }
    let f: File = crate::fsutil::open_nofollow(path)?;
    let mut f = BufReader::with_capacity(1 << 20, f);
    let (mut line, mut line_no, mut hit) = (Vec::new(), 0u64, None);
    loop {
        line.clear();
        if f.read_until(b'\n', &mut line)? == 0 {
            return Ok(hit);
        }
        line_no += 1;
        if older && line_no >= at {
            return Ok(hit);
        }
        if !older && line_no <= at {
            continue;
        }
        line.make_ascii_lowercase();
        if String::from_utf8_lossy(&line).contains(&needle) {
            hit = Some(line_no);
            if !older {
                return Ok(hit);
            }
        }
    }
}

/// The string value of a top-level `"key"` in one compact JSON object line, without
/// parsing the line: `None` when it is not found plainly (an escape in the value, another
/// spelling), so the caller parses the line instead.
pub fn quick_field<'a>(line: &'a [u8], key: &str) -> Option<&'a str> {
    let text = std::str::from_utf8(line).ok()?;
    let pat = format!("\"{key}\":");
    let at = text.find(&pat)? + pat.len();
    let rest = text[at..].trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    let value = &rest[..end];
    (!value.contains('\\')).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(lines: u64) -> (tempfile::TempDir, std::path::PathBuf, LineIndex) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let mut f = std::fs::File::create(&path).unwrap();
        let mut index = LineIndex::default();
        let mut offset = 0;
        for n in 1..=lines {
            let line = format!("{{\"kind\":\"note\",\"message\":\"line {n}\"}}\n");
            index.push(n, offset);
            offset += line.len() as u64;
            f.write_all(line.as_bytes()).unwrap();
        }
        (dir, path, index)
    }

    #[test]
    fn pages_are_read_through_the_index() {
        let (_d, path, index) = file(100);
        assert_eq!(index.lines(), 100);
        assert_eq!(index.locate(70).map(|(l, _)| l), Some(65));
        let mut got = Vec::new();
        read_lines(&path, &index, 70, 72, |n, l| {
            got.push((n, String::from_utf8_lossy(l).into_owned()))
        })
        .unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].0, 70);
        assert!(got[0].1.contains("line 70\""), "{got:?}");
        assert!(got[2].1.contains("line 72\""));
    }

    #[test]
    fn the_tail_starts_where_the_last_lines_do() {
        let (_d, path, _) = file(100);
        let text = std::fs::read_to_string(&path).unwrap();
        let at = tail_start(&path, 3).unwrap() as usize;
        assert!(text[at..].starts_with("{\"kind\":\"note\",\"message\":\"line 98\"}"));
        assert_eq!(tail_start(&path, 1000).unwrap(), 0);
    }

    #[test]
    fn search_finds_the_newest_hit_before_a_line() {
        let (_d, path, _) = file(100);
        let s = |q: &str, at: u64, older: bool| search(&path, q, at, older).unwrap();
        assert_eq!(s("LINE 5\"", u64::MAX, true), Some(5));
        assert_eq!(s("line 9", u64::MAX, true), Some(99));
        assert_eq!(s("line 9", 99, true), Some(98));
        assert_eq!(s("line 9", 9, true), None);
        assert_eq!(s("line 9", 9, false), Some(90));
        assert_eq!(s("line 9", 99, false), None);
        assert_eq!(s("nowhere", u64::MAX, true), None);
    }

    #[test]
    fn quick_fields_are_read_plainly_or_not_at_all() {
        let cases: [(&str, &str, Option<&str>); 5] = [
            (
                r#"{"time":"t1","kind":"llm_call"}"#,
                "kind",
                Some("llm_call"),
            ),
            (r#"{"kind": "gate"}"#, "kind", Some("gate")),
            (r#"{"kind":"a\"b"}"#, "kind", None),
            (r#"{"time":"t1"}"#, "kind", None),
            (r#"{"kind":3}"#, "kind", None),
        ];
        for (line, key, want) in cases {
            assert_eq!(quick_field(line.as_bytes(), key), want, "{line}");
        }
    }
}
