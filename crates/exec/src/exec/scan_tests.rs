//! The workspace walk from the attacker's side: what a job can leave with plain system calls
//! (as youra's user outside the sandbox, which is what the sandbox's files are) is found,
//! named and removed; what is honest stays; no link is followed.

use super::*;
use std::fs;
use std::os::unix::fs::PermissionsExt;

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).map_or(0, |m| m.permissions().mode())
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("chmod {}: {e}", path.display()));
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap_or_default();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

fn sparse(path: &Path, len: u64) {
    let f = fs::File::create(path).unwrap_or_else(|e| panic!("create: {e}"));
    f.set_len(len).unwrap_or_else(|e| panic!("set_len: {e}"));
}

/// The violations naming `path` (each starts with the path).
fn naming<'a>(f: &'a Findings, path: &Path) -> Vec<&'a String> {
    let p = format!("{} ", path.display());
    f.violations.iter().filter(|v| v.starts_with(&p)).collect()
}

#[test]
fn set_id_files_special_files_and_huge_files_are_removed_and_named() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = dir.path().join("h-e1");
    for d in ["code/sub", "results", "tmp"] {
        fs::create_dir_all(ws.join(d)).unwrap_or_else(|e| panic!("{e}"));
    }
    // A set-uid copy of a shell, a set-gid one, and an honest script beside them.
    let suid = ws.join("code/x");
    fs::copy("/bin/sh", &suid).unwrap_or_else(|e| panic!("copy: {e}"));
    chmod(&suid, 0o4755);
    let sgid = ws.join("results/y");
    fs::write(&sgid, "#!/bin/sh\n").unwrap_or_else(|e| panic!("{e}"));
    chmod(&sgid, 0o2755);
    let honest = ws.join("code/train.py");
    fs::write(&honest, "print(1)\n").unwrap_or_else(|e| panic!("{e}"));
    chmod(&honest, 0o755);
    // A set-gid folder keeps its place and loses its bit.
    chmod(&ws.join("code/sub"), 0o2755);
    // A FIFO as the metrics file, and a sparse 8 GiB file in results/ and in tmp/; a FIFO
    // in tmp/ (an IPC leftover) is cleared without a violation.
    mkfifo(&ws.join("results/metrics.jsonl"));
    mkfifo(&ws.join("tmp/pipe"));
    sparse(&ws.join("results/big"), 8 << 30);
    sparse(&ws.join("tmp/scratch"), 8 << 30);
    // A link to a set-uid host program: never followed, so never touched.
    std::os::unix::fs::symlink("/usr/bin/passwd", ws.join("code/passwd"))
        .unwrap_or_else(|e| panic!("{e}"));
    let host_mode = mode(Path::new("/usr/bin/passwd"));

    let started = std::time::Instant::now();
    let f = scan(&ws);
    let took = started.elapsed();
    assert!(took.as_secs() < 5, "the walk took {took:?}");

    for gone in [
        &suid,
        &sgid,
        &ws.join("results/metrics.jsonl"),
        &ws.join("results/big"),
    ] {
        assert!(
            fs::symlink_metadata(gone).is_err(),
            "{} left: {f:?}",
            gone.display()
        );
        assert_eq!(
            naming(&f, gone).len(),
            1,
            "{} not named once: {f:?}",
            gone.display()
        );
    }
    assert!(
        naming(&f, &suid)[0].contains("set-uid file (mode 4755)"),
        "{f:?}"
    );
    assert!(naming(&f, &sgid)[0].contains("set-gid file"), "{f:?}");
    assert!(naming(&f, &ws.join("results/metrics.jsonl"))[0].contains("a FIFO"));
    assert!(naming(&f, &ws.join("results/big"))[0].contains("8589934592 bytes"));
    assert!(naming(&f, &suid)[0].ends_with("removed by youra"), "{f:?}");
    // The folder stays, without its bit; honest files, the scratch file and the link stay.
    assert_eq!(mode(&ws.join("code/sub")) & 0o7777, 0o755);
    assert_eq!(naming(&f, &ws.join("code/sub")).len(), 1, "{f:?}");
    assert_eq!(mode(&honest) & 0o7777, 0o755);
    assert!(ws.join("tmp/scratch").exists());
    assert!(fs::symlink_metadata(ws.join("code/passwd")).is_ok_and(|m| m.file_type().is_symlink()));
    assert_eq!(mode(Path::new("/usr/bin/passwd")), host_mode);
    assert_eq!(f.violations.len(), 5, "{f:?}");
    assert!(!ws.join("tmp/pipe").exists());
    assert_eq!(f.cleared.len(), 1, "{f:?}");
    assert!(f.cleared[0].contains("tmp/pipe was a FIFO"), "{f:?}");
    // Nothing is left to find a second time.
    assert_eq!(scan(&ws), Findings::default());
}

#[test]
fn a_folder_made_unreadable_or_read_only_is_still_cleared() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = dir.path().to_path_buf();
    let hidden = ws.join("results/hidden");
    fs::create_dir_all(&hidden).unwrap_or_else(|e| panic!("{e}"));
    let suid = hidden.join("x");
    fs::write(&suid, "x").unwrap_or_else(|e| panic!("{e}"));
    chmod(&suid, 0o4755);
    // Unreadable and unwritable: as youra's own user the walk gives it back first.
    chmod(&hidden, 0o000);
    let f = scan(&ws);
    chmod(&hidden, 0o755);
    assert!(!suid.exists(), "{f:?}");
    assert_eq!(naming(&f, &suid).len(), 1, "{f:?}");
}

#[test]
fn the_walk_is_bounded_and_says_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = dir.path().to_path_buf();
    let mut deep = ws.clone();
    for _ in 0..6 {
        deep.push("d");
    }
    fs::create_dir_all(&deep).unwrap_or_else(|e| panic!("{e}"));
    let tight = Limits {
        depth: 3,
        ..Limits::default()
    };
    let f = scan_within(&ws, tight);
    assert_eq!(f.violations.len(), 1, "{f:?}");
    assert!(
        f.violations[0].contains("more than 3 folders deep"),
        "{f:?}"
    );
    assert!(f.violations[0].starts_with(&ws.join("d/d/d/d").display().to_string()));
    for i in 0..20 {
        fs::write(ws.join(format!("f{i}")), "x").unwrap_or_else(|e| panic!("{e}"));
    }
    let few = Limits {
        entries: 10,
        ..Limits::default()
    };
    let f = scan_within(&ws, few);
    assert!(
        f.violations
            .iter()
            .any(|v| v.contains("more than 10 entries")),
        "{f:?}"
    );
    // A file over a (small) cap outside tmp/ is removed; the cap is the apparent size.
    let small = Limits {
        file_bytes: 0,
        ..Limits::default()
    };
    let f = scan_within(&ws, small);
    assert_eq!(f.violations.len(), 20, "{f:?}");
}

/// A `security.capability` attribute (what `setcap cap_setuid+ep` writes) is found and the
/// file removed; a `user.*` attribute is nobody's privilege and stays. Setting the former
/// needs CAP_SETFCAP: as another user only the latter part runs.
#[test]
fn a_file_capability_is_removed_and_a_user_attribute_kept() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = dir.path().to_path_buf();
    let (capped, noted) = (ws.join("py"), ws.join("notes.txt"));
    fs::write(&capped, "x").unwrap_or_else(|e| panic!("{e}"));
    fs::write(&noted, "x").unwrap_or_else(|e| panic!("{e}"));
    let set = |path: &Path, name: &str, value: &[u8]| {
        let p = CString::new(path.as_os_str().as_bytes()).unwrap_or_default();
        let n = CString::new(name).unwrap_or_default();
        // SAFETY: NUL-terminated strings and a value buffer of its length.
        unsafe {
            libc::setxattr(
                p.as_ptr(),
                n.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
            )
        }
    };
    // vfs_cap_data revision 2: magic | effective, then cap_setuid (bit 7) permitted.
    let mut cap = Vec::new();
    cap.extend_from_slice(&(0x0200_0000u32 | 1).to_le_bytes());
    cap.extend_from_slice(&(1u32 << 7).to_le_bytes());
    cap.extend_from_slice(&0u32.to_le_bytes());
    cap.extend_from_slice(&[0; 8]);
    let capped_set = set(&capped, "security.capability", &cap) == 0;
    let user_set = set(&noted, "user.origin", b"lab") == 0;
    // SAFETY: geteuid has no preconditions. As root (CI) the planting must have worked.
    if unsafe { libc::geteuid() } == 0 {
        assert!(capped_set, "root could not set security.capability");
    }
    let f = scan(&ws);
    if capped_set {
        assert!(!capped.exists(), "{f:?}");
        let named = naming(&f, &capped);
        assert!(
            named.len() == 1 && named[0].contains("security.capability"),
            "{f:?}"
        );
    }
    if user_set {
        assert!(noted.exists());
    }
    assert_eq!(f.violations.len(), usize::from(capped_set), "{f:?}");
}
