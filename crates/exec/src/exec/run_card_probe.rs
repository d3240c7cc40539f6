//! What a run card learns of the world (`run_card.rs`), each probe bounded and none fatal:
//! the interpreter and its packages (one `python -I` child, 10 s, 4 MiB of output), the CPU
//! and kernel (`/proc`, capped reads), the GPUs the job got (`nvidia-smi`, only when it got
//! some), and the data folders (walked following no link, each regular file hashed as a
//! stream, within caps on entries, depth and bytes).
//!
//! The interpreter runs outside the sandbox, so it must be the host's: a program inside the
//! run folder (a virtual environment the experiment could have written, its `.pth` files
//! executed at start-up) is never run, and the card says why its packages are not listed.
//! `-I` keeps the child from the workspace's user site-packages and `PYTHON*` variables.
//! Its answer is kept while the interpreter and its `sys.path` are unchanged
//! (`run_card_cache.rs`): a job pays the question once per installed set, not once per job.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::run_card_cache as cache;
use super::run_card_model::{DataFile, DataKind, Gpu, Interpreter, Machine, packages_sha256};

/// How long the interpreter and `nvidia-smi` may take each.
const PROBE_TIME: Duration = Duration::from_secs(10);
/// The most output read from either.
const PROBE_BYTES: u64 = 4 * 1024 * 1024;
/// Entries recorded per data folder, and how deep a walk goes.
const MAX_ENTRIES: usize = 10_000;
const MAX_DEPTH: usize = 32;
/// Bytes hashed per file and per folder: beyond, a file is listed with its size, unhashed.
const MAX_FILE_HASHED: u64 = 4 << 30;
const MAX_FOLDER_HASHED: u64 = 16 << 30;

/// Prints the version, `sys.executable`, one `path<TAB>hex` line per `sys.path` entry (its
/// bytes in hex: a folder's name may hold a tab or a newline), then one
/// `pkg<TAB>name<TAB>version` line per installed distribution.
const PYTHON_PROBE: &str = "import sys, os, platform\nprint(platform.python_version())\nprint(sys.executable)\nfor p in sys.path:\n    print('path', os.fsencode(p).hex(), sep='\\t')\ntry:\n    import importlib.metadata as m\n    for d in m.distributions():\n        print('pkg', d.metadata['Name'] or '', d.version or '', sep='\\t')\nexcept Exception as e:\n    print('error', repr(e), sep='\\t')\n";

/// The interpreter `argv0` names (else `python3` on `path_var`) and its packages.
pub(super) fn interpreter(argv0: &str, path_var: Option<&str>, workspace: &Path) -> Interpreter {
    let program = match interpreter_program(argv0, path_var, workspace) {
        Ok(p) => p,
        Err(why) => {
            return Interpreter {
                error: Some(why),
                ..Interpreter::default()
            };
        }
    };
    if let Some(card) = cache::get(&program, path_var) {
        return card;
    }
    let asked_at = std::time::SystemTime::now();
    let mut dirs = Some(Vec::new());
    let card = ask(&program, path_var, &mut dirs);
    let inputs = dirs.and_then(|d| cache::Inputs::read(&program, card.executable.as_deref(), &d));
    cache::put(&program, path_var, inputs, &card, asked_at);
    card
}

/// What `program` says of itself and its packages; the folders on its `sys.path` go to
/// `dirs` (`None` when one was not read: a path not read is a path not watched).
fn ask(program: &Path, path_var: Option<&str>, dirs: &mut Option<Vec<PathBuf>>) -> Interpreter {
    let mut card = Interpreter {
        program: Some(program.display().to_string()),
        ..Interpreter::default()
    };
    let mut command = Command::new(program);
    command
        .args(["-I", "-c", PYTHON_PROBE])
        .env_clear()
        .env("PATH", path_var.unwrap_or("/usr/bin:/bin"))
        .env("LANG", "C.UTF-8")
        .current_dir("/");
    let out = match bounded_output(command) {
        Ok(out) => out,
        Err(why) => {
            card.error = Some(format!(
                "{} did not list its packages: {why}",
                program.display()
            ));
            return card;
        }
    };
    let text = String::from_utf8_lossy(&out);
    let mut lines = text.lines();
    card.version = lines
        .next()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty());
    card.executable = lines
        .next()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty());
    for line in lines {
        let mut f = line.split('\t');
        match (f.next(), f.next(), f.next()) {
            (Some("pkg"), Some(name), Some(version)) if !name.is_empty() => {
                card.packages.push(format!("{name}=={version}"));
            }
            (Some("path"), Some(hex), None) => match (from_hex(hex), dirs.as_mut()) {
                (Some(bytes), Some(dirs)) => {
                    use std::os::unix::ffi::OsStringExt;
                    dirs.push(PathBuf::from(std::ffi::OsString::from_vec(bytes)));
                }
                _ => *dirs = None,
            },
            (Some("error"), Some(e), _) => card.error = Some(format!("importlib.metadata: {e}")),
            _ => {}
        }
    }
    card.packages
        .sort_by_cached_key(|p| (name_key(p), p.clone()));
    card.packages.dedup();
    card.packages_sha256 = Some(packages_sha256(&card.packages));
    card
}

/// The bytes a string of hex digits spells.
fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A package line's name as pip orders it: lower-case, `_` and `.` read as `-`.
fn name_key(line: &str) -> String {
    let name = line.split_once("==").map_or(line, |(n, _)| n);
    name.to_lowercase().replace(['_', '.'], "-")
}

/// The program to ask: `argv0` when it is a Python (found on `path_var` when bare), else
/// `python3` on `path_var`; refused inside the run folder (see the module comment).
fn interpreter_program(
    argv0: &str,
    path_var: Option<&str>,
    workspace: &Path,
) -> Result<PathBuf, String> {
    let name = Path::new(argv0)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let python = name.starts_with("python");
    let found = if python && argv0.contains('/') {
        let p = PathBuf::from(argv0);
        if !p.is_absolute() {
            return Err(inside(argv0));
        }
        p
    } else {
        let ask = if python { argv0 } else { "python3" };
        super::sandbox::find_on_path(ask, path_var)
            .ok_or_else(|| format!("no {ask} on the job's PATH; its packages are not listed"))?
    };
    let run = workspace.parent().unwrap_or(workspace);
    let real = found.canonicalize().unwrap_or_else(|_| found.clone());
    if found.starts_with(run) || real.starts_with(run) || !found.is_absolute() {
        return Err(inside(&found.display().to_string()));
    }
    Ok(found)
}

fn inside(program: &str) -> String {
    format!(
        "{program} is inside the run folder: youra runs nothing the experiment could have written outside the sandbox, so its packages are not listed"
    )
}

/// This machine's CPU, kernel and (for `gpus`, the job's `CUDA_VISIBLE_DEVICES`) GPUs; a
/// Slurm job (`local` false) runs elsewhere, which the card says.
pub(super) fn machine(local: bool, gpus: Option<&str>) -> Machine {
    let cpuinfo = crate::fsutil::read_capped("/proc/cpuinfo", PROBE_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let field = |key: &str| {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    let small = |p: &str| {
        crate::fsutil::read_capped(p, 4096)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).trim().to_string())
    };
    let mut m = Machine {
        probed_on: if local {
            "the machine that ran the job".into()
        } else {
            "the machine that submitted the job (it ran on a Slurm node youra does not probe)"
                .into()
        },
        cpu_model: field("model name")
            .or_else(|| field("Model"))
            .or_else(|| field("cpu model")),
        cpus: Some(
            cpuinfo
                .lines()
                .filter(|l| l.starts_with("processor"))
                .count(),
        )
        .filter(|n| *n > 0),
        os: match (
            small("/proc/sys/kernel/ostype"),
            small("/proc/sys/kernel/osrelease"),
        ) {
            (Some(t), Some(r)) => Some(format!("{t} {r}")),
            _ => None,
        },
        ..Machine::default()
    };
    if let Some(visible) = gpus {
        if local {
            gpu_probe(&mut m, visible);
        } else {
            m.gpu_error = Some("the GPUs are the Slurm node's; not probed".into());
        }
    }
    m
}

/// The GPUs named in `visible` (UUIDs or indices), their driver and the CUDA version.
fn gpu_probe(m: &mut Machine, visible: &str) {
    let mut query = Command::new("nvidia-smi");
    query.args([
        "--query-gpu=index,uuid,name,driver_version,memory.total",
        "--format=csv,noheader,nounits",
    ]);
    let text = match bounded_output(query) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(why) => {
            m.gpu_error = Some(format!("nvidia-smi: {why}"));
            return;
        }
    };
    m.gpus = parse_gpus(&text, visible);
    if m.gpus.is_empty() {
        m.gpu_error = Some(format!("nvidia-smi lists none of {visible} (a MIG slice?)"));
    }
    if let Ok(b) = bounded_output(Command::new("nvidia-smi")) {
        m.cuda_version = parse_cuda(&String::from_utf8_lossy(&b));
    }
}

/// The GPUs of an `index,uuid,name,driver_version,memory.total` CSV that `visible` (the
/// job's `CUDA_VISIBLE_DEVICES`: UUIDs or indices) names.
pub(super) fn parse_gpus(csv: &str, visible: &str) -> Vec<Gpu> {
    let wanted: Vec<&str> = visible.split(',').map(str::trim).collect();
    let mut out = Vec::new();
    for line in csv.lines() {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let [index, uuid, name, driver, memory] = f[..] else {
            continue;
        };
        if wanted.contains(&index) || wanted.contains(&uuid) {
            out.push(Gpu {
                name: name.to_string(),
                uuid: uuid.to_string(),
                driver: Some(driver.to_string()).filter(|d| !d.starts_with('[')),
                memory_mib: memory.parse().ok(),
            });
        }
    }
    out
}

/// The `CUDA Version: 12.4` of `nvidia-smi`'s banner.
pub(super) fn parse_cuda(banner: &str) -> Option<String> {
    banner.lines().find_map(|l| {
        let rest = l.split_once("CUDA Version:")?.1;
        rest.split_whitespace()
            .next()
            .map(|v| v.trim_matches('|').to_string())
            .filter(|v| !v.is_empty())
    })
}

/// Every entry under the folder `dir` (named by its last component), following no link.
pub(super) fn data(dir: &Path) -> Vec<DataFile> {
    let label = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut out = Vec::new();
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        out.push(link(dir, label));
        return out;
    }
    let mut budget = MAX_FOLDER_HASHED;
    let mut stack: Vec<(PathBuf, usize)> = vec![(PathBuf::new(), 0)];
    while let Some((rel, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(dir.join(&rel)) else {
            continue;
        };
        for e in entries.flatten() {
            if out.len() >= MAX_ENTRIES {
                out.push(note_only(
                    &label,
                    "",
                    format!("more than {MAX_ENTRIES} entries; the rest are not listed"),
                ));
                return sorted(out);
            }
            let rel = rel.join(e.file_name());
            let shown = format!("{label}/{}", rel.to_string_lossy());
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if depth + 1 < MAX_DEPTH {
                    stack.push((rel, depth + 1));
                } else {
                    out.push(note_only(
                        &shown,
                        "/",
                        format!("deeper than {MAX_DEPTH} folders; not listed"),
                    ));
                }
            } else if kind.is_symlink() {
                out.push(link(&dir.join(&rel), shown));
            } else if kind.is_file() {
                out.push(hashed(dir, &rel, shown, &mut budget));
            } else {
                out.push(DataFile {
                    path: shown,
                    kind: DataKind::Other,
                    bytes: None,
                    sha256: None,
                    target: None,
                    note: Some("a FIFO, socket or device; not opened".into()),
                });
            }
        }
    }
    sorted(out)
}

/// One input the brief names (`Job::inputs`): a folder walked as [`data`] walks one, a file
/// hashed, a link named; listed by its full path.
pub(super) fn input(path: &Path) -> Vec<DataFile> {
    let shown = path.display().to_string();
    let kind = std::fs::symlink_metadata(path).map(|m| m.file_type());
    match (kind, path.parent(), path.file_name()) {
        (Ok(k), _, _) if k.is_dir() => data(path),
        (Ok(k), _, _) if k.is_symlink() => vec![link(path, shown)],
        (Ok(k), Some(dir), Some(name)) if k.is_file() => {
            let mut budget = MAX_FOLDER_HASHED;
            vec![hashed(dir, Path::new(name), shown, &mut budget)]
        }
        (Ok(_), _, _) => vec![note_only(
            &shown,
            "",
            "not a regular file; not opened".into(),
        )],
        (Err(e), _, _) => vec![note_only(&shown, "", format!("not read: {e}"))],
    }
}

fn sorted(mut out: Vec<DataFile>) -> Vec<DataFile> {
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn note_only(path: &str, suffix: &str, note: String) -> DataFile {
    DataFile {
        path: format!("{path}{suffix}"),
        kind: DataKind::Other,
        bytes: None,
        sha256: None,
        target: None,
        note: Some(note),
    }
}

/// A link, named with what it says, never followed.
fn link(path: &Path, shown: String) -> DataFile {
    let target = std::fs::read_link(path)
        .map(|t| t.to_string_lossy().chars().take(4096).collect::<String>())
        .ok();
    DataFile {
        path: shown,
        kind: DataKind::Link,
        bytes: None,
        sha256: None,
        target,
        note: Some("a symbolic link: not followed, not hashed".into()),
    }
}

/// `base/rel` opened with no link followed on any component, hashed as a stream.
fn hashed(base: &Path, rel: &Path, shown: String, budget: &mut u64) -> DataFile {
    let mut entry = DataFile {
        path: shown,
        kind: DataKind::File,
        bytes: None,
        sha256: None,
        target: None,
        note: None,
    };
    let file = match crate::fsutil::open_beneath(base, rel, crate::fsutil::Beneath::Read) {
        Ok(f) => f,
        Err(e) => {
            entry.note = Some(format!("not read: {e}"));
            return entry;
        }
    };
    let len = file.metadata().map(|m| m.len()).ok();
    entry.bytes = len;
    let cap = MAX_FILE_HASHED.min(*budget);
    if len.is_some_and(|l| l > cap) {
        entry.note = Some(format!(
            "not hashed: beyond youra's cap ({} MiB per file, {} MiB per folder)",
            MAX_FILE_HASHED >> 20,
            MAX_FOLDER_HASHED >> 20
        ));
        return entry;
    }
    match stream_sha256(file, cap) {
        Ok((hex, n)) => {
            *budget = budget.saturating_sub(n);
            entry.bytes = Some(n);
            entry.sha256 = Some(hex);
        }
        Err(e) => entry.note = Some(format!("not hashed: {e}")),
    }
    entry
}

/// sha256 of everything `file` holds and its length; more than `cap` bytes is an error.
pub(super) fn stream_sha256(mut file: impl Read, cap: u64) -> std::io::Result<(String, u64)> {
    let mut hasher = Sha256::new();
    let (mut total, mut buf) = (0u64, vec![0u8; 256 * 1024]);
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        if total > cap {
            return Err(std::io::Error::other(format!(
                "grew beyond {cap} bytes while read"
            )));
        }
        hasher.update(&buf[..n]);
    }
    Ok((format!("{:x}", hasher.finalize()), total))
}

/// `command`'s stdout, at most [`PROBE_BYTES`], within [`PROBE_TIME`]: its own process
/// group, killed whole past the time. Stdin and stderr are closed.
fn bounded_output(mut command: Command) -> Result<Vec<u8>, String> {
    use std::os::unix::process::CommandExt;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start it ({e})"))?;
    let Some(stdout) = child.stdout.take() else {
        return Err("no output pipe".into());
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stdout.take(PROBE_BYTES + 1).read_to_end(&mut bytes);
        let _ = tx.send(read.map(|_| bytes));
    });
    let got = rx.recv_timeout(PROBE_TIME);
    if got.is_ok() {
        // Its output is closed: it is ending (a moment to be reaped, then it goes too).
        let until = std::time::Instant::now() + Duration::from_secs(2);
        while matches!(child.try_wait(), Ok(None)) && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    if !matches!(child.try_wait(), Ok(Some(_))) {
        // Past the time, or more output than read: the whole group goes.
        let _ = super::limits::signal_group(child.id(), libc::SIGKILL);
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let bytes = match got {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return Err(format!("output not read ({e})")),
        Err(_) => {
            return Err(format!(
                "no answer within {} s; stopped",
                PROBE_TIME.as_secs()
            ));
        }
    };
    if bytes.len() as u64 > PROBE_BYTES {
        return Err(format!(
            "more than {} MiB of output; stopped",
            PROBE_BYTES >> 20
        ));
    }
    if !status.success() {
        return Err(format!("it ended with {status}"));
    }
    Ok(bytes)
}
