//! The interpreter probe's answers (`run_card_probe::interpreter`), kept for the life of the
//! process. Asking Python for its packages after every job cost a trivial job three times its
//! own run (the `exec` bench); an answer is reused while nothing it was read from changed:
//!
//! - the program asked (the link and the file it names) and the interpreter it reported
//!   (`sys.executable`): device, inode, size, modification and change times;
//! - every folder on that interpreter's `sys.path`, present or absent: installing, upgrading
//!   or removing a distribution adds or removes a `*.dist-info` entry there, which moves the
//!   folder's times; and what sets `sys.path` at start-up: a virtual environment's
//!   `pyvenv.cfg`, the `.pth` files and `sitecustomize.py` in those folders.
//!
//! Not kept, so asked again next time:
//! - a program that is a script (`#!`: a pyenv or conda shim picks its interpreter by
//!   settings youra does not see);
//! - an answer with an error;
//! - an answer read within [`SETTLE`] of a change to any of those files (a file system whose
//!   clock ticks coarser than the change would show no move in the times).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use super::run_card_model::Interpreter;

/// How long after a change an answer is not kept (FAT's times tick in 2 s; most in ns).
const SETTLE: Duration = Duration::from_secs(2);
/// Interpreters remembered at once; beyond, the memory starts over.
const MAX_KEPT: usize = 32;

/// Which program, on which `PATH` (a bare `python3` resolves through it).
type Key = (PathBuf, Option<String>);

/// One file's identity and times, or `None` when it is absent.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileStamp {
    fn of(m: &std::fs::Metadata) -> FileStamp {
        FileStamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }

    /// Whether its last change is after [`SETTLE`] before `now`.
    fn settling(&self, now: SystemTime) -> bool {
        let latest = self.mtime.max(self.ctime);
        let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
            return true;
        };
        let Ok(secs) = u64::try_from(latest.0) else {
            return false;
        };
        let at = Duration::new(secs, u32::try_from(latest.1).unwrap_or(0));
        now.saturating_sub(at) < SETTLE
    }
}

/// What an answer was read from: each path with its stamp, the program's link first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Inputs {
    paths: Vec<(PathBuf, bool)>,
    stamps: Vec<Option<FileStamp>>,
}

impl Inputs {
    /// The stamps of `program` (its link and its file), `executable` and each of `dirs`;
    /// `None` when the answer may not be kept (a script, no executable reported).
    pub(super) fn read(program: &Path, executable: Option<&str>, dirs: &[PathBuf]) -> Option<Self> {
        if is_script(program) {
            return None;
        }
        let executable = PathBuf::from(executable?);
        if !executable.is_absolute() {
            return None;
        }
        let mut paths = vec![
            (program.to_path_buf(), false),
            (program.to_path_buf(), true),
        ];
        paths.push((executable, true));
        // A virtual environment's settings choose its `sys.path`.
        if let Some(bin) = paths[2].0.parent() {
            for cfg in [bin.join("pyvenv.cfg"), bin.join("../pyvenv.cfg")] {
                paths.push((cfg, true));
            }
        }
        // `sys.path` is read with `/` as the working folder; the `.pth` files and
        // `sitecustomize.py` in its folders add to it at start-up, edited in place or not.
        for dir in dirs.iter().map(|d| Path::new("/").join(d)) {
            let startup = std::fs::read_dir(&dir).into_iter().flatten().flatten();
            let startup: Vec<PathBuf> = startup
                .filter(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name.ends_with(".pth") || name == "sitecustomize.py"
                })
                .map(|e| e.path())
                .collect();
            paths.push((dir, true));
            paths.extend(startup.into_iter().map(|p| (p, true)));
        }
        let stamps = stamps(&paths);
        Some(Inputs { paths, stamps })
    }

    /// Whether any file changed after [`SETTLE`] before `now`.
    fn settling(&self, now: SystemTime) -> bool {
        self.stamps.iter().flatten().any(|s| s.settling(now))
    }

    /// Whether every path still has the stamp it had.
    fn unchanged(&self) -> bool {
        stamps(&self.paths) == self.stamps
    }
}

fn stamps(paths: &[(PathBuf, bool)]) -> Vec<Option<FileStamp>> {
    paths
        .iter()
        .map(|(p, follow)| {
            let m = if *follow {
                std::fs::metadata(p)
            } else {
                std::fs::symlink_metadata(p)
            };
            m.ok().map(|m| FileStamp::of(&m))
        })
        .collect()
}

/// Whether `program` (through its links: a venv's `python3` is one) starts with `#!`; a
/// program that is no regular file counts as one (opened without blocking: no FIFO hangs).
fn is_script(program: &Path) -> bool {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    if !std::fs::metadata(program).is_ok_and(|m| m.is_file()) {
        return true;
    }
    let mut head = [0u8; 2];
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(program)
        .and_then(|mut f| f.read_exact(&mut head))
        .map_or(true, |()| &head == b"#!")
}

struct Kept {
    /// What the answer was read from, and the answer; `None` when it may not be kept.
    answer: Option<(Inputs, Interpreter)>,
    /// How many times this program was really asked (for the tests).
    asked: u32,
}

static KEPT: Mutex<Option<HashMap<Key, Kept>>> = Mutex::new(None);

/// The kept answer for `program` on `path_var`, when nothing it was read from changed.
pub(super) fn get(program: &Path, path_var: Option<&str>) -> Option<Interpreter> {
    let kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    let entry = kept
        .as_ref()?
        .get(&(program.to_path_buf(), path_var.map(str::to_string)))?;
    let (inputs, card) = entry.answer.as_ref()?;
    inputs.unchanged().then(|| card.clone())
}

/// Record that `program` was asked at `asked_at`, and keep `card` when `inputs` (read after
/// the answer) allow it and none of them changed since [`SETTLE`] before the question: a
/// change while it ran may or may not show in the answer.
pub(super) fn put(
    program: &Path,
    path_var: Option<&str>,
    inputs: Option<Inputs>,
    card: &Interpreter,
    asked_at: SystemTime,
) {
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    let map = kept.get_or_insert_with(HashMap::new);
    let key = (program.to_path_buf(), path_var.map(str::to_string));
    let asked = map.get(&key).map_or(0, |k| k.asked) + 1;
    let answer = inputs
        .filter(|i| card.error.is_none() && !i.settling(asked_at))
        .map(|i| (i, card.clone()));
    if map.len() >= MAX_KEPT && !map.contains_key(&key) {
        map.clear();
    }
    map.insert(key, Kept { answer, asked });
}

/// How many times `program` (on any `PATH`) was really asked in this process.
#[cfg(test)]
pub(super) fn asked(program: &Path) -> u32 {
    let kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    kept.as_ref().map_or(0, |m| {
        m.iter()
            .filter(|((p, _), _)| p == program)
            .map(|(_, k)| k.asked)
            .sum()
    })
}
