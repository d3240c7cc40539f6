//! The end of a Slurm job's batch script: it waits for the command (started in a session and
//! process group of its own, as `limits::install` starts a local one) and, with
//! `Job::max_processes`, enforces the local back end's process rule on the node: every
//! `supervise::WATCH_EVERY` it counts the processes in the job's group (field 5 of
//! `/proc/<pid>/stat`, as `supervise::group_size` does), and when there are more than the
//! limit it SIGKILLs the whole group, writes [`marker`] to the log and exits with
//! [`PROCESS_LIMIT_EXIT`]; the watcher reads that back as `ExitKind::ProcessLimit`
//! ([`process_limit`]). Shell, because youra itself need not be installed on the nodes.

use crate::exec::job::ExitKind;
use crate::exec::supervise::WATCH_EVERY;

/// The batch script's exit code when the watchdog stopped the job (with [`marker`] as the
/// log's last line: an experiment that merely exits 123 is not taken for one).
pub(crate) const PROCESS_LIMIT_EXIT: i32 = 123;

/// The line the watchdog writes to the job's log when it stops the job.
pub fn marker(max: u32) -> String {
    format!("youra: more than {max} processes at once; the job was stopped (process limit)")
}

/// Counts `$job`'s group in one process: `getline` skips a process that exits mid-scan
/// (awk would stop at a file named on its command line that has gone), and the `comm` field
/// may hold spaces and `)`, so fields are read after the last `) `.
const COUNT: &str = r#"awk -v g="$job" 'BEGIN { for (i = 1; i < ARGC; i++) if ((getline l < ARGV[i]) > 0) { close(ARGV[i]); sub(/.*\) /, "", l); split(l, f, " "); if (f[3] == g) n++ } print n + 0 }' /proc/[0-9]*/stat"#;

/// The script's tail after `job=$!`. Exits with the command's status: a signal death
/// arrives as 128+n from `wait`, as from bwrap. Stragglers in the group die with the
/// command, as locally.
///
/// Slurm's SIGTERM (`scancel`, its time limit) goes to the processes it tracks, and under
/// `proctrack/linuxproc` that is a walk down from the script: a process reparented away
/// (bwrap's sandbox init, which ignores SIGTERM, whose outer bwrap died before it set its
/// parent-death signal) is missed by the SIGKILL that follows, and kept running after its
/// job had ended. So this shell outlives SIGTERM (until Slurm's SIGKILL): it passes it to
/// the group and, once the command has ended, SIGKILLs what is left of the group.
pub fn render(max_processes: Option<u32>) -> String {
    let mut out = String::from("trap 'kill -TERM -- \"-$job\" 2>/dev/null' TERM\n");
    if let Some(max) = max_processes {
        out.push_str(&format!(
            "while kill -0 \"$job\" 2>/dev/null; do\n\
             \x20   n=$({COUNT})\n\
             \x20   if [ \"${{n:-0}}\" -gt {max} ]; then\n\
             \x20       kill -KILL -- \"-$job\" 2>/dev/null\n\
             \x20       wait \"$job\"\n\
             \x20       echo {} >&2\n\
             \x20       exit {PROCESS_LIMIT_EXIT}\n\
             \x20   fi\n\
             \x20   sleep {}\n\
             done\n",
            super::shell::quote(&marker(max)),
            WATCH_EVERY.as_secs_f64(),
        ));
    }
    out.push_str("wait \"$job\"\nrc=$?\nkill -KILL -- \"-$job\" 2>/dev/null\nexit \"$rc\"\n");
    out
}

/// The rule: Slurm's end of the script, read back. `tail`: the log's last lines.
pub(crate) fn process_limit(
    kind: ExitKind,
    max_processes: Option<u32>,
    tail: &[String],
) -> ExitKind {
    match max_processes {
        Some(max)
            if kind == ExitKind::Exited(PROCESS_LIMIT_EXIT)
                && tail.iter().any(|l| *l == marker(max)) =>
        {
            ExitKind::ProcessLimit(max)
        }
        _ => kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::limits::ChildLimits;
    use crate::exec::slurm::script::{ScriptSpec, render as script};
    use std::ffi::OsString;
    use std::process::Command;
    use std::time::{Duration, Instant};

    /// Runs the whole batch script for `sh -c <command>` under bash, as Slurm would.
    fn run(command: &str, max: Option<u32>) -> (Option<i32>, String, Duration) {
        let dir = tempfile::tempdir().unwrap();
        let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
        let argv: Vec<OsString> = vec!["sh".into(), "-c".into(), command.into()];
        let text = script(&ScriptSpec {
            cwd: dir.path(),
            env: &env,
            slurm_gpus: false,
            limits: ChildLimits::new(None, None),
            max_processes: max,
            command: &argv,
            seccomp: None,
        })
        .unwrap();
        let t = Instant::now();
        // output(): it returns once every holder of the pipes is gone, stragglers included.
        let out = Command::new("bash").args(["-c", &text]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), stderr, t.elapsed())
    }

    #[test]
    fn a_fork_bomb_is_stopped_with_its_whole_group() {
        let (code, stderr, took) = run("for i in $(seq 40); do sleep 20 & done; wait", Some(16));
        assert_eq!(code, Some(PROCESS_LIMIT_EXIT), "{stderr}");
        assert_eq!(stderr.lines().last(), Some(marker(16).as_str()), "{stderr}");
        assert!(took < Duration::from_secs(10), "stopped early: {took:?}");
    }

    #[test]
    fn sigterm_to_the_script_still_ends_the_whole_group() {
        // The leader dies of SIGTERM; its child ignores it (as a sandbox init does).
        let command = "(trap '' TERM; exec sleep 20) & exec sleep 30";
        for max in [None, Some(16)] {
            let dir = tempfile::tempdir().unwrap();
            let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
            let argv: Vec<OsString> = vec!["sh".into(), "-c".into(), command.into()];
            let text = script(&ScriptSpec {
                cwd: dir.path(),
                env: &env,
                slurm_gpus: false,
                limits: ChildLimits::new(None, None),
                max_processes: max,
                command: &argv,
                seccomp: None,
            })
            .unwrap();
            let child = Command::new("bash")
                .args(["-c", &text])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            std::thread::sleep(Duration::from_millis(500));
            let t = Instant::now();
            let pid = libc::pid_t::try_from(child.id()).unwrap();
            // SAFETY: kill has no memory-safety preconditions; `pid` is our own child.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            // Returns once every holder of stdout is gone: the sleepers were killed.
            let out = child.wait_with_output().unwrap();
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "{max:?}: the group outlived the script: {:?}",
                t.elapsed()
            );
            assert_eq!(out.status.code(), Some(128 + libc::SIGTERM), "{max:?}");
        }
    }

    #[test]
    fn the_commands_status_comes_through_and_stragglers_die() {
        for max in [None, Some(16)] {
            assert_eq!(run("exit 7", max).0, Some(7), "{max:?}");
            // A signal death, as bwrap would report it.
            assert_eq!(run("kill -9 $$", max).0, Some(137), "{max:?}");
            let (code, _, took) = run("sleep 20 & exit 0", max);
            assert_eq!(code, Some(0));
            assert!(
                took < Duration::from_secs(10),
                "the straggler was killed: {took:?}"
            );
            let (code, stderr, _) = run("for i in $(seq 8); do sleep 0.2 & done; wait", max);
            assert_eq!(code, Some(0), "under the limit: {stderr}");
        }
    }

    #[test]
    fn the_watchdogs_stop_reads_back_as_the_process_limit() {
        let mark = vec!["started".to_string(), marker(64)];
        let other = vec!["exit 123 on purpose".to_string()];
        let table: &[(ExitKind, Option<u32>, &[String], ExitKind)] = &[
            (
                ExitKind::Exited(123),
                Some(64),
                &mark,
                ExitKind::ProcessLimit(64),
            ),
            // The code alone, or the line alone, is the experiment's own doing.
            (
                ExitKind::Exited(123),
                Some(64),
                &other,
                ExitKind::Exited(123),
            ),
            (ExitKind::Exited(1), Some(64), &mark, ExitKind::Exited(1)),
            // No limit, or another limit than the one the line names: not the watchdog.
            (ExitKind::Exited(123), None, &mark, ExitKind::Exited(123)),
            (ExitKind::Exited(123), Some(8), &mark, ExitKind::Exited(123)),
            (ExitKind::TimedOut, Some(64), &mark, ExitKind::TimedOut),
        ];
        for (kind, max, tail, want) in table {
            assert_eq!(
                process_limit(kind.clone(), *max, tail),
                *want,
                "{kind:?} {max:?}"
            );
        }
    }
}
