//! Why an experiment did not start, by whose fault: its code's (the coder repairs it, one
//! attempt spent) or the machine's (a scheduler that refuses the job, a sandbox missing or
//! broken, no GPU free, `bwrap` or `sbatch` that cannot be spawned, a full disk). A machine
//! fault stops the run (MUST_STOP) with what is missing and what to do, and is never counted
//! as an attempt against the hypothesis: asking a model to rewrite working code because a
//! partition's memory limit is too low wastes its attempts and ends in a misleading verdict.
//! [`blame`] is the rule (pure, table-tested); [`StartError`] carries the verdict.

use crate::engine::error::StageError;
use crate::exec::ExecError;

/// Who must act for the experiment to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Blame {
    /// The experiment's code or command: a repair can fix it.
    Code,
    /// The machine or the cluster: only the researcher (or an administrator) can.
    Machine,
}

/// Programs youra itself starts around the experiment's command: failing to spawn them is
/// the machine's fault, failing to spawn the command itself (unsandboxed) is the code's.
const INFRASTRUCTURE_PROGRAMS: &[&str] = &["bwrap", "sbatch", "scontrol", "squeue", "setsid"];

/// The rule: which [`ExecError`] kinds a repair of the code cannot fix.
pub(crate) fn blame(e: &ExecError) -> Blame {
    match e {
        // A command the coder gave that cannot run (empty, not UTF-8, no workdir), a workdir
        // it linked away: the code's.
        ExecError::InvalidJob(_) | ExecError::Workdir(_) => Blame::Code,
        // The environment comes from youra and its configuration, never from the coder.
        ExecError::Env(_) => Blame::Machine,
        ExecError::Sandbox(_) | ExecError::Gpu(_) | ExecError::Submit(_) => Blame::Machine,
        // A full or read-only disk is the machine's; anything else in the workspace (a file
        // where `results/` should be) was left by the experiment.
        ExecError::Workspace { source, .. } => io_blame(source),
        ExecError::Spawn { program, source } => {
            let name = std::path::Path::new(program)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if INFRASTRUCTURE_PROGRAMS.contains(&name.as_str()) {
                Blame::Machine
            } else {
                match source.kind() {
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                        Blame::Code
                    }
                    _ => io_blame(source),
                }
            }
        }
    }
}

fn io_blame(e: &std::io::Error) -> Blame {
    match e.raw_os_error() {
        Some(libc::ENOSPC | libc::EROFS | libc::EDQUOT | libc::EAGAIN | libc::ENOMEM) => {
            Blame::Machine
        }
        _ => Blame::Code,
    }
}

/// Why `start_job` did not start the experiment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StartError {
    /// Sent to repair, with this reason.
    Code(String),
    /// Stops the run with this reason (what failed, what to change).
    Machine(String),
    /// The scheduler's controller did not answer within its window: an infrastructure stop
    /// that `youra run` resumes.
    Outage(String),
}

impl StartError {
    /// `e` from the back end, judged by [`blame`].
    pub(crate) fn from_exec(e: &ExecError) -> StartError {
        match blame(e) {
            Blame::Code => StartError::Code(format!("the experiment could not start: {e}")),
            Blame::Machine => StartError::Machine(e.to_string()),
        }
    }

    /// The reason to repair, or the run's stop for hypothesis `id`.
    pub(crate) fn repair_or_stop(self, id: &str) -> Result<String, StageError> {
        match self {
            StartError::Code(why) => Ok(why),
            StartError::Machine(why) => Err(StageError::MustStop(format!(
                "{id}: the experiment could not start, for a reason outside its code (no attempt was counted against it): {why}. Fix that, then resume the run (`youra steer <dir> resume`)"
            ))),
            StartError::Outage(why) => Err(StageError::MustStop(crate::engine::outage::mark_for(
                &format!("{id}: the experiment could not be submitted: {why}"),
                "the Slurm controller",
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{GpuError, SandboxError};
    use std::io::{Error, ErrorKind};

    fn spawn(program: &str, source: Error) -> ExecError {
        ExecError::Spawn {
            program: program.into(),
            source,
        }
    }

    #[test]
    fn the_rule() {
        let cases: Vec<(ExecError, Blame)> = vec![
            (ExecError::InvalidJob("argv is empty".into()), Blame::Code),
            (ExecError::Sandbox(SandboxError::Missing), Blame::Machine),
            (
                ExecError::Sandbox(SandboxError::Broken {
                    bwrap: "/usr/bin/bwrap".into(),
                    detail: "no user namespaces".into(),
                }),
                Blame::Machine,
            ),
            (
                ExecError::Gpu(GpuError::TooMany {
                    wanted: 2,
                    usable: 0,
                }),
                Blame::Machine,
            ),
            (
                ExecError::Submit(
                    "sbatch: error: Memory specification can not be satisfied".into(),
                ),
                Blame::Machine,
            ),
            (
                spawn("/usr/bin/bwrap", Error::from(ErrorKind::NotFound)),
                Blame::Machine,
            ),
            (
                spawn("sbatch", Error::from(ErrorKind::NotFound)),
                Blame::Machine,
            ),
            // The coder's own command, run unsandboxed: its fault.
            (
                spawn("python9", Error::from(ErrorKind::NotFound)),
                Blame::Code,
            ),
            (
                spawn("./train.py", Error::from(ErrorKind::PermissionDenied)),
                Blame::Code,
            ),
            (
                spawn("python3", Error::from_raw_os_error(libc::EAGAIN)),
                Blame::Machine,
            ),
            (
                ExecError::Workspace {
                    path: "/r/h-e1/results".into(),
                    source: Error::from_raw_os_error(libc::ENOSPC),
                },
                Blame::Machine,
            ),
            (
                ExecError::Workspace {
                    path: "/r/h-e1/results".into(),
                    source: Error::from_raw_os_error(libc::ENOTDIR),
                },
                Blame::Code,
            ),
        ];
        for (e, want) in cases {
            assert_eq!(blame(&e), want, "{e}");
        }
    }

    #[test]
    fn a_machine_fault_stops_and_names_the_cause() {
        let e =
            ExecError::Submit("sbatch: error: Memory specification can not be satisfied".into());
        match StartError::from_exec(&e).repair_or_stop("h-e1") {
            Err(StageError::MustStop(m)) => {
                assert!(m.starts_with("h-e1: "), "{m}");
                assert!(
                    m.contains("Memory specification can not be satisfied"),
                    "{m}"
                );
                assert!(m.contains("no attempt was counted"), "{m}");
            }
            other => panic!("{other:?}"),
        }
        let e = ExecError::InvalidJob("workdir code does not exist".into());
        assert_eq!(
            StartError::from_exec(&e)
                .repair_or_stop("h-e1")
                .ok()
                .as_deref(),
            Some("the experiment could not start: invalid job: workdir code does not exist")
        );
    }
}
