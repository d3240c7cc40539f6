//! The filter loaded into a real child process (the kernel's own BPF checker and
//! interpreter, no bwrap): set-id modes are refused through every chmod variant a program
//! uses, every other mode still works.

use super::*;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

/// Runs `argv` with the native filter installed (after PR_SET_NO_NEW_PRIVS, as bwrap does).
fn filtered(argv: &[&str]) -> std::process::ExitStatus {
    let insns: Vec<libc::sock_filter> = program(native_abis())
        .iter()
        .map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect();
    let len = u16::try_from(insns.len()).unwrap_or(u16::MAX);
    let ptr = insns.as_ptr() as usize;
    let mut command = Command::new(argv[0]);
    command.args(&argv[1..]);
    // SAFETY: only prctl (async-signal-safe) between fork and exec; `insns` outlives the
    // spawn, and the program it points to is read by the kernel during the call.
    unsafe {
        command.pre_exec(move || {
            let prog = libc::sock_fprog {
                len,
                filter: ptr as *mut libc::sock_filter,
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let status = command.status().unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    drop(insns);
    status
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).map_or(0, |m| m.permissions().mode() & 0o7777)
}

#[test]
fn set_id_modes_are_refused_and_others_allowed() {
    if native_abis().is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let f = dir.path().join("x");
    std::fs::write(&f, "#!/bin/sh\n").unwrap_or_else(|e| panic!("{e}"));
    let p = f.to_str().unwrap_or_default();
    // coreutils chmod (fchmodat), then Python's os.chmod and os.fchmod.
    assert!(filtered(&["chmod", "755", p]).success());
    assert_eq!(mode(&f), 0o755);
    assert!(!filtered(&["chmod", "u+s", p]).success());
    assert!(!filtered(&["chmod", "2755", p]).success());
    assert_eq!(mode(&f), 0o755, "no set-id bit may be set");
    let py = |code: &str| filtered(&["python3", "-c", code, p]);
    let by_fd = "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fchmod(fd, 0o4755)";
    assert!(!py(by_fd).success());
    assert!(!py("import os,sys; os.chmod(sys.argv[1], 0o6755)").success());
    assert!(py("import os,sys; os.chmod(sys.argv[1], 0o700)").success());
    assert_eq!(mode(&f), 0o700);
    // The sticky bit is no privilege: allowed.
    assert!(filtered(&["chmod", "1700", p]).success());
    assert_eq!(mode(&f), 0o1700);
}

#[test]
fn the_program_jumps_stay_inside_it_and_it_ends_allowing() {
    let prog = program(&[X86_64, I386]);
    assert_eq!(prog.last().map(|i| i.k), Some(SECCOMP_RET_ALLOW));
    for (at, i) in prog.iter().enumerate() {
        if i.code & 0x07 == BPF_JMP {
            let furthest = at + 1 + usize::from(i.jt.max(i.jf));
            assert!(furthest < prog.len(), "instruction {at} jumps out");
        }
    }
    // 8 bytes per instruction, in the kernel's layout.
    assert_eq!(to_bytes(&prog).len(), prog.len() * 8);
    // A refusal for each call of each ABI, and nothing else refused.
    let errnos = prog.iter().filter(|i| i.k == SECCOMP_RET_ERRNO | 1).count();
    assert_eq!(errnos, X86_64.calls.len() + I386.calls.len());
}
