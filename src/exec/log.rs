//! The job's log file: reading its tail while it grows, and the completion line at its end.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// How far back from the end a tail reads; long enough for dozens of progress lines.
const TAIL_WINDOW: u64 = 64 * 1024;

/// The last `n` lines of `path` (lossy UTF-8; progress bars' `\r` keep only their last
/// state). A missing or unreadable file is an empty tail: the job may not have written yet.
pub fn tail_lines(path: &Path, n: usize) -> Vec<String> {
    read_tail(path)
        .map(|text| last_lines(&text, n))
        .unwrap_or_default()
}

fn read_tail(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(TAIL_WINDOW);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(TAIL_WINDOW).read_to_end(&mut bytes)?;
    // Drop a first line cut by the window: it would show as a fragment.
    if start > 0 {
        let cut = bytes.iter().position(|&b| b == b'\n').map_or(0, |p| p + 1);
        bytes.drain(..cut);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn last_lines(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            line.rsplit('\r')
                .find(|s| !s.is_empty())
                .unwrap_or("")
                .to_string()
        })
        .collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// Appends `line` to the log, on a line of its own even if the job left its last line
/// unterminated.
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    let ends_open = last_byte(path)?.is_some_and(|b| b != b'\n');
    let mut file = OpenOptions::new().append(true).create(true).open(path)?;
    let sep = if ends_open { "\n" } else { "" };
    file.write_all(format!("{sep}{line}\n").as_bytes())
}

fn last_byte(path: &Path) -> io::Result<Option<u8>> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if file.metadata()?.len() == 0 {
        return Ok(None);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut byte = [0u8];
    file.read_exact(&mut byte)?;
    Ok(Some(byte[0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_and_completion_line() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("run.log");
        std::fs::write(&path, "a\nb\nepoch 1\r epoch 2\rdone")?;
        append_line(&path, "EXPERIMENT COMPLETE (exit=0)")?;
        assert_eq!(
            tail_lines(&path, 3),
            vec!["b", "done", "EXPERIMENT COMPLETE (exit=0)"]
        );
        assert!(tail_lines(&dir.path().join("missing"), 3).is_empty());
        Ok(())
    }
}
