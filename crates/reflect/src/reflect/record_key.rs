//! Memory records written by a transition that a crash may interrupt must come out the
//! same when the transition is resumed: one record per (hypothesis, round), not one per
//! try. A record carries its key in a trailing HTML comment (invisible in Markdown); the
//! run number is the one a record with the same key already has, else the first free one,
//! and the resumed write replaces the file.

use std::path::{Path, PathBuf};

use super::memory_writer::{MemoryWriteError, Rendered};

fn marker(key: &str) -> String {
    format!("<!-- youra-key: {key} -->")
}

/// The run number for `{prefix}_{id}_run{n}.md` under `memory` for `key`.
pub fn run_number(memory: &Path, prefix: &str, id: &str, key: &str) -> u32 {
    let name = |n: u32| memory.join(format!("{prefix}_{id}_run{n}.md"));
    let mark = marker(key);
    (1..1000)
        .find(|n| {
            let p = name(*n);
            !p.exists() || crate::fsutil::read_run_text(&p).is_ok_and(|t| t.contains(&mark))
        })
        .unwrap_or(1)
}

/// Write `record` with its key, replacing an earlier try's file of the same name.
pub fn write_keyed(
    memory: &Path,
    record: &Rendered,
    key: &str,
) -> Result<PathBuf, MemoryWriteError> {
    let path = memory.join(&record.file_name);
    let io = |source| MemoryWriteError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(memory).map_err(io)?;
    let text = format!("{}\n{}\n", record.text.trim_end(), marker(key));
    crate::fsutil::write_atomic(&path, text.as_bytes()).map_err(io)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_key_finds_the_same_run() {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path();
        assert_eq!(run_number(m, "failure", "h-e1", "0"), 1);
        let r = Rendered {
            file_name: "failure_h-e1_run1.md".into(),
            text: "# x\n".into(),
        };
        write_keyed(m, &r, "0").unwrap();
        assert_eq!(
            run_number(m, "failure", "h-e1", "0"),
            1,
            "a resumed try reuses it"
        );
        assert_eq!(
            run_number(m, "failure", "h-e1", "1"),
            2,
            "a new round takes the next"
        );
        write_keyed(m, &r, "0").unwrap();
        assert_eq!(std::fs::read_dir(m).unwrap().count(), 1);
    }
}
