//! The one way youra runs git on a per-node repository (`<run>/.youra/code/<h>.git`), which
//! may come from a handed run folder and is then another person's data. git still parses the
//! repository's own `config` (nothing switches that off), so everything it could make git
//! run is either overridden here on the command line (which wins over every file) or out of
//! reach of the subcommands youra uses:
//!
//! - no system or user configuration, no system attributes, `core.attributesFile` empty;
//! - hooks off (`core.hooksPath=/dev/null`, which also covers reference-transaction hooks),
//!   no fsmonitor, no signing, no pager, no lazy fetch of missing objects from a promisor
//!   remote (`GIT_NO_LAZY_FETCH`, `protocol.allow=never`: a remote's `uploadpack` is a
//!   command);
//! - filters and attributes are never consulted: files are hashed with `hash-object
//!   --no-filters` and written back from `cat-file blob` by youra itself (`code_tree.rs`),
//!   and `diff` runs with `--no-ext-diff --no-textconv` and an empty attribute tree;
//! - every revision is an [`ObjectId`](super::object_id::ObjectId) or a ref name youra made,
//!   after `--end-of-options`;
//! - every call has a deadline: a repository whose config includes a FIFO, or whose
//!   `objects/info/alternates` is one, makes git wait forever, and youra must not.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::code_error::CodeError;

/// The longest one git call may take: far above any honest call (hashing a large result
/// file takes seconds), far below forever.
pub const DEADLINE: Duration = Duration::from_secs(300);
/// git's empty tree, which every git knows without storing it.
pub(crate) const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// Settings given on every call; a `-c` on the command line wins over the repository's
/// `config` and anything it includes.
const NEUTRAL: [&str; 13] = [
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.attributesFile=/dev/null",
    "core.symlinks=false",
    "core.autocrlf=false",
    "core.pager=cat",
    "commit.gpgSign=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "protocol.allow=never",
    "attr.tree=4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "user.name=youra",
    "user.email=youra@localhost",
];

/// What one call reads and where its output goes.
#[derive(Default)]
pub struct Io<'a> {
    /// A temporary index (`GIT_INDEX_FILE`) for this call.
    pub index: Option<&'a Path>,
    pub env: &'a [(&'a str, &'a str)],
    /// Bytes for stdin, or a file youra opened (no link followed, regular only).
    pub stdin: Option<Input>,
    /// Where stdout goes instead of being returned (a file youra created).
    pub stdout: Option<File>,
}

pub enum Input {
    Bytes(Vec<u8>),
    File(File),
}

/// Run `git --git-dir <git_dir> <args>` neutralised and within [`DEADLINE`]; stdout
/// (unless redirected) on success, else the error naming the call and git's words.
pub fn git<S: AsRef<OsStr>>(git_dir: &Path, args: &[S], io: Io<'_>) -> Result<Vec<u8>, CodeError> {
    let mut c = Command::new("git");
    c.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_ATTR_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_CONFIG_COUNT")
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_PAGER")
        .env_remove("PAGER");
    for setting in NEUTRAL {
        c.arg("-c").arg(setting);
    }
    c.arg("--no-pager").arg("--git-dir").arg(git_dir);
    if let Some(index) = io.index {
        c.env("GIT_INDEX_FILE", index);
    }
    c.args(args).envs(io.env.iter().copied());
    let what = args
        .first()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .unwrap_or_default();
    let failed = |stderr: String| CodeError::Git {
        what: what.clone(),
        repo: git_dir.to_path_buf(),
        stderr,
    };
    let (stdin, bytes) = match io.stdin {
        None => (Stdio::null(), None),
        Some(Input::File(f)) => (Stdio::from(f), None),
        Some(Input::Bytes(b)) => (Stdio::piped(), Some(b)),
    };
    let redirected = io.stdout.is_some();
    let stdout = io.stdout.map_or_else(Stdio::piped, Stdio::from);
    let mut child = match c.stdin(stdin).stdout(stdout).stderr(Stdio::piped()).spawn() {
        Ok(ch) => ch,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(CodeError::GitMissing),
        Err(e) => {
            return Err(CodeError::Io {
                path: git_dir.to_path_buf(),
                source: e,
            });
        }
    };
    // Pipes are drained on their own threads, so git never blocks on a full one while
    // this thread watches the clock.
    let feeder = child.stdin.take().zip(bytes).map(|(mut pipe, b)| {
        std::thread::spawn(move || {
            let _ = pipe.write_all(&b);
        })
    });
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        pipe.map(|mut p| {
            std::thread::spawn(move || {
                let mut v = Vec::new();
                let _ = p.read_to_end(&mut v);
                v
            })
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Ok(s),
            Ok(None) if start.elapsed() >= DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!(
                    "no answer within {} s; killed (a repository that makes git wait, e.g. a FIFO in its config or objects, is not read)",
                    DEADLINE.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => break Err(e.to_string()),
        }
    };
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = crate::term::escape(String::from_utf8_lossy(&stderr).trim()).into_owned();
    match status {
        Ok(s) if s.success() => Ok(if redirected { Vec::new() } else { stdout }),
        Ok(_) => Err(failed(stderr)),
        Err(why) => Err(failed(why)),
    }
}

/// `git init --bare` of a new repository at `git_dir`, without templates (no sample hooks).
pub fn init(git_dir: &Path) -> Result<(), CodeError> {
    git(
        git_dir,
        &[
            "init",
            "-q",
            "--bare",
            "--template=",
            "--object-format=sha1",
        ],
        Io::default(),
    )
    .map(|_| ())
}

/// Why youra will not hand the repository at `git_dir` to git, if it will not: what youra's
/// own repositories never hold and a handed one could use to make git wait forever or read
/// another repository (a config that is not a plain file or that includes another file, an
/// alternates file, a `commondir`). The deadline is the backstop; this refuses at once.
pub fn refused(git_dir: &Path) -> Option<String> {
    let config = git_dir.join("config");
    let text = match crate::fsutil::read_capped_string(&config, 64 * 1024) {
        Ok(t) => t,
        Err(e) => return Some(format!("its config cannot be read as a plain file ({e})")),
    };
    let squeezed: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    if squeezed.contains("[include") {
        return Some(format!(
            "{} includes other files ([include]/[includeIf]), which youra's repositories never do",
            config.display()
        ));
    }
    for extra in [
        "objects/info/alternates",
        "objects/info/http-alternates",
        "commondir",
    ] {
        if std::fs::symlink_metadata(git_dir.join(extra)).is_ok() {
            return Some(format!(
                "it has {extra}, which youra's repositories never have (it would read another repository)"
            ));
        }
    }
    None
}

/// A file removed when an operation ends (a temporary index).
pub(crate) struct TempFile(pub PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
