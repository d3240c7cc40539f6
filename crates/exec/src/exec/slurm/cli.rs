//! The Slurm client commands youra runs (`sbatch`, `squeue`, `scontrol`, `scancel`), with
//! the cluster's `SLURM_CONF` when youra.toml names one. Only these four: no `sacct`, since
//! accounting may be off.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::state::{JobInfo, QueueLine, parse_queue_line};
use crate::exec::ExecError;

/// How to reach the cluster's controller.
#[derive(Debug, Clone, Default)]
pub struct Client {
    /// `SLURM_CONF` for the clients (none: theirs, e.g. /etc/slurm/slurm.conf).
    pub conf: Option<PathBuf>,
}

impl Client {
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        if let Some(conf) = &self.conf {
            c.env("SLURM_CONF", conf);
        }
        c.stdin(Stdio::null());
        c
    }

    /// `sbatch <args>` with the script on stdin; the job id from `--parsable`
    /// (`<id>` or `<id>;<cluster>`).
    pub fn submit(&self, args: &[OsString], script: &str) -> Result<String, ExecError> {
        let spawn_err = |source| ExecError::Spawn {
            program: "sbatch".into(),
            source,
        };
        let mut child = self
            .command("sbatch")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_err)?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(script.as_bytes()).map_err(spawn_err)?;
        }
        let out = child.wait_with_output().map_err(spawn_err)?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let id = stdout.trim().split(';').next().unwrap_or("").trim();
        if !out.status.success() || id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ExecError::Submit(format!(
                "sbatch {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(id.to_string())
    }

    /// `squeue -h -j <id> -o '%T %M %N'`: state, time used and node while Slurm lists the
    /// job; `None` once it has left the queue (or the controller did not answer: the caller
    /// asks `scontrol`).
    pub(crate) fn queue_state(&self, id: &str) -> Option<QueueLine> {
        let out = self
            .command("squeue")
            .args(["-h", "-j", id, "-o", "%T %M %N"])
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        parse_queue_line(String::from_utf8_lossy(&out.stdout).lines().next()?)
    }

    /// `scontrol show job <id>`: `Ok(None)` when Slurm does not know the id (any more).
    pub fn show(&self, id: &str) -> Result<Option<JobInfo>, String> {
        let out = self
            .command("scontrol")
            .args(["show", "job", id])
            .output()
            .map_err(|e| format!("cannot run scontrol: {e}"))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            if stderr.contains("Invalid job id") {
                return Ok(None);
            }
            return Err(format!("scontrol show job {id}: {}", stderr.trim()));
        }
        Ok(JobInfo::parse(&String::from_utf8_lossy(&out.stdout)))
    }

    /// `scancel <id>`: Slurm sends SIGTERM, then SIGKILL after the cluster's `KillWait`.
    pub fn cancel(&self, id: &str) {
        match self.command("scancel").arg(id).output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => tracing::warn!(
                "scancel {id}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            Err(e) => tracing::warn!("cannot run scancel {id}: {e}"),
        }
    }
}
