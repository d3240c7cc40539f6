//! Slurm's job states and what youra makes of them: a pure mapping from what `squeue` and
//! `scontrol show job` print onto the executor's [`ExitKind`]s. No `sacct`: accounting may
//! be off on a cluster, and `scontrol` keeps a finished job (with its `ExitCode`) for
//! `MinJobAge` seconds (300 by default), which is long enough for a watcher polling every
//! few seconds.

use std::time::Duration;

use crate::exec::job::ExitKind;

/// A job's state as Slurm names it (`squeue -o %T`, `scontrol`'s `JobState=`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlurmState {
    Pending,
    Configuring,
    Running,
    Completing,
    Suspended,
    Requeued,
    Completed,
    Failed,
    Timeout,
    Cancelled,
    OutOfMemory,
    NodeFail,
    BootFail,
    Deadline,
    Preempted,
    /// A state this version of youra does not know (a newer Slurm's, a site plugin's).
    Other(String),
}

impl SlurmState {
    /// Parses the first word (`scontrol` may print `CANCELLED by 0` on some versions).
    pub fn parse(text: &str) -> SlurmState {
        let word = text.split_whitespace().next().unwrap_or("");
        match word.to_ascii_uppercase().as_str() {
            "PENDING" => SlurmState::Pending,
            "CONFIGURING" => SlurmState::Configuring,
            "RUNNING" => SlurmState::Running,
            "COMPLETING" => SlurmState::Completing,
            "SUSPENDED" | "STOPPED" => SlurmState::Suspended,
            "REQUEUED" | "REQUEUE_HOLD" | "REQUEUE_FED" => SlurmState::Requeued,
            "COMPLETED" => SlurmState::Completed,
            "FAILED" => SlurmState::Failed,
            "TIMEOUT" => SlurmState::Timeout,
            "CANCELLED" => SlurmState::Cancelled,
            "OUT_OF_MEMORY" => SlurmState::OutOfMemory,
            "NODE_FAIL" => SlurmState::NodeFail,
            "BOOT_FAIL" => SlurmState::BootFail,
            "DEADLINE" => SlurmState::Deadline,
            "PREEMPTED" => SlurmState::Preempted,
            _ => SlurmState::Other(word.to_string()),
        }
    }

    /// The word Slurm prints for the state (`TIMEOUT`), for notes a person reads.
    pub fn name(&self) -> &str {
        match self {
            SlurmState::Pending => "PENDING",
            SlurmState::Configuring => "CONFIGURING",
            SlurmState::Running => "RUNNING",
            SlurmState::Completing => "COMPLETING",
            SlurmState::Suspended => "SUSPENDED",
            SlurmState::Requeued => "REQUEUED",
            SlurmState::Completed => "COMPLETED",
            SlurmState::Failed => "FAILED",
            SlurmState::Timeout => "TIMEOUT",
            SlurmState::Cancelled => "CANCELLED",
            SlurmState::OutOfMemory => "OUT_OF_MEMORY",
            SlurmState::NodeFail => "NODE_FAIL",
            SlurmState::BootFail => "BOOT_FAIL",
            SlurmState::Deadline => "DEADLINE",
            SlurmState::Preempted => "PREEMPTED",
            SlurmState::Other(word) => word,
        }
    }
}

/// What the watcher does with a state it read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Not started yet: the engine's time limit does not run.
    Waiting,
    /// Started (or between states of a started job): the time limit runs.
    Running,
    /// Ended with this kind.
    Ended(ExitKind),
    /// The node failed under the job: submit it once more (the job is submitted with
    /// `--no-requeue`, so this is youra's only retry).
    Resubmit,
}

/// The rule: a state and its `ExitCode=a:b` (from `scontrol`) → what youra does.
///
/// The batch script waits for its command and exits with `wait`'s status, so a signal death
/// arrives as exit 128+n (bwrap's convention too, as for sandboxed local jobs); a signal in
/// `ExitCode` ended the script itself (Slurm's SIGKILL). An unknown state counts as running:
/// the engine's own time limit (which cancels the job) bounds the wait, where treating it as
/// an end would drop a live job.
pub fn verdict(state: &SlurmState, exit: Option<ExitCode>) -> Verdict {
    use SlurmState as S;
    match state {
        S::Pending | S::Configuring | S::Requeued => Verdict::Waiting,
        S::Running | S::Completing | S::Suspended | S::Other(_) => Verdict::Running,
        S::Completed => Verdict::Ended(ExitKind::Exited(0)),
        S::Failed => Verdict::Ended(failed_kind(exit)),
        S::Timeout | S::Deadline => Verdict::Ended(ExitKind::TimedOut),
        S::Cancelled | S::Preempted => Verdict::Ended(ExitKind::Killed),
        S::OutOfMemory => Verdict::Ended(ExitKind::OutOfMemory),
        S::NodeFail | S::BootFail => Verdict::Resubmit,
    }
}

/// FAILED: the code the batch script exited with, or the signal that ended it.
fn failed_kind(exit: Option<ExitCode>) -> ExitKind {
    match exit {
        Some(ExitCode { signal, .. }) if signal > 0 => ExitKind::Signalled(signal),
        Some(ExitCode { code, .. }) if (129..=128 + 64).contains(&code) => {
            ExitKind::Signalled(code - 128)
        }
        // FAILED with 0:0 happens when the script could not start (a bad --chdir).
        Some(ExitCode { code, .. }) => ExitKind::Exited(if code == 0 { 1 } else { code }),
        None => ExitKind::Exited(1),
    }
}

/// What `squeue` says of a listed job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QueueLine {
    pub state: SlurmState,
    /// How long it has run (`%M`; zero while it waits).
    pub used: Option<Duration>,
    /// Where it runs, once Slurm has placed it.
    pub node: Option<String>,
}

/// One line of `squeue -h -o '%T %M %N'`. The node comes last: its field is empty while
/// the job waits.
pub(crate) fn parse_queue_line(line: &str) -> Option<QueueLine> {
    let mut words = line.split_whitespace();
    Some(QueueLine {
        state: SlurmState::parse(words.next()?),
        used: words.next().and_then(parse_run_time),
        node: words.next().map(str::to_string),
    })
}

/// `ExitCode=<code>:<signal>` of `scontrol show job`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitCode {
    pub code: i32,
    pub signal: i32,
}

impl ExitCode {
    pub fn parse(text: &str) -> Option<ExitCode> {
        let (code, signal) = text.trim().split_once(':')?;
        Some(ExitCode {
            code: code.parse().ok()?,
            signal: signal.parse().ok()?,
        })
    }
}

/// What `scontrol show job <id>` says about a job (the fields youra reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobInfo {
    pub state: SlurmState,
    pub exit: Option<ExitCode>,
    pub run_time: Option<Duration>,
    pub node: Option<String>,
}

impl JobInfo {
    /// Parses `Key=Value` pairs separated by whitespace (one job's record).
    pub fn parse(text: &str) -> Option<JobInfo> {
        let field = |key: &str| {
            text.split_whitespace()
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        };
        Some(JobInfo {
            state: SlurmState::parse(field("JobState")?),
            exit: field("ExitCode").and_then(ExitCode::parse),
            run_time: field("RunTime").and_then(parse_run_time),
            node: field("NodeList")
                .filter(|n| *n != "(null)")
                .map(str::to_string),
        })
    }
}

/// Slurm's `[D-]HH:MM:SS` (also `MM:SS`).
pub(crate) fn parse_run_time(text: &str) -> Option<Duration> {
    let (days, hms) = match text.split_once('-') {
        Some((d, rest)) => (d.parse::<u64>().ok()?, rest),
        None => (0, text),
    };
    let parts: Vec<u64> = hms
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let secs = match parts.as_slice() {
        [h, m, s] => h * 3600 + m * 60 + s,
        [m, s] => m * 60 + s,
        _ => return None,
    };
    Some(Duration::from_secs(days * 86400 + secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ec(code: i32, signal: i32) -> Option<ExitCode> {
        Some(ExitCode { code, signal })
    }

    #[test]
    fn every_state_maps() {
        use ExitKind as K;
        use Verdict as V;
        let table: &[(&str, Option<ExitCode>, Verdict)] = &[
            ("PENDING", None, V::Waiting),
            ("CONFIGURING", None, V::Waiting),
            ("REQUEUED", None, V::Waiting),
            ("REQUEUE_HOLD", None, V::Waiting),
            ("RUNNING", None, V::Running),
            ("COMPLETING", ec(0, 0), V::Running),
            ("SUSPENDED", None, V::Running),
            ("STOPPED", None, V::Running),
            ("COMPLETED", ec(0, 0), V::Ended(K::Exited(0))),
            ("FAILED", ec(3, 0), V::Ended(K::Exited(3))),
            ("FAILED", ec(0, 9), V::Ended(K::Signalled(9))),
            // The script's `wait` (and bwrap) report a signal death as 128+n.
            ("FAILED", ec(137, 0), V::Ended(K::Signalled(9))),
            ("FAILED", ec(123, 0), V::Ended(K::Exited(123))),
            ("FAILED", ec(0, 0), V::Ended(K::Exited(1))),
            ("FAILED", None, V::Ended(K::Exited(1))),
            ("TIMEOUT", ec(0, 15), V::Ended(K::TimedOut)),
            ("DEADLINE", None, V::Ended(K::TimedOut)),
            ("CANCELLED", ec(0, 15), V::Ended(K::Killed)),
            ("CANCELLED by 0", ec(0, 15), V::Ended(K::Killed)),
            ("PREEMPTED", None, V::Ended(K::Killed)),
            ("OUT_OF_MEMORY", ec(0, 125), V::Ended(K::OutOfMemory)),
            ("NODE_FAIL", ec(0, 0), V::Resubmit),
            ("BOOT_FAIL", None, V::Resubmit),
            ("running", None, V::Running),
            ("SPECIAL_EXIT", None, V::Running),
            ("", None, V::Running),
        ];
        for (text, exit, want) in table {
            assert_eq!(
                verdict(&SlurmState::parse(text), *exit),
                *want,
                "{text:?} {exit:?}"
            );
        }
        assert_eq!(
            SlurmState::parse("SPECIAL_EXIT"),
            SlurmState::Other("SPECIAL_EXIT".into())
        );
        // Every known state's name parses back to it.
        for (text, ..) in table {
            let state = SlurmState::parse(text);
            if !matches!(state, SlurmState::Other(_)) {
                assert_eq!(SlurmState::parse(state.name()), state, "{text:?}");
            }
        }
    }

    #[test]
    fn queue_lines_parse() {
        let line = |state, used: Option<u64>, node: Option<&str>| {
            Some(QueueLine {
                state,
                used: used.map(Duration::from_secs),
                node: node.map(str::to_string),
            })
        };
        let table = [
            (
                "RUNNING 1:05 vm",
                line(SlurmState::Running, Some(65), Some("vm")),
            ),
            ("PENDING 0:00 ", line(SlurmState::Pending, Some(0), None)),
            ("PENDING", line(SlurmState::Pending, None, None)),
            (
                "COMPLETING 1-02:00:00 gpu[01-02]",
                line(SlurmState::Completing, Some(93_600), Some("gpu[01-02]")),
            ),
            ("", None),
            ("   ", None),
        ];
        for (text, want) in table {
            assert_eq!(parse_queue_line(text), want, "{text:?}");
        }
    }

    #[test]
    fn exit_codes_parse() {
        assert_eq!(ExitCode::parse("3:0"), ec(3, 0));
        assert_eq!(ExitCode::parse("0:15"), ec(0, 15));
        assert_eq!(ExitCode::parse(" 255:0\n"), ec(255, 0));
        for bad in ["", "3", "a:b", "3:", ":0", "1:2:3"] {
            assert_eq!(ExitCode::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn run_times_parse() {
        assert_eq!(parse_run_time("00:00:07"), Some(Duration::from_secs(7)));
        assert_eq!(parse_run_time("01:02:03"), Some(Duration::from_secs(3723)));
        assert_eq!(
            parse_run_time("2-00:00:01"),
            Some(Duration::from_secs(172_801))
        );
        assert_eq!(parse_run_time("05:09"), Some(Duration::from_secs(309)));
        assert_eq!(parse_run_time("x"), None);
        assert_eq!(parse_run_time("1:2:3:4"), None);
    }

    #[test]
    fn scontrol_record_parses() {
        let text = "JobId=1 JobName=wrap\n   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)\n   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0\n   RunTime=00:00:02 TimeLimit=00:01:00 TimeMin=N/A\n   NodeList=vm\n   BatchHost=vm\n";
        let info = JobInfo::parse(text).unwrap();
        assert_eq!(info.state, SlurmState::Failed);
        assert_eq!(info.exit, ec(3, 0));
        assert_eq!(info.run_time, Some(Duration::from_secs(2)));
        assert_eq!(info.node.as_deref(), Some("vm"));
        let pending =
            JobInfo::parse("JobId=2 JobState=PENDING ExitCode=0:0 NodeList=(null)").unwrap();
        assert_eq!(pending.node, None);
        assert_eq!(
            JobInfo::parse("slurm_load_jobs error: Invalid job id specified"),
            None
        );
    }
}
