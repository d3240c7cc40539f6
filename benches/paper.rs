//! Manuscript Drafting's added cost on the demo (target ≤ 2 s): drawing the figures from the
//! measured files (SVG, with their sha256 manifest) and publishing the checked paper
//! (`references.bib`, `paper.tex`, and `paper.pdf` with the figures' PDFs for `paper.tex`,
//! compiled by Typst in youra's bounded child process, `paper::bounded`). The demo runs
//! once headless; the figures and the PDF are then rebuilt `RUNS` times on its final paper.
//! The first call is what a run pays (the engine compiles once per process: starting the
//! child, font parsing and a cold Typst compile); later calls reuse the child and Typst's
//! memoized work and are printed apart as medians.
//!
//! Run: `cargo bench --bench paper` (release), or `cargo bench --profile dev --bench paper`.

use std::time::{Duration, Instant};

const RUNS: usize = 10;

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args([
            "demo",
            "--headless",
            "--dir",
            dir.to_str().expect("utf-8 path"),
        ])
        .output()
        .expect("run the demo");
    assert!(
        out.status.success(),
        "the demo failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let snap = youra::vsa::store::Store::new(dir.join("verification_state.yaml"))
        .load()
        .expect("the demo's VSA");
    let gates = youra::paper::figures::gates_of(&snap.vsa);
    let md = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).expect("final paper");
    let mut figures = Vec::new();
    let mut pdf = Vec::new();
    let mut whole = Vec::new();
    let mut first = None;
    let mut bytes = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let figs = youra::paper::figures::write_all(&dir, &gates).expect("figures");
        let linked = youra::paper::figures::with_links(&md, &figs);
        let f = t.elapsed();
        let p = youra::paper::publish(&dir, &linked).expect("publish");
        assert_eq!(p.no_pdf, None, "the demo's paper compiles");
        let all = t.elapsed();
        bytes = p.pdf_bytes;
        if first.is_none() {
            first = Some(all);
            continue;
        }
        figures.push(f);
        pdf.push(p.pdf + p.bib_and_tex);
        whole.push(all);
    }
    let med = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1e3
    };
    println!(
        "paper on the demo: added cost as a run pays it (first call: font parsing, full Typst compile) {:.1} ms; repeated in one process (Typst memoizes): figures median {:.1} ms, bib + tex + PDF median {:.1} ms, whole median {:.1} ms ({} samples); PDF {} KB; target ≤ 2000 ms",
        first.unwrap_or_default().as_secs_f64() * 1e3,
        med(&mut figures),
        med(&mut pdf),
        med(&mut whole),
        whole.len(),
        bytes / 1024
    );
}
