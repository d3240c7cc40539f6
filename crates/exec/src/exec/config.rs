//! `[exec]` in youra.toml: which back end runs the experiments, and `[exec.slurm]`, how to
//! submit them to a Slurm cluster. Parsed here, used where the engine builds its back end.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where experiments run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// Processes on this machine (`LocalBackend`).
    #[default]
    Local,
    /// Batch jobs on a Slurm cluster (`SlurmBackend`).
    Slurm,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExecSection {
    pub backend: BackendKind,
    /// `required` (the default: no working bubblewrap, no experiment) or `off`.
    pub sandbox: super::SandboxMode,
    /// How many experiments may run at once (unset: one per GPU found, 1 without GPUs;
    /// 1 runs them one after another exactly as before). See "Parallel experiments" in
    /// docs/ARCHITECTURE.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_parallel: Option<usize>,
    pub slurm: SlurmSettings,
}

impl ExecSection {
    /// The effective limit on this machine, with `gpus` usable GPUs.
    pub fn max_parallel(&self, gpus: usize) -> usize {
        self.max_parallel.unwrap_or(gpus.max(1))
    }
}

/// `[exec.slurm]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SlurmSettings {
    pub partition: Option<String>,
    pub account: Option<String>,
    pub qos: Option<String>,
    /// More `sbatch` flags, each one word: `["--constraint=a100", "--exclusive"]`.
    pub extra_args: Vec<String>,
    /// `SLURM_CONF` for the clients (default: theirs, or the environment's).
    pub conf: Option<PathBuf>,
    /// `--mem` in MiB. Unset: the experiment's memory limit when the researcher set one
    /// (`[engine] experiment_memory_mb`; never for GPU jobs), else no `--mem` at all, so the
    /// partition's default applies: the default limit is half of the *submitting* machine's
    /// memory, which says nothing about the compute nodes'.
    pub mem_mb: Option<u64>,
    /// Whether `[engine] experiment_memory_mb` was set by the researcher (a youra.toml, the
    /// environment or a flag) rather than left at its default: filled when the layers are
    /// merged (`config::explain_with`), never read from the file.
    #[serde(skip)]
    pub experiment_memory_set: bool,
    /// Seconds between looks at a job's state: every look is one `squeue` call to the
    /// controller, which a busy cluster's administrators count.
    pub poll_s: f64,
    /// How long a submission waits for a controller that does not answer (a restart, a
    /// network cut) before the run stops as an infrastructure stop that `youra run`
    /// resumes: 30 minutes, as `[llm] outage_wait_s` waits for a model server.
    pub outage_wait_s: f64,
}

impl Default for SlurmSettings {
    fn default() -> Self {
        SlurmSettings {
            partition: None,
            account: None,
            qos: None,
            extra_args: Vec::new(),
            conf: None,
            mem_mb: None,
            experiment_memory_set: false,
            poll_s: 2.0,
            outage_wait_s: 1800.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ExecSection, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_both_backends() {
        assert_eq!(parse("").unwrap().backend, BackendKind::Local);
        let s = parse("backend = \"slurm\"\n[slurm]\npartition = \"gpu\"\nextra_args = [\"--exclusive\"]\npoll_s = 0.5\n").unwrap();
        assert_eq!(s.backend, BackendKind::Slurm);
        assert_eq!(s.slurm.partition.as_deref(), Some("gpu"));
        assert_eq!(s.slurm.extra_args, ["--exclusive"]);
        assert_eq!(s.slurm.poll_s, 0.5);
        assert_eq!(parse("").unwrap().slurm.poll_s, 2.0);
    }

    #[test]
    fn errors_name_what_is_valid() {
        let e = parse("backend = \"kubernetes\"").unwrap_err();
        assert!(
            e.contains("kubernetes") && e.contains("`local`") && e.contains("`slurm`"),
            "{e}"
        );
        let e = parse("[slurm]\npartiton = \"gpu\"").unwrap_err();
        assert!(e.contains("partiton") && e.contains("partition"), "{e}");
        let e = parse("backnd = \"slurm\"").unwrap_err();
        assert!(e.contains("backnd"), "{e}");
        let e = parse("[slurm]\nextra_args = \"--exclusive\"").unwrap_err();
        assert!(e.contains("extra_args") || e.contains("sequence"), "{e}");
    }
}
