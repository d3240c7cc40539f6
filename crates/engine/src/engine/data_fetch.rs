//! The download step (issue 43 item 4): a data set the study needs from the network is
//! fetched when the researcher asks for it (`youra data fetch RUN URL`: running the command
//! is the approval), in its own sandbox with the network on and only its own folder writable
//! (`<run>/.youra/fetch/`), never by an experiment, which has no network. youra then checks
//! the file itself (a regular file, under the cap, the sha256 the researcher gave if any),
//! copies it into `data/` read-only, adds its sum to `data/MANIFEST.sha256` and its source
//! to `data/SOURCES.tsv`, and removes the fetch folder.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::init::{DATA_CAP, DATA_MANIFEST, copy_hashing};
use crate::exec::{Backend, ExitKind, Job, SandboxMode};

/// Where each fetched file's source is kept: `name<TAB>url<TAB>sha256<TAB>time`.
pub const SOURCES: &str = "SOURCES.tsv";

/// The script the sandbox runs: youra's own, never the run folder's.
const FETCH_PY: &str = include_str!("../../../../assets/fetch/fetch.py");

/// How long one download may take.
const TIME_LIMIT: Duration = Duration::from_secs(3600);

#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    pub name: String,
    pub sha256: String,
    pub bytes: u64,
}

/// Why a fetch was refused or failed: what, and what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FetchError {
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Failed(String),
}

/// The URL, checked: http(s), no whitespace or control characters, a sane length.
pub(crate) fn check_url(url: &str) -> Result<&str, FetchError> {
    let ok_scheme = url.starts_with("http://") || url.starts_with("https://");
    let clean = url.len() <= 2048 && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    if !ok_scheme || !clean {
        return Err(FetchError::Refused(format!(
            "`{}` is not an http(s) URL youra fetches: give one http:// or https:// address, \
             without spaces",
            crate::term::escape(url)
        )));
    }
    Ok(url)
}

/// The file's name in `data/`: `--name`, else the URL path's last segment. Letters, digits,
/// `.`, `_`, `-` only; not hidden, not youra's own files, not already there.
pub fn file_name(run: &Path, url: &str, given: Option<&str>) -> Result<String, FetchError> {
    let from_url = url
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let name = given.unwrap_or(from_url);
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 200
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && name != DATA_MANIFEST
        && name != SOURCES
        && (given.is_some() || !url.ends_with('/'));
    if !ok {
        return Err(FetchError::Refused(format!(
            "`{}` cannot name a file in data/: give --name with letters, digits, `.`, `_` or `-`",
            crate::term::escape(name)
        )));
    }
    if std::fs::symlink_metadata(run.join("data").join(name)).is_ok() {
        return Err(FetchError::Refused(format!(
            "data/{name} exists already: give another --name (data/ keeps what the run was given)"
        )));
    }
    Ok(name.to_string())
}

/// Fetch `url` into `<run>/data/<name>`.
pub fn fetch(
    run: &Path,
    url: &str,
    name: Option<&str>,
    sha256: Option<&str>,
    sandbox: SandboxMode,
) -> Result<Fetched, FetchError> {
    let url = check_url(url)?;
    let name = file_name(run, url, name)?;
    let want = sha256.map(str::to_ascii_lowercase);
    if want
        .as_deref()
        .is_some_and(|h| h.len() != 64 || !h.chars().all(|c| c.is_ascii_hexdigit()))
    {
        return Err(FetchError::Refused(
            "--sha256 takes the 64 hexadecimal digits `sha256sum` prints".into(),
        ));
    }
    let ws = run
        .join(".youra/fetch")
        .join(format!("{}", std::process::id()));
    let failed = |what: String| FetchError::Failed(what);
    let _ = std::fs::remove_dir_all(&ws);
    std::fs::create_dir_all(ws.join("code"))
        .map_err(|e| failed(format!("cannot make {}: {e}", ws.display())))?;
    let result = download(&ws, url, sandbox).and_then(|file| keep(run, &file, &name, url, want));
    let _ = std::fs::remove_dir_all(&ws);
    result
}

/// Run the fetch script in its sandbox; the downloaded file's path.
fn download(ws: &Path, url: &str, sandbox: SandboxMode) -> Result<PathBuf, FetchError> {
    std::fs::write(ws.join("code/fetch.py"), FETCH_PY)
        .map_err(|e| FetchError::Failed(format!("cannot write the fetch script: {e}")))?;
    let mut job = Job::new(
        ws,
        vec![
            "python3".into(),
            "fetch.py".into(),
            url.into(),
            DATA_CAP.to_string(),
        ],
    );
    job.workdir = PathBuf::from("code");
    job.network = true;
    job.sandbox = sandbox;
    job.time_limit = TIME_LIMIT;
    job.card = false;
    let backend = crate::exec::LocalBackend::new();
    let outcome = backend
        .start(&job)
        .map_err(|e| FetchError::Failed(format!("the download step could not start: {e}")))?
        .wait();
    if outcome.exit != ExitKind::Exited(0) {
        let tail = crate::exec::tail_lines(&outcome.log_path, 5).join("\n");
        return Err(FetchError::Failed(format!(
            "the download of {} failed (exit={}):\n{}",
            crate::term::escape(url),
            outcome.exit.log_label(),
            crate::term::escape(&tail)
        )));
    }
    Ok(ws.join("out/download"))
}

/// Check the downloaded file and keep it: data/, the manifest, the sources.
fn keep(
    run: &Path,
    file: &Path,
    name: &str,
    url: &str,
    want: Option<String>,
) -> Result<Fetched, FetchError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let failed = |what: String| FetchError::Failed(what);
    let from = crate::fsutil::open_nofollow(file)
        .map_err(|e| failed(format!("the download left no regular file: {e}")))?;
    let meta = from
        .metadata()
        .map_err(|e| failed(format!("cannot read the download: {e}")))?;
    if !meta.is_file() || meta.len() > DATA_CAP {
        return Err(failed(format!(
            "the download is not a regular file under {DATA_CAP} bytes: nothing kept"
        )));
    }
    let data = run.join("data");
    std::fs::create_dir_all(&data).map_err(|e| failed(format!("cannot make data/: {e}")))?;
    let to = data.join(name);
    let out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(&to)
        .map_err(|e| failed(format!("cannot write data/{name}: {e}")))?;
    let (hex, bytes) = copy_hashing(std::io::Read::take(from, DATA_CAP + 1), out)
        .map_err(|e| failed(format!("cannot copy into data/{name}: {e}")))?;
    if let Some(w) = want.filter(|w| *w != hex) {
        let _ = std::fs::remove_file(&to);
        return Err(FetchError::Refused(format!(
            "data/{name}: the download's sha256 is {hex}, not the {w} you gave: nothing kept \
             (check the URL, or the sum)"
        )));
    }
    std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o444))
        .map_err(|e| failed(format!("cannot make data/{name} read-only: {e}")))?;
    append(&data.join(DATA_MANIFEST), &format!("{hex}  {name}\n"))?;
    let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    append(
        &data.join(SOURCES),
        &format!("{name}\t{url}\t{hex}\t{at}\n"),
    )?;
    Ok(Fetched {
        name: name.to_string(),
        sha256: hex,
        bytes,
    })
}

/// `text` added to a read-only record of data/ (replaced whole, then made read-only again).
fn append(path: &Path, text: &str) -> Result<(), FetchError> {
    use std::os::unix::fs::PermissionsExt;
    let old = match crate::fsutil::read_capped_string(path, 16 << 20) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(FetchError::Failed(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    crate::fsutil::write_atomic(path, format!("{old}{text}").as_bytes())
        .and_then(|_| std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o444)))
        .map_err(|e| FetchError::Failed(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_names_are_checked() {
        let tmp = tempfile::tempdir().unwrap();
        for bad in [
            "file:///etc/passwd",
            "ftp://x/y",
            "http://a b",
            "http://x/\u{1b}[31m",
            "",
        ] {
            assert!(check_url(bad).is_err(), "{bad:?}");
        }
        assert!(check_url("https://example.org/d.csv?x=1").is_ok());
        let run = tmp.path();
        assert_eq!(
            file_name(run, "http://h/p/penguins.csv?raw=1", None).unwrap(),
            "penguins.csv"
        );
        for (url, given) in [
            ("http://h/", None),
            ("http://h/.hidden", None),
            ("http://h/x", Some("../escape")),
            ("http://h/x", Some(DATA_MANIFEST)),
            ("http://h/x", Some("a b")),
        ] {
            assert!(file_name(run, url, given).is_err(), "{url} {given:?}");
        }
    }
}
