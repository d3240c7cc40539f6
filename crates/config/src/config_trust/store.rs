//! The researcher's record of which runs' command-bearing settings they allowed:
//! `<user config dir>/trusted-runs.json`, never a file in the run folder (whoever made the
//! folder could write one). Each entry: the run's canonical path → the sha256 of the
//! settings' canonical JSON (`super::fingerprint`), with the settings as text so a refusal can
//! say which of them changed. Read like any file youra did not write itself (no link, regular
//! file, capped); written atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Setting, TrustError, fingerprint, of_run};

const FILE: &str = "trusted-runs.json";

/// One trusted run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub sha256: String,
    /// `key = value` of each setting allowed, for the researcher's eyes (`youra trust --list`,
    /// a refusal after a change); the hash is what decides.
    #[serde(default)]
    pub settings: Vec<String>,
    #[serde(default)]
    pub trusted_at: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    #[serde(default)]
    runs: BTreeMap<String, Record>,
}

/// Where the record lives: `<user config dir>/trusted-runs.json`.
pub fn store_path() -> Option<PathBuf> {
    crate::config::user_config_dir().map(|d| d.join(FILE))
}

/// The key a run is recorded under: its canonical path (links resolved), so two spellings of
/// one folder share one record and a link cannot borrow another folder's.
fn run_key(run: &Path) -> Result<String, TrustError> {
    let real = std::fs::canonicalize(run).map_err(|source| TrustError::Read {
        path: run.to_path_buf(),
        source,
    })?;
    Ok(real.to_string_lossy().into_owned())
}

fn load(path: &Path) -> Result<Store, TrustError> {
    match crate::fsutil::read_run_text(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            TrustError::Parse(format!(
                "{}: {e} (it is youra's record of the runs you trusted: remove it and trust them again)",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Store::default()),
        Err(source) => Err(TrustError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The record's write lock (`trusted-runs.lock` beside it), held across a read-modify-write
/// so two `youra trust` at once do not lose one another's record.
fn locked(path: &Path) -> Result<std::fs::File, TrustError> {
    let write = |source| TrustError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write)?;
    }
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path.with_extension("lock"))
        .map_err(write)?;
    file.lock().map_err(write)?;
    Ok(file)
}

fn save(path: &Path, store: &Store) -> Result<(), TrustError> {
    let write = |source| TrustError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write)?;
    }
    let text = serde_json::to_string_pretty(store).unwrap_or_else(|_| "{}".into());
    crate::fsutil::write_atomic(path, text.as_bytes()).map_err(write)
}

/// What `run`'s own file sets that needs trust and is not trusted (empty: youra may act on
/// the run), with the record of what was trusted before, if any, to tell what changed. No
/// record is read when the file sets nothing command-bearing.
pub fn check(
    run: &Path,
    store: Option<&Path>,
) -> Result<(Vec<Setting>, Option<Record>), TrustError> {
    let settings = of_run(run)?;
    if settings.is_empty() {
        return Ok((settings, None));
    }
    let store = store.ok_or(TrustError::NoConfigDir)?;
    let record = load(store)?.runs.remove(&run_key(run)?);
    if record
        .as_ref()
        .is_some_and(|r| r.sha256 == fingerprint(&settings))
    {
        return Ok((Vec::new(), record));
    }
    Ok((settings, record))
}

/// Record `run`'s command-bearing settings, as they are now, as the researcher's own.
/// Returns them (empty: nothing needed trust, and any older record is dropped).
pub fn trust(run: &Path) -> Result<Vec<Setting>, TrustError> {
    trust_with(run, store_path().as_deref())
}

/// [`trust`] with the record at `store`.
pub fn trust_with(run: &Path, store: Option<&Path>) -> Result<Vec<Setting>, TrustError> {
    let settings = of_run(run)?;
    let key = run_key(run)?;
    let Some(path) = store else {
        return if settings.is_empty() {
            Ok(settings)
        } else {
            Err(TrustError::NoConfigDir)
        };
    };
    // Nothing to record and no record to drop: the config folder is left as it is.
    if settings.is_empty() && std::fs::symlink_metadata(path).is_err() {
        return Ok(settings);
    }
    let _lock = locked(path)?;
    let mut all = load(path)?;
    if settings.is_empty() {
        if all.runs.remove(&key).is_some() {
            save(path, &all)?;
        }
        return Ok(settings);
    }
    all.runs.insert(
        key,
        Record {
            sha256: fingerprint(&settings),
            settings: settings
                .iter()
                .map(|s| format!("{} = {}", s.key, s.value))
                .collect(),
            trusted_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        },
    );
    save(path, &all)?;
    Ok(settings)
}

/// Forget `run`'s record; `true` when there was one.
pub fn revoke(run: &Path, store: Option<&Path>) -> Result<bool, TrustError> {
    let path = store.ok_or(TrustError::NoConfigDir)?;
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(false);
    }
    let _lock = locked(path)?;
    let mut all = load(path)?;
    // A run folder deleted since is still revoked by the path it was recorded under.
    let key = run_key(run).unwrap_or_else(|_| run.to_string_lossy().into_owned());
    let had = all.runs.remove(&key).is_some();
    if had {
        save(path, &all)?;
    }
    Ok(had)
}

/// Every trusted run: path → record.
pub fn list(store: Option<&Path>) -> Result<BTreeMap<String, Record>, TrustError> {
    match store {
        Some(path) => Ok(load(path)?.runs),
        None => Ok(BTreeMap::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_holds_until_a_value_changes_and_revoke_forgets() {
        let home = tempfile::tempdir().unwrap();
        let store = home.path().join("cfg").join(FILE);
        let run = tempfile::tempdir().unwrap();
        let toml = run.path().join("youra.toml");
        std::fs::write(&toml, "[notify]\ncommand = [\"touch\", \"m\"]\n").unwrap();
        let (untrusted, before) = check(run.path(), Some(&store)).unwrap();
        assert_eq!(untrusted.len(), 1);
        assert_eq!(before, None);
        let allowed = trust_with(run.path(), Some(&store)).unwrap();
        assert_eq!(allowed, untrusted);
        assert!(check(run.path(), Some(&store)).unwrap().0.is_empty());
        // A comment and a moved line ask nothing; a changed argument asks again.
        std::fs::write(&toml, "# mine\n\n[notify]\ncommand = [\"touch\", \"m\"]\n").unwrap();
        assert!(check(run.path(), Some(&store)).unwrap().0.is_empty());
        std::fs::write(&toml, "[notify]\ncommand = [\"touch\", \"n\"]\n").unwrap();
        let (again, was) = check(run.path(), Some(&store)).unwrap();
        assert_eq!(again[0].value, "[\"touch\", \"n\"]");
        assert_eq!(
            was.unwrap().settings,
            vec!["notify.command = [\"touch\", \"m\"]"]
        );
        trust_with(run.path(), Some(&store)).unwrap();
        assert!(revoke(run.path(), Some(&store)).unwrap());
        assert_eq!(check(run.path(), Some(&store)).unwrap().0.len(), 1);
        assert!(!revoke(run.path(), Some(&store)).unwrap());
    }

    #[test]
    fn a_record_is_per_folder_and_a_link_borrows_nothing() {
        let home = tempfile::tempdir().unwrap();
        let store = home.path().join(FILE);
        let runs = tempfile::tempdir().unwrap();
        let (a, b) = (runs.path().join("a"), runs.path().join("b"));
        for d in [&a, &b] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("youra.toml"), "[exec]\nsandbox = \"off\"\n").unwrap();
        }
        trust_with(&a, Some(&store)).unwrap();
        assert!(check(&a, Some(&store)).unwrap().0.is_empty());
        assert_eq!(
            check(&b, Some(&store)).unwrap().0.len(),
            1,
            "b was never trusted"
        );
        // The same folder through a link is the same record (its canonical path).
        let link = runs.path().join("a-link");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        assert!(check(&link, Some(&store)).unwrap().0.is_empty());
    }

    #[test]
    fn a_damaged_record_refuses_rather_than_trusts() {
        let home = tempfile::tempdir().unwrap();
        let store = home.path().join(FILE);
        std::fs::write(&store, "{ not json").unwrap();
        let run = tempfile::tempdir().unwrap();
        std::fs::write(
            run.path().join("youra.toml"),
            "[exec]\nbackend = \"slurm\"\n",
        )
        .unwrap();
        let e = check(run.path(), Some(&store)).unwrap_err().to_string();
        assert!(
            e.contains("trusted-runs.json") && e.contains("remove it"),
            "{e}"
        );
        assert!(matches!(
            check(run.path(), None),
            Err(TrustError::NoConfigDir)
        ));
    }
}
