//! Reading what [`super::runs`] describes a run by, besides the measured files (those come
//! through `exec::collected`, with the record that numbers their attempt): the
//! sub-hypothesis's code that links count words to fields. Nothing here fails: a code file
//! that cannot be read describes nothing.

use std::path::Path;

/// Code files larger than this are not read for count words.
const MAX_CODE_BYTES: u64 = 1024 * 1024;
/// How deep under `<h>/code/` files are read.
const MAX_DEPTH: usize = 3;
/// Text files a count word may be learnt from.
const CODE_EXTENSIONS: &[&str] = &[
    "py", "r", "jl", "sh", "rs", "c", "cpp", "h", "js", "ts", "toml", "yaml", "yml", "json", "cfg",
    "ini", "txt", "md",
];

/// The text of `<run>/<h>/code/**` (small text files, a few folders deep, links not
/// followed), joined.
pub fn code_text(run: &Path, h: &str) -> String {
    let mut out = String::new();
    collect(&run.join(h).join("code"), 0, &mut out);
    out
}

fn collect(dir: &Path, depth: usize, out: &mut String) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = read.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        // `symlink_metadata`: the workspace is the sandbox's; a link is never followed.
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        let name = e.file_name().to_string_lossy().to_ascii_lowercase();
        if meta.is_dir() && depth + 1 < MAX_DEPTH && !name.starts_with('.') {
            collect(&e.path(), depth + 1, out);
        } else if meta.is_file()
            && meta.len() <= MAX_CODE_BYTES
            && name
                .rsplit_once('.')
                .is_some_and(|(_, ext)| CODE_EXTENSIONS.contains(&ext))
            && let Ok(text) = crate::fsutil::read_capped_string(e.path(), MAX_CODE_BYTES)
        {
            out.push_str(&text);
            out.push('\n');
        }
    }
}
