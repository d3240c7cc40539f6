//! The batch script a Slurm job runs, and the `sbatch` flags that submit it. The script does
//! on the compute node what the local back end does around its command: in a subshell, no
//! core files, the address-space and CPU-time limits (`ulimit`, the numbers of
//! `ChildLimits`), then `setsid` (a session and process group of its own) and the
//! allow-listed environment only (`env -i`) before the same bubblewrap command line; the
//! script itself stays outside the limits and the group, to wait and to watch the process
//! count (`watchdog.rs`). Every word is single-quoted, so a workspace named `my run's data`
//! reaches bwrap as one argument. Pure: tested by rendering it and running it under bash.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use super::shell::quote;
use crate::exec::ExecError;
use crate::exec::limits::ChildLimits;

/// What the script needs, all decided on the submitting machine.
#[derive(Debug)]
pub struct ScriptSpec<'a> {
    /// Where the command starts (bwrap resolves its relative paths from here).
    pub cwd: &'a Path,
    /// The job's whole environment, in order.
    pub env: &'a [(String, String)],
    /// GPU jobs see the GPUs Slurm allocated (`CUDA_VISIBLE_DEVICES` from the job's
    /// environment), not the value computed on the submitting machine.
    pub slurm_gpus: bool,
    pub limits: ChildLimits,
    /// `Job::max_processes`: the watchdog's limit on the job's process group.
    pub max_processes: Option<u32>,
    /// bwrap and its arguments then the experiment's argv, or the bare argv.
    pub command: &'a [OsString],
    /// The seccomp program bwrap reads on [`SECCOMP_FD`] (its `--seccomp` argument is in
    /// `command`), fed from the script itself: no file the job could change beforehand.
    pub seccomp: Option<&'a [u8]>,
}

/// The descriptor the script opens for bwrap's `--seccomp`.
pub const SECCOMP_FD: i32 = 9;

fn utf8<'a>(what: &str, s: &'a std::ffi::OsStr) -> Result<&'a str, ExecError> {
    s.to_str()
        .ok_or_else(|| ExecError::InvalidJob(format!("{what} {s:?} is not UTF-8")))
}

/// The batch script's text.
pub fn render(spec: &ScriptSpec<'_>) -> Result<String, ExecError> {
    let mut out = String::from(
        "#!/bin/bash\n# youra experiment job (generated; see docs/ARCHITECTURE.md, \"Executor\")\n",
    );
    let cwd = utf8("the job's directory", spec.cwd.as_os_str())?;
    out.push_str(&format!("cd -- {} || exit 125\n", quote(cwd)));
    // Job control off, so the subshell is no group leader and `setsid` makes it one in
    // place: the job's process group id is `$!`. The limits bind only the command (a CPU-time
    // limit on this shell would end the watchdog, and the job with it, on a long run).
    out.push_str("set +m\n(\n");
    out.push_str("ulimit -c 0 || exit 125\n");
    if let Some(bytes) = spec.limits.address_space {
        // ulimit -v counts KiB; round down so the limit never exceeds what was asked.
        out.push_str(&format!(
            "ulimit -v {} || exit 125\n",
            (bytes / 1024).max(1)
        ));
    }
    if let Some(s) = spec.limits.cpu_seconds {
        // Hard one second above soft, as locally: SIGXCPU first, then SIGKILL. Soft first:
        // a hard limit below the current (unlimited) soft one is refused.
        out.push_str(&format!(
            "ulimit -S -t {s} && ulimit -H -t {} || exit 125\n",
            s.saturating_add(1)
        ));
    }
    // `--` before the assignments (after them env would take it for the command): a name
    // or value starting with `-` is never read as an option.
    out.push_str("exec setsid env -i --");
    for (name, value) in spec.env {
        if spec.slurm_gpus && name == "CUDA_VISIBLE_DEVICES" {
            // Double quotes on purpose: expanded on the node, from Slurm's allocation.
            out.push_str(" \"CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}\"");
            continue;
        }
        out.push(' ');
        out.push_str(&quote(&format!("{name}={value}")));
    }
    if spec.command.is_empty() {
        return Err(ExecError::InvalidJob("the job has no command".into()));
    }
    for word in spec.command {
        out.push(' ');
        out.push_str(&quote(utf8("the argument", word)?));
    }
    if let Some(program) = spec.seccomp {
        // printf's format turns each \xHH into its byte (NUL included); nothing else in it.
        let hex: String = program.iter().map(|b| format!("\\x{b:02x}")).collect();
        out.push_str(&format!(" {SECCOMP_FD}< <(printf '{hex}')"));
    }
    out.push_str("\n) &\njob=$!\n");
    out.push_str(&super::watchdog::render(spec.max_processes));
    Ok(out)
}

/// Submission settings that come from youra.toml's `[exec.slurm]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteFlags {
    pub partition: Option<String>,
    pub account: Option<String>,
    pub qos: Option<String>,
    pub extra: Vec<String>,
}

/// What one submission asks Slurm for.
#[derive(Debug)]
pub struct Request<'a> {
    pub name: &'a str,
    pub chdir: &'a Path,
    pub log: &'a Path,
    pub time_limit: Duration,
    pub grace: Duration,
    pub mem_mb: Option<u64>,
    pub gpus: usize,
    pub site: &'a SiteFlags,
}

/// `sbatch`'s arguments (the script comes on stdin). `--no-requeue`: youra retries a node
/// failure once itself, and a job Slurm requeued would overwrite its own results.
pub(crate) fn sbatch_args(r: &Request<'_>) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "--parsable".into(),
        "--no-requeue".into(),
        format!("--job-name={}", r.name).into(),
        os_flag("--chdir=", r.chdir.as_os_str()),
        os_flag("--output=", &output_pattern(r.log)),
        format!("--time={}", time_minutes(r.time_limit + r.grace)).into(),
    ];
    if let Some(mb) = r.mem_mb {
        args.push(format!("--mem={mb}M").into());
    }
    if r.gpus > 0 {
        args.push(format!("--gres=gpu:{}", r.gpus).into());
    }
    let site = r.site;
    for (flag, value) in [
        ("--partition", &site.partition),
        ("--account", &site.account),
        ("--qos", &site.qos),
    ] {
        if let Some(v) = value {
            args.push(format!("{flag}={v}").into());
        }
    }
    args.extend(site.extra.iter().map(OsString::from));
    args
}

/// Slurm's refusal of a submission (`message`, sbatch's stderr) with the setting to change:
/// what the job asked that Slurm names (memory, partition, time, GPUs, account, QOS) and
/// where in youra.toml that request comes from. `memory`: the `--mem` asked and its setting.
pub fn refusal(message: &str, memory: Option<(u64, &str)>, site: &SiteFlags) -> String {
    let lower = message.to_ascii_lowercase();
    let partition = site
        .partition
        .as_deref()
        .map_or("the default partition".to_string(), |p| {
            format!("partition `{p}`")
        });
    let hint = if lower.contains("memory") || lower.contains("mem") {
        match memory {
            Some((mb, setting)) => format!(
                "the job asked --mem={mb}M ({setting}) on {partition}: lower {setting}, or remove it so the partition's default applies"
            ),
            None => format!(
                "the job asked no --mem, so {partition}'s default memory was refused: set mem_mb under [exec.slurm] to what a node has, or choose another partition (partition under [exec.slurm])"
            ),
        }
    } else if lower.contains("account") {
        "set account under [exec.slurm] to an account `sacctmgr show assoc user=$USER` lists"
            .to_string()
    } else if lower.contains("qos") {
        "set qos under [exec.slurm] to one your account may use".to_string()
    } else if lower.contains("time limit") {
        format!(
            "the time asked exceeds {partition}'s limit: lower experiment_time_limit_s under [engine], or choose another partition"
        )
    } else if lower.contains("gres") || lower.contains("gpu") {
        "the GPUs asked are not available: lower gpus under [engine], or choose a GPU partition (partition under [exec.slurm])".to_string()
    } else if lower.contains("partition") {
        format!("{partition} was refused: set partition under [exec.slurm] to one `sinfo` lists")
    } else if lower.contains("node configuration") {
        format!(
            "no node of {partition} has what the job asks (CPUs, GPUs, extra_args under [exec.slurm]): compare with `sinfo -o '%P %c %m %G'`"
        )
    } else {
        "see `sbatch`'s message above; the flags come from [exec.slurm] (extra_args among them)"
            .to_string()
    };
    format!("{}; {hint}", message.trim())
}

fn os_flag(flag: &str, value: &std::ffi::OsStr) -> OsString {
    let mut s = OsString::from(flag);
    s.push(value);
    s
}

/// `--output` expands `%j`, `%u` and the like: a literal `%` in a path is written `%%`.
pub(crate) fn output_pattern(path: &Path) -> OsString {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut out = Vec::new();
    for &b in path.as_os_str().as_bytes() {
        out.push(b);
        if b == b'%' {
            out.push(b'%');
        }
    }
    OsString::from_vec(out)
}

/// Slurm's `--time` in whole minutes, rounded up (its least is one minute): a backstop above
/// the engine's own limit, which cancels the job on time.
pub(crate) fn time_minutes(d: Duration) -> u64 {
    (d.as_secs() + u64::from(d.subsec_nanos() > 0))
        .div_ceil(60)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn quotes_survive_bash() {
        for word in [
            "plain",
            "with space",
            "it's",
            "'",
            "$HOME `x` \\n \"q\"",
            "",
        ] {
            let out = Command::new("bash")
                .args(["-c", &format!("printf %s {}", quote(word))])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), word);
        }
    }

    #[test]
    fn a_script_for_a_workspace_with_spaces_and_a_quote_runs() {
        let root = tempfile::tempdir().unwrap();
        let ws = root.path().join("my run's data/h-e1");
        std::fs::create_dir_all(&ws).unwrap();
        let env = vec![
            ("PATH".to_string(), "/usr/bin:/bin".to_string()),
            ("YOURA_WORKSPACE".to_string(), ws.display().to_string()),
            ("CUDA_VISIBLE_DEVICES".to_string(), "7".to_string()),
        ];
        let script_args: Vec<OsString> = vec![
            "bash".into(),
            "-c".into(),
            "printf '%s|%s|%s|%s|' \"$PWD\" \"$YOURA_WORKSPACE\" \"$CUDA_VISIBLE_DEVICES\" \"$1\"; ulimit -v; ulimit -c; env | wc -l".into(),
            "arg0".into(),
            "one arg with 'quotes' and $x".into(),
        ];
        let spec = ScriptSpec {
            cwd: &ws,
            env: &env,
            slurm_gpus: true,
            limits: ChildLimits::new(Some(512 << 20), Some(Duration::from_secs(30))),
            max_processes: Some(16),
            command: &script_args,
            seccomp: None,
        };
        let text = render(&spec).unwrap();
        let path = root.path().join("job.sh");
        std::fs::write(&path, &text).unwrap();
        let syntax = Command::new("bash").arg("-n").arg(&path).status().unwrap();
        assert!(syntax.success(), "bash -n rejected:\n{text}");
        let out = Command::new("bash")
            .arg(&path)
            .env("CUDA_VISIBLE_DEVICES", "2,3")
            .env("SECRET_TOKEN", "leak")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let ws_s = ws.display().to_string();
        // Slurm's GPUs, not the submitting machine's; nothing else from the parent leaks
        // (env -i: PATH, YOURA_WORKSPACE, CUDA_VISIBLE_DEVICES and bash's own PWD, SHLVL, _).
        let want = format!("{ws_s}|{ws_s}|2,3|one arg with 'quotes' and $x|524288\n0\n");
        assert!(
            stdout.starts_with(&want),
            "{stdout:?} {}\nwanted {want:?}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
        let vars: usize = stdout.lines().last().unwrap().trim().parse().unwrap();
        assert!(vars <= 6, "{stdout}");
        assert!(!stdout.contains("leak"));
    }

    #[test]
    fn the_seccomp_program_reaches_the_command_byte_for_byte() {
        let program: Vec<u8> = (0..=255u8).chain([0, 0, b'\'', b'%']).collect();
        let cmd: Vec<OsString> = vec![
            "sh".into(),
            "-c".into(),
            format!("od -An -v -tx1 <&{SECCOMP_FD}").into(),
        ];
        let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
        let dir = tempfile::tempdir().unwrap();
        let spec = ScriptSpec {
            cwd: dir.path(),
            env: &env,
            slurm_gpus: false,
            limits: ChildLimits::new(None, None),
            max_processes: None,
            command: &cmd,
            seccomp: Some(&program),
        };
        let out = Command::new("bash")
            .args(["-c", &render(&spec).unwrap()])
            .output()
            .unwrap();
        let read: Vec<u8> = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|h| u8::from_str_radix(h, 16).ok())
            .collect();
        assert_eq!(read, program, "{}", String::from_utf8_lossy(&out.stderr));
    }

    #[test]
    fn a_missing_directory_fails_the_job_with_125() {
        let env = vec![];
        let cmd: Vec<OsString> = vec!["true".into()];
        let spec = ScriptSpec {
            cwd: Path::new("/nonexistent/youra dir"),
            env: &env,
            slurm_gpus: false,
            limits: ChildLimits::new(None, None),
            max_processes: None,
            command: &cmd,
            seccomp: None,
        };
        let status = Command::new("bash")
            .args(["-c", &render(&spec).unwrap()])
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(125));
    }

    #[test]
    fn sbatch_flags() {
        let site = SiteFlags {
            partition: Some("gpu".into()),
            account: Some("lab".into()),
            qos: None,
            extra: vec!["--constraint=a100".into()],
        };
        let r = Request {
            name: "youra-h-e1",
            chdir: Path::new("/runs/a b"),
            log: Path::new("/runs/a b/100%/run.log"),
            time_limit: Duration::from_secs(120),
            grace: Duration::from_secs(5),
            mem_mb: Some(2048),
            gpus: 2,
            site: &site,
        };
        let args: Vec<String> = sbatch_args(&r)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(
            args,
            [
                "--parsable",
                "--no-requeue",
                "--job-name=youra-h-e1",
                "--chdir=/runs/a b",
                "--output=/runs/a b/100%%/run.log",
                "--time=3",
                "--mem=2048M",
                "--gres=gpu:2",
                "--partition=gpu",
                "--account=lab",
                "--constraint=a100",
            ]
        );
    }

    #[test]
    fn a_refusal_names_the_setting_to_change() {
        let site = SiteFlags {
            partition: Some("small".into()),
            ..Default::default()
        };
        let mem = "sbatch exit status: 1: sbatch: error: Memory specification can not be satisfied";
        let t = refusal(mem, Some((4000, "mem_mb under [exec.slurm]")), &site);
        assert!(t.starts_with(mem), "{t}");
        assert!(
            t.contains("--mem=4000M (mem_mb under [exec.slurm]) on partition `small`: lower mem_mb under [exec.slurm]"),
            "{t}"
        );
        let t = refusal(mem, None, &SiteFlags::default());
        assert!(
            t.contains("asked no --mem") && t.contains("set mem_mb under [exec.slurm]"),
            "{t}"
        );
        for (message, want) in [
            (
                "sbatch: error: invalid partition specified: gpu",
                "partition under [exec.slurm]",
            ),
            (
                "sbatch: error: Requested time limit is invalid",
                "experiment_time_limit_s",
            ),
            (
                "sbatch: error: Invalid generic resource (gres) specification",
                "gpus under [engine]",
            ),
            (
                "sbatch: error: Invalid account or account/partition combination",
                "account under",
            ),
            ("sbatch: error: Invalid qos specification", "qos under"),
            (
                "sbatch: error: Requested node configuration is not available",
                "sinfo -o",
            ),
            ("sbatch: error: something else", "extra_args"),
        ] {
            let t = refusal(message, None, &site);
            assert!(t.contains(want), "{message} → {t}");
        }
    }

    #[test]
    fn time_rounds_up_to_minutes() {
        assert_eq!(time_minutes(Duration::from_secs(1)), 1);
        assert_eq!(time_minutes(Duration::from_secs(60)), 1);
        assert_eq!(time_minutes(Duration::from_secs(61)), 2);
        assert_eq!(time_minutes(Duration::from_secs(905)), 16);
        assert_eq!(time_minutes(Duration::ZERO), 1);
    }
}
