//! GPUs: what `nvidia-smi` reports (pure parsers) and a pool that hands free GPUs to jobs
//! through `CUDA_VISIBLE_DEVICES`, queueing jobs while none is free.
//!
//! MIG: `--query-gpu` lists a MIG-partitioned GPU once, by its parent UUID, and a job given
//! that UUID sees no device at all. `nvidia-smi -L` lists the slices (`MIG 1g.10gb Device
//! 0: (UUID: MIG-…)`) under their GPU; a GPU with slices is replaced by its slices, each
//! handed out by its `MIG-` UUID (what CUDA accepts in `CUDA_VISIBLE_DEVICES`).

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
    /// A MIG slice of GPU `index`: its profile and device number (`1g.10gb`, 0).
    pub mig: Option<(String, u32)>,
}

impl GpuInfo {
    /// Free enough to hand to a job: under 1 GiB (or 5 %) of memory in use and at most
    /// 10 % busy. Unknown figures (`[N/A]`, e.g. on MIG slices) count as free: we cannot
    /// tell, and refusing would make such machines CPU-only.
    pub(crate) fn looks_free(&self) -> bool {
        let mem_ok = match (self.memory_used_mib, self.memory_total_mib) {
            (Some(used), Some(total)) => used <= 1024 || used * 20 <= total,
            (Some(used), None) => used <= 1024,
            _ => true,
        };
        mem_ok && self.utilization_pct.is_none_or(|u| u <= 10)
    }

    /// One line for people: `GPU0 3% 1200/81559 MiB`, `GPU0 MIG 1g.5gb dev 0`.
    pub fn label(&self) -> String {
        let n = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
        match &self.mig {
            Some((profile, dev)) => format!("GPU{} MIG {profile} dev {dev}", self.index),
            None => format!(
                "GPU{} {}% {}/{} MiB",
                self.index,
                self.utilization_pct
                    .map_or("?".to_string(), |u| u.to_string()),
                n(self.memory_used_mib),
                n(self.memory_total_mib)
            ),
        }
    }

    /// The name given in `CUDA_VISIBLE_DEVICES`: the UUID when known (unambiguous whatever
    /// CUDA's device order), else the index.
    pub(crate) fn visible_name(&self) -> String {
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
                mig: None,
            }),
            _ => warnings.push(format!(
                "nvidia-smi line {}: cannot read {line:?}; skipped",
                i + 1
            )),
        }
    }
    (gpus, warnings)
}

/// One MIG slice as `nvidia-smi -L` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigSlice {
    /// The index of the GPU it belongs to.
    pub gpu: u32,
    pub profile: String,
    pub device: u32,
    pub uuid: String,
}

/// The MIG slices in `nvidia-smi -L` output, under the `GPU N:` line they follow.
/// Lines of other shapes are skipped: the listing is for people and varies by driver.
pub fn parse_nvidia_smi_l(text: &str) -> Vec<MigSlice> {
    let mut out = Vec::new();
    let mut gpu: Option<u32> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("GPU ") {
            gpu = rest.split(':').next().and_then(|n| n.trim().parse().ok());
            continue;
        }
        let (Some(g), Some(rest)) = (gpu, t.strip_prefix("MIG ")) else {
            continue;
        };
        let uuid = rest
            .split("UUID:")
            .nth(1)
            .map(|u| u.trim().trim_end_matches(')').trim().to_string())
            .filter(|u| u.starts_with("MIG-"));
        let mut words = rest.split_whitespace();
        let profile = words.next().map(str::to_string);
        let device = rest
            .split("Device")
            .nth(1)
            .and_then(|d| d.split(':').next())
            .and_then(|d| d.trim().parse().ok());
        if let (Some(uuid), Some(profile), Some(device)) = (uuid, profile, device) {
            out.push(MigSlice {
                gpu: g,
                profile,
                device,
                uuid,
            });
        }
    }
    out
}

/// The GPUs to hand out: each GPU with MIG slices replaced by its slices (usage per slice
/// is not reported, so a slice counts as free unless its parent GPU is busy computing).
pub fn with_mig(gpus: Vec<GpuInfo>, slices: &[MigSlice]) -> Vec<GpuInfo> {
    let mut out = Vec::new();
    for g in gpus {
        let mine: Vec<&MigSlice> = slices.iter().filter(|s| s.gpu == g.index).collect();
        if mine.is_empty() {
            out.push(g);
            continue;
        }
        for s in mine {
            out.push(GpuInfo {
                index: g.index,
                uuid: s.uuid.clone(),
                memory_used_mib: None,
                memory_total_mib: None,
                utilization_pct: g.utilization_pct,
                mig: Some((s.profile.clone(), s.device)),
            });
        }
    }
    out
}

fn nvidia_smi(args: &[&str]) -> Option<String> {
    let out = Command::new("nvidia-smi")
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Asks `nvidia-smi`; no binary, a failure or no GPU all mean CPU only (an empty list).
pub fn query_gpus() -> Vec<GpuInfo> {
    let Some(text) = nvidia_smi(NVIDIA_SMI_ARGS) else {
        return Vec::new();
    };
    let gpus = parse_nvidia_smi(&text).0;
    let slices = nvidia_smi(&["-L"])
        .map(|l| parse_nvidia_smi_l(&l))
        .unwrap_or_default();
    with_mig(gpus, &slices)
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
    pub(crate) fn cuda_visible_devices(&self) -> String {
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

    /// `nvidia-smi -L` on an A100 with two MIG slices and a second GPU without MIG, as
    /// drivers 470–550 print it.
    const LIST: &str = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-aaaa)\n  \
        MIG 1g.5gb      Device  0: (UUID: MIG-1111-aaaa)\n  \
        MIG 3g.20gb     Device  1: (UUID: MIG-2222-aaaa)\n\
        GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-bbbb)\n";

    #[test]
    fn mig_slices_replace_their_gpu_and_are_handed_out_by_uuid() {
        let slices = parse_nvidia_smi_l(LIST);
        assert_eq!(
            slices,
            vec![
                MigSlice {
                    gpu: 0,
                    profile: "1g.5gb".into(),
                    device: 0,
                    uuid: "MIG-1111-aaaa".into()
                },
                MigSlice {
                    gpu: 0,
                    profile: "3g.20gb".into(),
                    device: 1,
                    uuid: "MIG-2222-aaaa".into()
                },
            ]
        );
        let (gpus, _) =
            parse_nvidia_smi("0, GPU-aaaa, [N/A], 40960, 0\n1, GPU-bbbb, 3, 40960, 0\n");
        let all = with_mig(gpus, &slices);
        let names: Vec<String> = all.iter().map(GpuInfo::visible_name).collect();
        assert_eq!(names, ["MIG-1111-aaaa", "MIG-2222-aaaa", "GPU-bbbb"]);
        assert_eq!(all[1].mig, Some(("3g.20gb".into(), 1)));
        assert_eq!(all[1].label(), "GPU0 MIG 3g.20gb dev 1");
        assert_eq!(all[2].label(), "GPU1 0% 3/40960 MiB");
        let pool = GpuPool::new(all);
        assert_eq!(pool.usable(), 3);
        let a = pool.acquire(1).unwrap();
        let b = pool.acquire(1).unwrap();
        assert_eq!(
            (a.cuda_visible_devices(), b.cuda_visible_devices()),
            ("MIG-1111-aaaa".to_string(), "MIG-2222-aaaa".to_string())
        );
        // Without MIG (or with an unreadable listing) the GPUs stay as they are.
        assert!(parse_nvidia_smi_l("No devices found.\n").is_empty());
        assert!(parse_nvidia_smi_l("GPU 0: A100 (UUID: GPU-aaaa)\n  MIG garbage\n").is_empty());
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
