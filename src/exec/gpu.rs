//! GPUs: what `nvidia-smi` reports (a pure parser) and a pool that hands free GPUs to jobs
//! through `CUDA_VISIBLE_DEVICES`, queueing jobs while none is free.

use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The query the parser expects, in this column order.
pub const NVIDIA_SMI_ARGS: &[&str] = &[
    "--query-gpu=index,uuid,memory.used,memory.total,utilization.gpu",
    "--format=csv,noheader,nounits",
];

/// A GPU as `nvidia-smi` reports it; `None` where it said `[N/A]` or something unreadable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    pub index: u32,
    pub uuid: String,
    pub memory_used_mib: Option<u64>,
    pub memory_total_mib: Option<u64>,
    pub utilization_pct: Option<u32>,
}

impl GpuInfo {
    /// Free enough to hand to a job: under 1 GiB (or 5 %) of memory in use and at most
    /// 10 % busy. Unknown figures (`[N/A]`, e.g. on MIG slices) count as free: we cannot
    /// tell, and refusing would make such machines CPU-only.
    pub fn looks_free(&self) -> bool {
        let mem_ok = match (self.memory_used_mib, self.memory_total_mib) {
            (Some(used), Some(total)) => used <= 1024 || used * 20 <= total,
            (Some(used), None) => used <= 1024,
            _ => true,
        };
        mem_ok && self.utilization_pct.is_none_or(|u| u <= 10)
    }

    /// The name given in `CUDA_VISIBLE_DEVICES`: the UUID when known (unambiguous whatever
    /// CUDA's device order), else the index.
    pub fn visible_name(&self) -> String {
        if self.uuid.is_empty() {
            self.index.to_string()
        } else {
            self.uuid.clone()
        }
    }
}

/// Parses `nvidia-smi` output for [`NVIDIA_SMI_ARGS`]. Lines that cannot be read are
/// returned as warnings naming the line, never as an error.
pub fn parse_nvidia_smi(text: &str) -> (Vec<GpuInfo>, Vec<String>) {
    let mut gpus = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        let index = cols.first().and_then(|c| c.parse::<u32>().ok());
        match (index, cols.len()) {
            (Some(index), 5) => gpus.push(GpuInfo {
                index,
                uuid: cols[1].to_string(),
                memory_used_mib: cols[2].parse().ok(),
                memory_total_mib: cols[3].parse().ok(),
                utilization_pct: cols[4].parse().ok(),
            }),
            _ => warnings.push(format!(
                "nvidia-smi line {}: cannot read {line:?}; skipped",
                i + 1
            )),
        }
    }
    (gpus, warnings)
}

/// Asks `nvidia-smi`; no binary, a failure or no GPU all mean CPU only (an empty list).
pub fn query_gpus() -> Vec<GpuInfo> {
    let output = Command::new("nvidia-smi")
        .args(NVIDIA_SMI_ARGS)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match output {
        Ok(out) if out.status.success() => {
            parse_nvidia_smi(&String::from_utf8_lossy(&out.stdout)).0
        }
        _ => Vec::new(),
    }
}

/// Why GPUs could not be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    #[error(
        "the job wants {wanted} GPU(s) but this machine has {usable} usable; lower the job's `gpus` or run it on a cluster"
    )]
    TooMany { wanted: usize, usable: usize },
}

/// The GPUs youra may hand out, and which are taken. Shared by all jobs of a back end.
#[derive(Debug, Default)]
pub struct GpuPool {
    inner: Mutex<Vec<(GpuInfo, bool)>>,
    freed: Condvar,
}

impl GpuPool {
    /// A pool of the GPUs in `inventory` that look free now (busy ones stay out: another
    /// user's process is on them).
    pub fn new(inventory: Vec<GpuInfo>) -> Arc<GpuPool> {
        let usable = inventory
            .into_iter()
            .filter(GpuInfo::looks_free)
            .map(|g| (g, false));
        Arc::new(GpuPool {
            inner: Mutex::new(usable.collect()),
            freed: Condvar::new(),
        })
    }

    /// A pool of what `nvidia-smi` reports (empty without it).
    pub fn detect() -> Arc<GpuPool> {
        GpuPool::new(query_gpus())
    }

    /// How many GPUs the pool holds in all.
    pub fn usable(&self) -> usize {
        self.lock().len()
    }

    /// How many are not assigned now.
    pub fn available(&self) -> usize {
        self.lock().iter().filter(|(_, taken)| !taken).count()
    }

    /// `n` GPUs, waiting (on a condition variable) while fewer are free. `n == 0` returns at
    /// once with a lease that makes no GPU visible.
    pub fn acquire(self: &Arc<Self>, n: usize) -> Result<GpuLease, GpuError> {
        let mut slots = self.lock();
        if n > slots.len() {
            return Err(GpuError::TooMany {
                wanted: n,
                usable: slots.len(),
            });
        }
        while slots.iter().filter(|(_, taken)| !taken).count() < n {
            slots = self
                .freed
                .wait(slots)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        Ok(self.take(&mut slots, n))
    }

    /// `n` GPUs if free now, else `None`.
    pub fn try_acquire(self: &Arc<Self>, n: usize) -> Result<Option<GpuLease>, GpuError> {
        let mut slots = self.lock();
        if n > slots.len() {
            return Err(GpuError::TooMany {
                wanted: n,
                usable: slots.len(),
            });
        }
        let free = slots.iter().filter(|(_, taken)| !taken).count();
        Ok((free >= n).then(|| self.take(&mut slots, n)))
    }

    fn take(self: &Arc<Self>, slots: &mut [(GpuInfo, bool)], n: usize) -> GpuLease {
        let mut names = Vec::with_capacity(n);
        for (gpu, taken) in slots.iter_mut().filter(|(_, taken)| !taken).take(n) {
            *taken = true;
            names.push(gpu.visible_name());
        }
        GpuLease {
            pool: Arc::clone(self),
            names,
        }
    }

    fn release(&self, names: &[String]) {
        let mut slots = self.lock();
        for (gpu, taken) in slots.iter_mut() {
            if names.contains(&gpu.visible_name()) {
                *taken = false;
            }
        }
        drop(slots);
        self.freed.notify_all();
    }

    // A panic while holding the lock leaves only flags behind; they are still consistent.
    fn lock(&self) -> MutexGuard<'_, Vec<(GpuInfo, bool)>> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// GPUs assigned to one job; given back to the pool when dropped.
#[derive(Debug)]
pub struct GpuLease {
    pool: Arc<GpuPool>,
    names: Vec<String>,
}

impl GpuLease {
    /// The value for `CUDA_VISIBLE_DEVICES` (empty: no GPU visible).
    pub fn cuda_visible_devices(&self) -> String {
        self.names.join(",")
    }

    pub fn count(&self) -> usize {
        self.names.len()
    }
}

impl Drop for GpuLease {
    fn drop(&mut self) {
        if !self.names.is_empty() {
            self.pool.release(&self.names);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "0, GPU-aaaa, 3, 81559, 0\n1, GPU-bbbb, 40000, 81559, 97\n\
                          2, GPU-cccc, [N/A], [N/A], [N/A]\ngarbage line\n";

    #[test]
    fn parses_sample_and_tolerates_na() {
        let (gpus, warnings) = parse_nvidia_smi(SAMPLE);
        assert_eq!(gpus.len(), 3);
        assert_eq!(gpus[0].memory_total_mib, Some(81559));
        assert_eq!(gpus[2].memory_used_mib, None);
        assert_eq!(gpus[2].utilization_pct, None);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("line 4"));
        let free: Vec<u32> = gpus
            .iter()
            .filter(|g| g.looks_free())
            .map(|g| g.index)
            .collect();
        assert_eq!(free, vec![0, 2]);
    }

    #[test]
    fn pool_queues_until_a_lease_is_dropped() {
        let (gpus, _) = parse_nvidia_smi(SAMPLE);
        let pool = GpuPool::new(gpus);
        assert_eq!(pool.usable(), 2);
        let cpu = pool.acquire(0).ok();
        assert_eq!(cpu.map(|l| l.cuda_visible_devices()), Some(String::new()));
        let both = pool.acquire(2).ok();
        assert_eq!(
            both.as_ref().map(GpuLease::cuda_visible_devices).as_deref(),
            Some("GPU-aaaa,GPU-cccc")
        );
        assert!(matches!(pool.try_acquire(1), Ok(None)));
        assert!(matches!(
            pool.acquire(3),
            Err(GpuError::TooMany {
                wanted: 3,
                usable: 2
            })
        ));
        let waiter = {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || pool.acquire(1).map(|l| l.cuda_visible_devices()))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            !waiter.is_finished(),
            "acquire returned while no GPU was free"
        );
        drop(both);
        let got = waiter.join().ok().and_then(Result::ok);
        assert_eq!(got.as_deref(), Some("GPU-aaaa"));
        assert_eq!(pool.available(), 2);
    }
}
