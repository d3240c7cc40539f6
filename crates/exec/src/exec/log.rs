//! The job's log file: reading its tail while it grows, and the completion line at its end.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// How far back from the end a tail reads; long enough for dozens of progress lines.
const TAIL_WINDOW: u64 = 64 * 1024;

/// The last `n` lines of `path` (lossy UTF-8; progress bars' `\r` keep only their last
/// state). A missing or unreadable file is an empty tail: the job may not have written yet.
/// The last `n` lines of a job's log, secrets masked (`crate::redact::redact_known`): the
/// tail goes into repair and attribution prompts and onto the TUI, and experiment code may
/// have printed whatever it could read.
pub fn tail_lines(path: &Path, n: usize) -> Vec<String> {
    let secrets = crate::redact::known_secrets();
    read_tail(path)
        .map(|text| last_lines(&text, n))
        .unwrap_or_default()
        .into_iter()
        .map(|l| crate::redact::redact(&l, &secrets).into_owned())
        .collect()
}

/// The first and last lines of a job's log: the reflector's log brief (PrimeScientist's
/// `log_brief.log`: head and tail of the run, the middle left out).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Brief {
    /// The first lines; empty when the whole log fits in `tail`.
    pub head: Vec<String>,
    pub tail: Vec<String>,
    /// Lines left out between them (`None`: too long a log to count cheaply).
    pub omitted: Option<usize>,
}

/// The first `head` and last `tail` lines of `path`, secrets masked, read as `tail_lines`
/// reads (no link followed, at most two windows of the file). A log of at most
/// `head + tail` lines is all tail.
pub fn brief_lines(path: &Path, head: usize, tail: usize) -> Brief {
    let secrets = crate::redact::known_secrets();
    let mask = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .map(|l| crate::redact::redact(&l, &secrets).into_owned())
            .collect()
    };
    let Ok(mut file) = open_log(path) else {
        return Brief::default();
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return Brief::default();
    };
    if len <= 2 * TAIL_WINDOW {
        let mut bytes = Vec::new();
        if file.take(2 * TAIL_WINDOW).read_to_end(&mut bytes).is_err() {
            return Brief::default();
        }
        let all = last_lines(&String::from_utf8_lossy(&bytes), usize::MAX);
        if all.len() <= head + tail {
            return Brief {
                tail: mask(all),
                ..Brief::default()
            };
        }
        let omitted = all.len() - head - tail;
        return Brief {
            head: mask(all[..head].to_vec()),
            tail: mask(all[all.len() - tail..].to_vec()),
            omitted: Some(omitted),
        };
    }
    let mut bytes = Vec::new();
    if (&mut file)
        .take(TAIL_WINDOW)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return Brief::default();
    }
    // The window's last line may be cut: keep whole lines only.
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let first = last_lines(&String::from_utf8_lossy(&bytes[..end]), usize::MAX);
    Brief {
        head: mask(first.into_iter().take(head).collect()),
        tail: mask(
            read_tail(path)
                .map(|t| last_lines(&t, tail))
                .unwrap_or_default(),
        ),
        omitted: None,
    }
}

/// The log opened for reading, following no link (see `read_tail`).
fn open_log(path: &Path) -> io::Result<File> {
    let grandparent = path
        .parent()
        .and_then(Path::parent)
        .filter(|b| !b.as_os_str().is_empty());
    match grandparent {
        Some(base) => {
            let rel = path.strip_prefix(base).unwrap_or(path);
            crate::fsutil::open_beneath(base, rel, crate::fsutil::Beneath::Read)
        }
        None => crate::fsutil::open_nofollow(path),
    }
}

fn read_tail(path: &Path) -> io::Result<String> {
    // The tail goes into a repair prompt: a log (or a `results/` folder) the experiment
    // replaced by a link to a file outside its sandbox must not be read through it, so the
    // last two components (`results/run.log`) are opened following no link.
    let mut file = open_log(path)?;
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

/// Open the log for youra's own writes without following a link: experiment code can
/// replace `results/run.log` (or `results/`) with a symlink to any file youra may write,
/// the run's VSA included. The final component is opened with `O_NOFOLLOW` (a link fails
/// with ELOOP) and a linked parent folder is refused; `truncate` starts a new log.
pub(crate) fn open_log_file(path: &Path, truncate: bool) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
        && std::fs::symlink_metadata(parent)?.file_type().is_symlink()
    {
        return Err(io::Error::other(format!(
            "{} is a symlink: youra does not write logs through links the experiment may have planted",
            parent.display()
        )));
    }
    let mut o = OpenOptions::new();
    // O_NONBLOCK: a FIFO planted as the log fails at once (ENXIO) instead of blocking the
    // engine until someone reads it; `regular_only` refuses any other non-file and clears
    // the flag again.
    o.create(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    if truncate {
        o.write(true).truncate(true);
    } else {
        o.append(true);
    }
    let file = o.open(path).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => io::Error::other(format!(
            "{} is a symlink: youra does not write logs through links the experiment may have planted",
            path.display()
        )),
        Some(libc::ENXIO) => io::Error::other(format!(
            "{} is a FIFO: youra writes its log only to a regular file; remove it",
            path.display()
        )),
        _ => e,
    })?;
    crate::fsutil::regular_only(file, path)
}

/// Appends `line` to the log, on a line of its own even if the job left its last line
/// unterminated. Never through a link (see [`open_log_file`]).
pub(crate) fn append_line(path: &Path, line: &str) -> io::Result<()> {
    let mut file = open_log_file(path, false)?;
    let ends_open = last_byte(path)?.is_some_and(|b| b != b'\n');
    let sep = if ends_open { "\n" } else { "" };
    file.write_all(format!("{sep}{line}\n").as_bytes())
}

fn last_byte(path: &Path) -> io::Result<Option<u8>> {
    let mut file = match crate::fsutil::open_nofollow(path) {
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
    fn the_brief_keeps_head_and_tail_and_counts_the_middle() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let log = dir.path().join("results").join("run.log");
        std::fs::create_dir_all(log.parent().unwrap_or(dir.path()))?;
        // (lines in the log, head, tail, expected head, tail, omitted)
        let table: [(usize, usize, usize, usize, usize, Option<usize>); 3] = [
            (8, 3, 5, 0, 8, None),
            (20, 3, 5, 3, 5, Some(12)),
            (700, 100, 500, 100, 500, Some(100)),
        ];
        for (n, head, tail, want_head, want_tail, omitted) in table {
            let text: String = (1..=n).map(|i| format!("line {i}\n")).collect();
            std::fs::write(&log, text)?;
            let b = brief_lines(&log, head, tail);
            assert_eq!(
                (b.head.len(), b.tail.len(), b.omitted),
                (want_head, want_tail, omitted),
                "{n}"
            );
            assert_eq!(
                b.tail.last().map(String::as_str),
                Some(format!("line {n}").as_str())
            );
            if want_head > 0 {
                assert_eq!(b.head[0], "line 1");
            }
        }
        // Beyond two windows: the head from the start, the tail from the end, the middle
        // not counted; every line whole.
        let long: String = (1..=40_000)
            .map(|i| format!("epoch {i} loss 0.{i:05}\n"))
            .collect();
        std::fs::write(&log, long)?;
        let b = brief_lines(&log, 100, 500);
        assert_eq!((b.head.len(), b.tail.len(), b.omitted), (100, 500, None));
        assert_eq!(b.head[0], "epoch 1 loss 0.00001");
        assert_eq!(b.tail[499], "epoch 40000 loss 0.40000");
        // A link planted as the log is not followed.
        let outside = dir.path().join("secret");
        std::fs::write(&outside, "do not read\n")?;
        std::fs::remove_file(&log)?;
        std::os::unix::fs::symlink(&outside, &log)?;
        assert_eq!(brief_lines(&log, 100, 500), Brief::default());
        Ok(())
    }

    #[test]
    fn a_fifo_as_the_log_is_refused_at_once() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let log = dir.path().join("run.log");
        let c = std::ffi::CString::new(log.to_str().unwrap_or_default())?;
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        for truncate in [true, false] {
            let e = open_log_file(&log, truncate).unwrap_err();
            assert!(e.to_string().contains("is a FIFO"), "{e}");
        }
        assert!(append_line(&log, "done").is_err());
        Ok(())
    }

    #[test]
    fn logs_are_never_written_through_a_link() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join("verification_state.yaml");
        std::fs::write(&target, "revision: 3\n")?;
        let results = dir.path().join("ws/results");
        std::fs::create_dir_all(&results)?;
        let log = results.join("run.log");
        std::os::unix::fs::symlink(&target, &log)?;
        let e = append_line(&log, "EXPERIMENT COMPLETE (exit=0)").unwrap_err();
        assert!(e.to_string().contains("is a symlink"), "{e}");
        assert!(open_log_file(&log, true).is_err(), "truncating refuses too");
        assert_eq!(std::fs::read_to_string(&target)?, "revision: 3\n");
        // A linked results folder is refused as well.
        std::fs::remove_file(&log)?;
        std::fs::remove_dir(&results)?;
        std::os::unix::fs::symlink(dir.path(), &results)?;
        assert!(append_line(&results.join("verification_state.yaml"), "x").is_err());
        assert_eq!(std::fs::read_to_string(&target)?, "revision: 3\n");
        Ok(())
    }

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
