//! [`SlurmBackend`]: prepares a job on the submitting machine exactly as the local back end
//! does (checks, sandbox decision, environment, results folder, the bwrap command line),
//! renders it into a batch script and submits it; [`Backend::attach`] follows a job an
//! earlier engine submitted. Jobs still followed when the back end is dropped (the engine
//! shutting down) are cancelled; an engine that is killed leaves them running, to be
//! re-attached by the next one.

use std::ffi::OsString;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::cli::Client;
use super::script::{self, Request, ScriptSpec, SiteFlags};
use super::watch::{self, Live, Watch};
use crate::exec::config::SlurmSettings;
use crate::exec::env::{EnvInputs, build_env, parent_passthrough};
use crate::exec::harden::{self, Hardening};
use crate::exec::job::{Job, METRICS_FILE, RESULTS_FILE};
use crate::exec::limits::ChildLimits;
use crate::exec::local::{check_job, open_log, policy_warnings, prepare_results};
use crate::exec::sandbox::{self, Availability};
use crate::exec::supervise::Collect;
use crate::exec::{Backend, ExecError, RunningJob};

/// Submits jobs to the Slurm cluster its settings name.
pub struct SlurmBackend {
    client: Client,
    site: SiteFlags,
    /// `[exec.slurm] mem_mb`.
    mem_mb: Option<u64>,
    /// `[exec.slurm] outage_wait_s`.
    outage: Duration,
    /// Ask `--mem` for a CPU job's memory limit (set by the researcher, not the default).
    experiment_memory_set: bool,
    poll: Duration,
    /// Probed on first use, on this machine: the nodes are assumed to match it.
    sandbox: OnceLock<Availability>,
    live: Live,
}

impl std::fmt::Debug for SlurmBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlurmBackend")
            .field("site", &self.site)
            .finish_non_exhaustive()
    }
}

/// A job ready to submit (or to follow).
struct Prepared {
    script: String,
    args: Vec<OsString>,
    collect: Collect,
}

impl SlurmBackend {
    pub fn new(settings: &SlurmSettings) -> SlurmBackend {
        SlurmBackend {
            client: Client {
                conf: settings.conf.clone(),
            },
            site: SiteFlags {
                partition: settings.partition.clone(),
                account: settings.account.clone(),
                qos: settings.qos.clone(),
                extra: settings.extra_args.clone(),
            },
            mem_mb: settings.mem_mb,
            experiment_memory_set: settings.experiment_memory_set,
            poll: Duration::from_secs_f64(settings.poll_s.clamp(0.05, 600.0)),
            outage: Duration::from_secs_f64(settings.outage_wait_s.clamp(0.0, 7.0 * 24.0 * 3600.0)),
            sandbox: OnceLock::new(),
            live: Arc::new(Mutex::new(Default::default())),
        }
    }

    /// The ids of the jobs this back end follows now.
    pub fn live_jobs(&self) -> Vec<String> {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// `fresh`: a new submission (the previous attempt's files are moved aside and the log
    /// truncated); otherwise a job already running, whose files are left alone.
    fn prepare(&self, job: &Job, fresh: bool) -> Result<Prepared, ExecError> {
        let paths = check_job(job)?;
        let found = self
            .sandbox
            .get_or_init(|| sandbox::probe(std::env::var("PATH").ok().as_deref()));
        let (bwrap, sandbox_warning) = sandbox::decide(job.sandbox, found)?;
        let mut warnings: Vec<String> = sandbox_warning.into_iter().collect();
        warnings.extend(policy_warnings(job, bwrap.is_some()));
        if let Some(b) = &bwrap {
            warnings.extend(harden::missing_warnings(b));
        }
        let inputs = EnvInputs {
            parent: parent_passthrough(),
            workspace: &paths.workspace,
            cuda_visible_devices: "",
            sandboxed: bwrap.is_some(),
        };
        let env = build_env(&inputs, &job.env)?;
        if fresh {
            warnings.extend(prepare_results(&paths)?);
            open_log(&paths.log)?;
        }
        // Built again when an engine re-attaches (the same job, its data hashed anew).
        let run_card = job.card.then(|| {
            crate::exec::run_card::build(&crate::exec::run_card::CardInputs {
                job,
                workspace: &paths.workspace,
                env: &env,
                bwrap: bwrap.as_deref(),
                backend: "slurm",
            })
        });
        // The node's bwrap is taken to be this machine's (as for the probe above); the
        // filter is fed by the script on a fixed descriptor.
        let features = bwrap.as_deref().map(harden::features).unwrap_or_default();
        let seccomp = crate::exec::seccomp::native_filter().filter(|_| features.seccomp);
        let hardening = Hardening {
            disable_userns: features.disable_userns,
            seccomp_fd: seccomp.as_ref().map(|_| script::SECCOMP_FD),
        };
        let (command, cwd): (Vec<OsString>, _) = match bwrap.as_deref() {
            Some(bwrap) => {
                let spec = paths.sandbox(job, hardening);
                let mut c = vec![bwrap.as_os_str().to_os_string()];
                c.extend(sandbox::bwrap_args(&spec));
                c.extend(job.argv.iter().map(OsString::from));
                (c, paths.workspace.clone())
            }
            None => (
                job.argv.iter().map(OsString::from).collect(),
                paths.workdir.clone(),
            ),
        };
        let script = script::render(&ScriptSpec {
            cwd: &cwd,
            env: &env,
            slurm_gpus: job.gpus > 0,
            limits: ChildLimits::new(job.memory_limit, job.cpu_limit),
            max_processes: job.max_processes,
            command: &command,
            seccomp: seccomp.as_deref().filter(|_| bwrap.is_some()),
        })?;
        let name = paths
            .workspace
            .file_name()
            .map_or("job".into(), |n| n.to_string_lossy().into_owned());
        let args = script::sbatch_args(&Request {
            name: &format!("youra-{name}"),
            chdir: &paths.workspace,
            log: &paths.log,
            time_limit: job.time_limit,
            grace: job.grace,
            mem_mb: self.memory_request(job).map(|(mb, _)| mb),
            gpus: job.gpus,
            site: &self.site,
        });
        let collect = Collect {
            log_path: paths.log.clone(),
            metrics_path: paths.results.join(METRICS_FILE),
            results_path: paths.results.join(RESULTS_FILE),
            sandboxed: bwrap.is_some(),
            time_limit: job.time_limit,
            grace: job.grace,
            warnings,
            gpus: if job.gpus > 0 {
                format!("slurm:gpu:{}", job.gpus)
            } else {
                String::new()
            },
            memory_limit: job.memory_limit,
            max_processes: job.max_processes,
            run_card,
        };
        Ok(Prepared {
            script,
            args,
            collect,
        })
    }

    /// `--mem` in MiB and the setting it comes from, or none: the partition's default
    /// applies, and the sandbox inside the job enforces the job's own limit (`ulimit -v`).
    fn memory_request(&self, job: &Job) -> Option<(u64, &'static str)> {
        if let Some(mb) = self.mem_mb {
            return Some((mb, "mem_mb under [exec.slurm]"));
        }
        let limit = job.memory_limit.filter(|_| self.experiment_memory_set)?;
        Some(((limit >> 20).max(1), "experiment_memory_mb under [engine]"))
    }

    fn follow(&self, id: String, p: Prepared) -> Box<dyn RunningJob> {
        Box::new(watch::spawn(Watch {
            client: self.client.clone(),
            id,
            script: p.script,
            args: p.args,
            collect: p.collect,
            poll: self.poll,
            live: Arc::clone(&self.live),
        }))
    }
}

impl Backend for SlurmBackend {
    fn outage_window(&self) -> Option<Duration> {
        Some(self.outage)
    }

    fn start(&self, job: &Job) -> Result<Box<dyn RunningJob>, ExecError> {
        let p = self.prepare(job, true)?;
        let id = self
            .client
            .submit(&p.args, &p.script)
            .map_err(|e| match e {
                ExecError::Submit(message) => ExecError::Submit(script::refusal(
                    &message,
                    self.memory_request(job),
                    &self.site,
                )),
                other => other,
            })?;
        tracing::info!(job = %id, workspace = %job.workspace.display(), "submitted to Slurm");
        Ok(self.follow(id, p))
    }

    fn attach(&self, job: &Job, id: &str) -> Result<Option<Box<dyn RunningJob>>, ExecError> {
        match self.client.show(id) {
            Ok(Some(_)) => {}
            Ok(None) => return Ok(None),
            Err(e) => return Err(ExecError::Submit(e)),
        }
        let p = self.prepare(job, false)?;
        tracing::info!(job = %id, "re-attached to a Slurm job");
        Ok(Some(self.follow(id.to_string(), p)))
    }
}

impl Drop for SlurmBackend {
    /// The engine is shutting down: its jobs would run on unwatched.
    fn drop(&mut self) {
        for id in self.live_jobs() {
            self.client.cancel(&id);
        }
    }
}
