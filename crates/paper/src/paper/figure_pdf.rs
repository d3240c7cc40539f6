//! The drawn figures as one-page PDFs for `paper.tex` (`figures/x.svg` → `figures/x.pdf`),
//! made by Typst in the bounded child (`#image` on a page of the figure's own size), so
//! building the paper needs neither the `svg` package nor `-shell-escape`. A PDF is made
//! once per SVG content in a process: a figure drawn again from the same data is written
//! from memory (the demo's benchmark redraws every figure per round).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use sha2::{Digest, Sha256};

/// PDFs made in this process, by their SVG's sha256 (at most [`KEPT`]).
static MADE: Mutex<Option<HashMap<[u8; 32], Vec<u8>>>> = Mutex::new(None);
const KEPT: usize = 64;

/// The most of a figure read to hash it (youra's own SVGs are far smaller).
const SVG_CAP: u64 = 64 << 20;

/// A figure whose PDF is to be made or written.
pub struct Figure {
    /// The SVG, relative to `paper/`.
    pub svg: String,
    /// Its PDF, relative to `paper/`.
    pub pdf: String,
    hash: [u8; 32],
    /// Already made in this process from the same SVG.
    pub made: Option<Vec<u8>>,
}

/// The figures of `files` (relative to `paper_dir`) with their PDF's name and, where this
/// process made it from the same SVG before, the PDF; a figure that cannot be read is named
/// in the second list.
pub fn plan(paper_dir: &Path, files: &[String]) -> (Vec<Figure>, Vec<String>) {
    let made = MADE.lock().unwrap_or_else(PoisonError::into_inner);
    let mut out = Vec::new();
    let mut dropped = Vec::new();
    for svg in files {
        let Some(pdf) = super::tex::figure_pdf(svg) else {
            continue;
        };
        match crate::fsutil::read_beneath(paper_dir, Path::new(svg), SVG_CAP) {
            Ok(bytes) => {
                let hash: [u8; 32] = Sha256::digest(&bytes).into();
                let made = made.as_ref().and_then(|m| m.get(&hash)).cloned();
                out.push(Figure {
                    svg: svg.clone(),
                    pdf,
                    hash,
                    made,
                });
            }
            Err(e) => dropped.push(format!("{pdf} (for paper.tex) not made: {e}")),
        }
    }
    (out, dropped)
}

/// The Typst markup of a figure's PDF: the SVG on a page of its own size.
pub fn markup(svg: &str) -> String {
    format!(
        "#set page(width: auto, height: auto, margin: 0pt)\n#image({})\n",
        super::typst_md::typst_str(svg)
    )
}

/// Keep `pdf` as the PDF of `figure`'s SVG for later rounds.
pub fn remember(figure: &Figure, pdf: &[u8]) {
    let mut made = MADE.lock().unwrap_or_else(PoisonError::into_inner);
    let map = made.get_or_insert_with(HashMap::new);
    if map.len() >= KEPT {
        map.clear();
    }
    map.insert(figure.hash, pdf.to_vec());
}
