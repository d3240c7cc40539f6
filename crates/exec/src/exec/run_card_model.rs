//! The run card's data (`run_card.rs` builds, writes and reads it; `run_card_probe.rs`
//! fills its parts): what `results/run_card.json` holds, field by field. Below both, so the
//! card and its probes do not import each other.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The card's format; a reader shows a card of another schema as unreadable.
pub const SCHEMA: u32 = 1;

/// One attempt's run card, as `results/run_card.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunCard {
    pub schema: u32,
    /// The sub-hypothesis (the workspace's folder name).
    pub hypothesis: String,
    /// RFC 3339, when the job was started.
    pub started_at: String,
    /// `local` or `slurm`.
    pub backend: String,
    /// The command exactly as started (inside the sandbox when there is one).
    pub argv: Vec<String>,
    /// Where it started, relative to the workspace.
    pub workdir: String,
    /// Every `YOURA_*` variable the job got, the job's own extra variables and
    /// `CUDA_VISIBLE_DEVICES`.
    pub env: BTreeMap<String, String>,
    pub interpreter: Interpreter,
    pub machine: Machine,
    /// Every entry of the folders the job may read, in path order.
    pub data: Vec<DataFile>,
    pub sandbox: SandboxSettings,
}

/// The Python the job's command runs (or, for another command, the one on its PATH).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Interpreter {
    /// The program youra asked (`/usr/bin/python3`); none when it asked nothing.
    pub program: Option<String>,
    /// `3.11.7`.
    pub version: Option<String>,
    /// `sys.executable` as the interpreter reports it.
    pub executable: Option<String>,
    /// `name==version`, sorted by name: the installed distributions.
    pub packages: Vec<String>,
    /// sha256 of the list as lines, each ending in `\n` ([`packages_sha256`]).
    pub packages_sha256: Option<String>,
    /// Why the list is missing or incomplete (no Python, a timeout, a workspace interpreter).
    pub error: Option<String>,
}

/// The machine the job ran on, as far as youra could see it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Which machine was probed (a Slurm job runs on a node youra does not see).
    pub probed_on: String,
    pub cpu_model: Option<String>,
    pub cpus: Option<usize>,
    /// `Linux 6.1.0-18-amd64`.
    pub os: Option<String>,
    /// The GPUs the job was given.
    pub gpus: Vec<Gpu>,
    /// The highest CUDA version the driver supports (`nvidia-smi`'s header).
    pub cuda_version: Option<String>,
    /// Why the GPUs are not listed, when the job asked for some.
    pub gpu_error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Gpu {
    pub name: String,
    pub uuid: String,
    pub driver: Option<String>,
    pub memory_mib: Option<u64>,
}

/// What an entry of a data folder is. A link is named, never followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DataKind {
    File,
    Link,
    /// A FIFO, socket or device: never opened.
    Other,
}

/// One entry of a folder the job may read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataFile {
    /// The folder's name and the path inside it: `data/penguins.csv`.
    pub path: String,
    pub kind: DataKind,
    pub bytes: Option<u64>,
    /// Of the whole file, streamed; none for a link, a special file or beyond the cap.
    pub sha256: Option<String>,
    /// Where a link points, as written in the link.
    pub target: Option<String>,
    /// Why there is no hash, or what was left out.
    pub note: Option<String>,
}

/// How the job was confined.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SandboxSettings {
    /// `[exec] sandbox`: `required` or `off`.
    pub mode: String,
    /// Whether the job ran inside bubblewrap.
    pub bubblewrap: bool,
    pub network: bool,
    /// A seccomp filter was handed to bubblewrap.
    pub seccomp: bool,
    /// `--disable-userns` was given.
    pub disable_userns: bool,
    pub time_limit_s: f64,
    pub grace_s: f64,
    pub memory_limit_mb: Option<u64>,
    pub cpu_limit_s: Option<f64>,
    pub max_processes: Option<u32>,
    pub gpus_requested: usize,
    /// The folders mounted read-only besides the system.
    pub read_only: Vec<String>,
}

/// sha256 of a package list as `name==version` lines, each ending in `\n`.
pub fn packages_sha256(packages: &[String]) -> String {
    let mut text = String::new();
    for p in packages {
        text.push_str(p);
        text.push('\n');
    }
    super::trust::sha256_hex(text.as_bytes())
}
