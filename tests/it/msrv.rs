//! The minimum Rust version is what the locked dependencies need: `rust-version` in
//! Cargo.toml is at least every `rust-version` the crates in Cargo.lock declare (read from
//! their sources in cargo's registry), and the README states that same version. A
//! dependency bump that needs a newer Rust (Typst 0.15 needs 1.92) fails here, not on a
//! newcomer's machine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `1.92` or `1.92.0` as comparable numbers (missing parts are 0).
fn version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split('.').map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    Some((major, minor, patch))
}

/// The locked registry packages: (name, version).
fn locked(lock: &str) -> Vec<(String, String)> {
    let value: toml::Value = toml::from_str(lock).expect("Cargo.lock parses as TOML");
    value["package"]
        .as_array()
        .expect("Cargo.lock lists packages")
        .iter()
        .filter(|p| {
            p.get("source")
                .and_then(|s| s.as_str())
                .is_some_and(|s| s.starts_with("registry+"))
        })
        .filter_map(|p| {
            Some((
                p["name"].as_str()?.to_string(),
                p["version"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// A package manifest's `[package] rust-version`, if it declares one.
fn declared(manifest: &str) -> Option<String> {
    let value: toml::Value = toml::from_str(manifest).ok()?;
    // A workspace root states it once for its crates (`[workspace.package]`).
    let own = value.get("package").and_then(|p| p.get("rust-version"));
    let shared = value
        .get("workspace")
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("rust-version"));
    own.and_then(|v| v.as_str())
        .filter(|v| !v.is_empty())
        .or_else(|| shared.and_then(|v| v.as_str()))
        .map(str::to_string)
}

/// Where cargo unpacked the registry's sources (`$CARGO_HOME/registry/src/<index>/`).
fn registry_dirs() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else {
        return Vec::new();
    };
    std::fs::read_dir(src)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default()
}

/// Each locked crate whose unpacked manifest declares a `rust-version`, with that version.
/// Crates with no sources here (another platform's, never downloaded) are left out.
fn needs(lock: &str, registries: &[PathBuf]) -> BTreeMap<String, (u32, u32, u32)> {
    let mut out = BTreeMap::new();
    for (name, ver) in locked(lock) {
        let manifest = registries
            .iter()
            .map(|r| r.join(format!("{name}-{ver}/Cargo.toml")))
            .find(|p| p.is_file());
        let Some(manifest) = manifest else { continue };
        let text = std::fs::read_to_string(&manifest).expect("a registry manifest reads");
        if let Some(v) = declared(&text).as_deref().and_then(version) {
            out.insert(format!("{name} {ver}"), v);
        }
    }
    out
}

/// The crates that need a newer Rust than `msrv`.
fn too_new(needs: &BTreeMap<String, (u32, u32, u32)>, msrv: (u32, u32, u32)) -> Vec<String> {
    needs
        .iter()
        .filter(|(_, v)| **v > msrv)
        .map(|(k, v)| format!("{k} needs Rust {}.{}.{}", v.0, v.1, v.2))
        .collect()
}

/// Every "Rust ≥ X.Y" (or `>=`) the README states.
fn readme_versions(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    for marker in ["Rust ≥ ", "Rust >= "] {
        for (at, _) in readme.match_indices(marker) {
            let rest = &readme[at + marker.len()..];
            let v: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            out.push(v.trim_end_matches('.').to_string());
        }
    }
    out
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo_rust_version() -> String {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    declared(&text).expect("Cargo.toml declares [package] rust-version")
}

#[test]
fn rust_version_covers_every_locked_dependency() {
    let msrv_text = cargo_rust_version();
    let msrv = version(&msrv_text).expect("rust-version is a version");
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let registries = registry_dirs();
    let found = needs(&lock, &registries);
    if found.is_empty() {
        eprintln!(
            "SKIPPED: no unpacked registry sources under $CARGO_HOME/registry/src (run `cargo fetch --locked` first); the MSRV cannot be checked against the dependencies here"
        );
        return;
    }
    let over = too_new(&found, msrv);
    assert!(
        over.is_empty(),
        "rust-version = \"{msrv_text}\" in Cargo.toml, but: {over:?}; raise it (and the README's) to the highest"
    );
    // Not merely a bound: the highest need is the MSRV, so the README does not ask for
    // more than the code needs either.
    let highest = found.values().max().copied().unwrap();
    assert_eq!(
        (highest.0, highest.1),
        (msrv.0, msrv.1),
        "Cargo.toml's rust-version {msrv_text} is above what any locked dependency needs; lower it to the highest need"
    );
}

#[test]
fn the_readme_states_cargo_tomls_rust_version() {
    let msrv = cargo_rust_version();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let stated = readme_versions(&readme);
    assert!(!stated.is_empty(), "the README states no \"Rust ≥ X.Y\"");
    for v in stated {
        assert_eq!(
            v, msrv,
            "the README says Rust ≥ {v}; Cargo.toml says {msrv}"
        );
    }
}

#[test]
fn a_dependency_needing_a_newer_rust_is_caught() {
    // A registry of our own where one locked crate declares 1.99: the check must name it.
    let tmp = tempfile::tempdir().unwrap();
    let reg = tmp.path().join("index");
    for (name, ver, rv) in [("aa", "1.0.0", Some("1.99")), ("bb", "0.2.1", None)] {
        let dir = reg.join(format!("{name}-{ver}"));
        std::fs::create_dir_all(&dir).unwrap();
        let rv = rv
            .map(|v| format!("rust-version = \"{v}\"\n"))
            .unwrap_or_default();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"{ver}\"\n{rv}"),
        )
        .unwrap();
    }
    let src = "source = \"registry+https://github.com/rust-lang/crates.io-index\"";
    let lock = format!(
        "version = 4\n\n[[package]]\nname = \"aa\"\nversion = \"1.0.0\"\n{src}\n\n[[package]]\nname = \"bb\"\nversion = \"0.2.1\"\n{src}\n\n[[package]]\nname = \"youra\"\nversion = \"0.1.0\"\n"
    );
    let found = needs(&lock, &[reg]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        too_new(&found, version("1.92").unwrap()),
        vec!["aa 1.0.0 needs Rust 1.99.0".to_string()]
    );
    assert!(too_new(&found, version("1.99").unwrap()).is_empty());
    assert_eq!(
        readme_versions("with Rust ≥ 1.92, Python 3; or Rust >= 1.9."),
        vec!["1.92".to_string(), "1.9".to_string()]
    );
}
