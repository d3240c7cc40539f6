//! `[paper]` in youra.toml: the bounds of compiling `paper.pdf`. Typst has no cancellation
//! and the paper's markup is built from model text, so the compile runs in a child process
//! with a wall-clock deadline and an address-space limit (`paper::bounded`); past either,
//! the run goes on without a PDF and says why.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// `[paper]`: how long and how much memory compiling the PDF (and the figures' PDFs for
/// `paper.tex`) may take. The demo's paper compiles in well under 2 s.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PaperSettings {
    /// Wall-clock seconds for the whole compile (paper and figures); 1 to 3600
    /// (`config_check` holds both ranges).
    pub compile_timeout_s: f64,
    /// Address-space limit of the compiling process in MiB; 256 to 1,048,576.
    pub compile_memory_mb: u64,
}

impl Default for PaperSettings {
    fn default() -> Self {
        PaperSettings {
            compile_timeout_s: 120.0,
            compile_memory_mb: 4096,
        }
    }
}

/// The bounds one compile runs under.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub deadline: Duration,
    pub memory_bytes: u64,
}

impl PaperSettings {
    /// The settings as bounds (a value out of range was refused at load; a non-finite one
    /// that reached here anyway becomes the default rather than a panic).
    pub fn bounds(&self) -> Bounds {
        let secs = if self.compile_timeout_s.is_finite() && self.compile_timeout_s > 0.0 {
            self.compile_timeout_s.min(86_400.0)
        } else {
            PaperSettings::default().compile_timeout_s
        };
        Bounds {
            deadline: Duration::from_secs_f64(secs),
            memory_bytes: self.compile_memory_mb.clamp(64, 1 << 20) << 20,
        }
    }
}
