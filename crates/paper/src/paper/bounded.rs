//! Compiling Typst with a deadline and a memory bound. Typst has no cancellation, so a
//! compile on a thread past its deadline would spin on a CPU for ever; instead the youra
//! executable compiles in a child process (the hidden `youra __paper-pdf` subcommand, which
//! runs [`serve`]) with `RLIMIT_AS` set before it execs (`exec::limits::install`, which also
//! makes it its own process group), and the parent kills the group at the wall-clock
//! deadline. The child is kept between compiles (fonts parsed once, Typst's memoized work
//! reused: the cost a run pays stays that of an in-process compile) and replaced after a
//! kill, a death, a change of bound or [`RECYCLE`] requests.
//!
//! Protocol: a request is a little-endian u64 length and that much JSON (`{root, jobs}`);
//! the child answers one frame per job: a status byte (0: a PDF, 1: an error message), a
//! little-endian u64 length, the bytes.

use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::settings::Bounds;

/// The hidden subcommand the child runs.
pub(crate) const SUBCOMMAND: &str = "__paper-pdf";

/// The most a request or an answer may hold (a paper's markup is kilobytes, its PDF
/// megabytes; more is not a paper).
const CAP: u64 = 1 << 30;

/// Requests one child serves before a fresh one replaces it (its memoized work grows).
pub(crate) const RECYCLE: u32 = 16;

/// Set by `cli::run`: this process is the youra executable, so it can run [`SUBCOMMAND`].
static IS_CLI: AtomicBool = AtomicBool::new(false);

/// Called by the command line's entry: `current_exe` is youra itself.
pub fn mark_cli() {
    IS_CLI.store(true, Ordering::Relaxed);
}

/// Why a compile gave no PDF.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Past the deadline: the child was killed.
    Deadline(Duration),
    /// Typst refused the markup (its message).
    Typst(String),
    /// The child ended without answering: killed by its memory or CPU bound, or crashed.
    Died(String),
    /// No child could be started.
    Start(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Deadline(d) => write!(
                f,
                "no PDF: compile took longer than {} s (raise [paper] compile_timeout_s to allow more)",
                d.as_secs_f64()
            ),
            Failure::Typst(m) => write!(f, "no PDF: Typst refused the markup: {m}"),
            Failure::Died(m) => write!(f, "no PDF: the compiling process {m}"),
            Failure::Start(m) => write!(f, "no PDF: {m}"),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Request {
    root: PathBuf,
    jobs: Vec<String>,
}

type Frame = Result<Vec<u8>, String>;

/// The youra executable: this one when it is the command line, else a `youra` beside this
/// program or one folder up (a test or bench binary in `target/<profile>/deps/`).
fn compiler_exe() -> Result<PathBuf, Failure> {
    let me = std::env::current_exe()
        .map_err(|e| Failure::Start(format!("cannot find this program's executable: {e}")))?;
    if IS_CLI.load(Ordering::Relaxed) {
        return Ok(me);
    }
    let dir = me.parent().unwrap_or(Path::new("."));
    [dir.join("youra"), dir.join("../youra")]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| {
            Failure::Start(format!(
                "no youra executable next to {} compiles the PDF in a bounded process",
                me.display()
            ))
        })
}

/// A running compile child.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    frames: mpsc::Receiver<Frame>,
    /// The end of what it wrote to stderr (why it died).
    stderr: Arc<Mutex<Vec<u8>>>,
    memory: u64,
    served: u32,
}

/// The child this process compiles with, if one is running.
static WORKER: Mutex<Option<Worker>> = Mutex::new(None);

/// Every child killed at its deadline or after dying, for the tests' look at `/proc`.
static KILLED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// The ids of the compile children this process killed so far.
pub fn killed() -> Vec<u32> {
    KILLED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

impl Worker {
    fn spawn(memory: u64) -> Result<Worker, Failure> {
        let exe = compiler_exe()?;
        let mut command = Command::new(&exe);
        command
            .arg(SUBCOMMAND)
            .env("MALLOC_ARENA_MAX", "2")
            // Its last words are read back into a message: no backtrace in them.
            .env("RUST_BACKTRACE", "0")
            .env("RUST_LIB_BACKTRACE", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        crate::exec::limits::install(
            &mut command,
            crate::exec::limits::ChildLimits::new(Some(memory), None),
        );
        let mut child = command
            .spawn()
            .map_err(|e| Failure::Start(format!("cannot start {}: {e}", exe.display())))?;
        let (Some(stdin), Some(stdout), Some(err)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            kill(child);
            return Err(Failure::Start("the child's pipes were not opened".into()));
        };
        let (tx, frames) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(f) = read_frame(&mut r) {
                if tx.send(f).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut err = err;
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
                t.extend_from_slice(&buf[..n]);
                let over = t.len().saturating_sub(2048);
                t.drain(..over);
            }
        });
        Ok(Worker {
            child,
            stdin,
            frames,
            stderr,
            memory,
            served: 0,
        })
    }

    /// Why it ended (after it closed its output): its status and its last words.
    fn death(mut self) -> String {
        // It closed its output as it ended: give it a moment to be reaped.
        let mut status = None;
        for _ in 0..50 {
            status = self.child.try_wait().ok().flatten();
            if status.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let said =
            String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(PoisonError::into_inner))
                .lines()
                .rfind(|l| !l.trim().is_empty() && !l.starts_with("note:"))
                .unwrap_or("")
                .chars()
                .take(300)
                .collect::<String>();
        let memory = self.memory >> 20;
        kill(self.child);
        use std::os::unix::process::ExitStatusExt;
        let how = match status.and_then(|s| s.signal()) {
            Some(sig) => format!("was killed by signal {sig} (its memory bound: {memory} MiB)"),
            None => match status {
                Some(s) => format!("ended with {s} (its memory bound: {memory} MiB)"),
                None => "stopped answering".to_string(),
            },
        };
        if said.is_empty() {
            how
        } else {
            format!("{how}: {said}")
        }
    }
}

/// Kill `child`'s process group and reap it.
fn kill(mut child: Child) {
    let pid = child.id();
    let _ = crate::exec::limits::signal_group(pid, libc::SIGKILL);
    let _ = child.kill();
    let _ = child.wait();
    KILLED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(pid);
}

/// Compile each job's markup (files resolved in `root`) in the bounded child, in order.
/// `Ok` holds one result per job the child finished within the deadline (the ones it did
/// not reach are missing from the end); none finished is `Err`.
pub fn compile_all(root: &Path, jobs: Vec<String>, bounds: Bounds) -> Result<Vec<Frame>, Failure> {
    let mut slot = WORKER.lock().unwrap_or_else(PoisonError::into_inner);
    let started = Instant::now();
    let want = jobs.len();
    let request = serde_json::to_vec(&Request {
        root: root.to_path_buf(),
        jobs,
    })
    .map_err(|e| Failure::Start(format!("cannot encode the request: {e}")))?;
    let stale = slot.as_mut().is_some_and(|w| {
        w.memory != bounds.memory_bytes
            || w.served >= RECYCLE
            || !matches!(w.child.try_wait(), Ok(None))
    });
    if stale && let Some(w) = slot.take() {
        kill(w.child);
    }
    let mut worker = match slot.take() {
        Some(w) => w,
        None => Worker::spawn(bounds.memory_bytes)?,
    };
    worker.served += 1;
    let frame = [&(request.len() as u64).to_le_bytes()[..], &request[..]].concat();
    // The child reads the whole request before it compiles, and a pipe holds 64 KiB: a
    // larger request is written while the child reads it, so this cannot block past its end.
    if let Err(e) = worker
        .stdin
        .write_all(&frame)
        .and_then(|()| worker.stdin.flush())
    {
        return Err(Failure::Died(format!("{} (sending: {e})", worker.death())));
    }
    let mut results = Vec::with_capacity(want);
    while results.len() < want {
        let left = bounds.deadline.saturating_sub(started.elapsed());
        match worker.frames.recv_timeout(left) {
            Ok(f) => results.push(f),
            Err(RecvTimeoutError::Timeout) => {
                kill(worker.child);
                return if results.is_empty() {
                    Err(Failure::Deadline(bounds.deadline))
                } else {
                    Ok(results)
                };
            }
            Err(RecvTimeoutError::Disconnected) => {
                let why = worker.death();
                return if results.is_empty() {
                    Err(Failure::Died(why))
                } else {
                    Ok(results)
                };
            }
        }
    }
    *slot = Some(worker);
    Ok(results)
}

/// One frame from the child, or `None` at its end (or a cut frame).
fn read_frame(r: &mut impl Read) -> Option<Frame> {
    let mut head = [0u8; 9];
    r.read_exact(&mut head).ok()?;
    let mut len = [0u8; 8];
    len.copy_from_slice(&head[1..]);
    let len = u64::from_le_bytes(len);
    if len > CAP {
        return None;
    }
    let mut body = Vec::new();
    r.take(len).read_to_end(&mut body).ok()?;
    if body.len() as u64 != len {
        return None;
    }
    Some(if head[0] == 0 {
        Ok(body)
    } else {
        Err(String::from_utf8_lossy(&body).into_owned())
    })
}

/// The child's side: read requests from stdin until it closes, compile each job with the
/// request's root as the paper's folder, answer one frame per job on stdout.
pub fn serve() -> i32 {
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    loop {
        let mut len = [0u8; 8];
        if input.read_exact(&mut len).is_err() {
            return 0;
        }
        let len = u64::from_le_bytes(len);
        let mut bytes = Vec::new();
        if len > CAP || (&mut input).take(len).read_to_end(&mut bytes).is_err() {
            eprintln!("a request larger than {CAP} bytes or cut short");
            return 2;
        }
        let request: Request = match serde_json::from_slice(&bytes) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("the request is not a job list: {e}");
                return 2;
            }
        };
        for markup in request.jobs {
            let (status, body) = match super::pdf::compile(&request.root, markup) {
                Ok(pdf) => (0u8, pdf),
                Err(e) => (1u8, e.into_bytes()),
            };
            let frame = [
                &[status][..],
                &(body.len() as u64).to_le_bytes()[..],
                &body[..],
            ]
            .concat();
            if out.write_all(&frame).and_then(|()| out.flush()).is_err() {
                return 2;
            }
        }
        // Keep what later compiles of the same paper reuse, drop what they will not.
        typst::comemo::evict(10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_back_and_a_cut_one_is_left_out() {
        let mut bytes = Vec::new();
        for (s, b) in [(0u8, &b"%PDF"[..]), (1, b"bad")] {
            bytes.push(s);
            bytes.extend((b.len() as u64).to_le_bytes());
            bytes.extend(b);
        }
        bytes.extend([0u8, 9, 0, 0, 0, 0, 0, 0, 0, 1]);
        let mut r = &bytes[..];
        assert_eq!(read_frame(&mut r), Some(Ok(b"%PDF".to_vec())));
        assert_eq!(read_frame(&mut r), Some(Err("bad".to_string())));
        assert_eq!(read_frame(&mut r), None);
    }
}
