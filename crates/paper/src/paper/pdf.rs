//! `paper/paper.pdf`, compiled by Typst used as a library: no TeX installation, no network,
//! the fonts bundled in the binary (`typst-assets`). [`PaperWorld`] is the smallest
//! `typst::World`: one main source, files read from the paper's folder only (the figures
//! and `references.bib`, no link followed, capped), no packages. [`compile`] runs in the
//! bounded child process of `paper::bounded`, never in the engine's own process. Why Typst:
//! docs/decisions/0004-paper-pdf-typst.md.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use typst::diag::{FileError, FileResult};
use typst::foundations::{Bytes, Datetime};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World};

/// The fonts, parsed once per process (a few MB; reused by every compile).
fn fonts() -> &'static (LazyHash<FontBook>, Vec<Font>) {
    static FONTS: OnceLock<(LazyHash<FontBook>, Vec<Font>)> = OnceLock::new();
    FONTS.get_or_init(|| {
        let fonts: Vec<Font> = typst_assets::fonts()
            .flat_map(|data| Font::iter(Bytes::new(data)))
            .collect();
        (LazyHash::new(FontBook::from_fonts(&fonts)), fonts)
    })
}

fn library() -> &'static LazyHash<Library> {
    static LIB: OnceLock<LazyHash<Library>> = OnceLock::new();
    LIB.get_or_init(|| LazyHash::new(Library::default()))
}

/// A world of one paper: `main.typ` in memory, every other file from `root` (the run's
/// `paper/` folder), never outside it.
pub(crate) struct PaperWorld {
    root: PathBuf,
    main: Source,
}

impl PaperWorld {
    pub fn new(root: &Path, markup: String) -> Result<PaperWorld, String> {
        let vpath = VirtualPath::new("main.typ").map_err(|e| format!("{e:?}"))?;
        let id = FileId::new(RootedPath::new(VirtualRoot::Project, vpath));
        Ok(PaperWorld {
            root: root.to_path_buf(),
            main: Source::new(id, markup),
        })
    }

    fn read(&self, id: FileId) -> FileResult<Vec<u8>> {
        if !matches!(id.root(), VirtualRoot::Project) {
            return Err(FileError::AccessDenied);
        }
        let rel = id.vpath().get_without_slash();
        // Only plain relative paths inside the paper folder (the virtual path is normalized).
        if rel.split('/').any(|s| s == ".." || s.is_empty()) {
            return Err(FileError::AccessDenied);
        }
        // No link followed on the way, regular files only, never a whole disk.
        crate::fsutil::read_beneath(&self.root, Path::new(rel), FILE_CAP)
            .map_err(|e| FileError::from_io(e, &self.root.join(rel)))
    }
}

/// The most the compiler reads of one file (a figure SVG, `references.bib`).
const FILE_CAP: u64 = 64 << 20;

impl World for PaperWorld {
    fn library(&self) -> &LazyHash<Library> {
        library()
    }

    fn book(&self) -> &LazyHash<FontBook> {
        &fonts().0
    }

    fn main(&self) -> FileId {
        self.main.id()
    }

    fn source(&self, id: FileId) -> FileResult<Source> {
        if id == self.main.id() {
            return Ok(self.main.clone());
        }
        let bytes = self.read(id)?;
        let text = String::from_utf8(bytes).map_err(|_| FileError::InvalidUtf8)?;
        Ok(Source::new(id, text))
    }

    fn file(&self, id: FileId) -> FileResult<Bytes> {
        if id == self.main.id() {
            return Ok(Bytes::from_string(self.main.text().to_string()));
        }
        self.read(id).map(Bytes::new)
    }

    fn font(&self, index: usize) -> Option<Font> {
        fonts().1.get(index).cloned()
    }

    fn today(&self, _offset: Option<typst::foundations::Duration>) -> Option<Datetime> {
        let now = chrono::Utc::now().date_naive();
        use chrono::Datelike;
        Datetime::from_ymd(now.year(), now.month() as u8, now.day() as u8)
    }
}

/// Compile Typst markup (files resolved in `root`) to PDF bytes. A Typst error is reported
/// with its message and the line of the generated markup it points at.
pub fn compile(root: &Path, markup: String) -> Result<Vec<u8>, String> {
    let world = PaperWorld::new(root, markup)?;
    let doc = typst::compile::<typst_layout::PagedDocument>(&world)
        .output
        .map_err(|errs| describe(&world, &errs))?;
    typst_pdf::pdf(&doc, &typst_pdf::PdfOptions::default()).map_err(|errs| describe(&world, &errs))
}

fn describe(world: &PaperWorld, errs: &[typst::diag::SourceDiagnostic]) -> String {
    let text = world.main.text();
    errs.iter()
        .take(5)
        .map(|e| {
            let line = typst::WorldExt::range(world, e.span)
                .map(|r| text[..r.start.min(text.len())].lines().count().max(1));
            match line {
                Some(l) => format!("{} (typst line {l})", e.message),
                None => e.message.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}
