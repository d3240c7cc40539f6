//! The researcher's word on settings a test wrote into a run's own youra.toml, given the way
//! a researcher gives it: `youra trust <run>` (issue 39, item 4), with a config folder of the
//! test's own that the commands acting on the run then get as YOURA_CONFIG_DIR.

use std::path::{Path, PathBuf};

/// Run `youra trust <run>` with `config` as the user's config folder and return `config`;
/// panics unless the record was written.
pub fn trusted(run: &Path, config: &Path) -> PathBuf {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .arg("trust")
        .arg(run)
        .env("YOURA_CONFIG_DIR", config)
        .output()
        .expect("youra trust runs");
    assert!(
        out.status.success() && config.join("trusted-runs.json").is_file(),
        "youra trust {}: {}",
        run.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    config.to_path_buf()
}
