//! The seccomp filter every sandboxed job runs under (bwrap's `--seccomp FD`): a classic BPF
//! program that makes `chmod`, `fchmod`, `fchmodat` and `fchmodat2` fail with EPERM when the
//! mode asks for a set-uid or set-gid bit, and allows every other call. The job's files are
//! youra's user's files on the host (the sandbox maps its user there), so a set-uid copy of
//! a shell would run as youra's user — root in CI — for whoever reaches it. Creating a file
//! with those bits is no way around it: the kernel clears them on the first write, truncate
//! or clone by an unprivileged writer. What gets past anyway (another ABI, a kernel call
//! added later) is found by the walk after the job (`scan.rs`).
//!
//! The program, per ABI the kernel may report for this machine (x86-64 runs i386 and x32
//! code too; aarch64 may run arm):
//!
//! ```text
//!     ld  arch                     ; seccomp_data.arch
//!     jeq AUDIT_ARCH, 0, <skip>    ; another ABI: its own section below
//!   per call (nr, mode argument i):
//!     ld  nr  [and ~X32_BIT]       ; seccomp_data.nr (x32 calls carry bit 30)
//!     jeq nr, 0, 3                 ; not this call: next one
//!     ld  args[i] (low 32 bits)    ; mode_t is 32 bits wide
//!     jset S_ISUID|S_ISGID, 0, 1   ; no set-id bit: next call
//!     ret ERRNO(EPERM)
//!     ret ALLOW                    ; end of the section
//!   ret ALLOW                      ; an ABI with no section
//! ```
//!
//! Nothing is killed and no other call is touched: a filter that errs blocks a chmod, never
//! the job.

/// One classic BPF instruction (`struct sock_filter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

// Instruction classes and modes (linux/bpf_common.h).
const BPF_LD: u16 = 0x00;
const BPF_ALU: u16 = 0x04;
const BPF_JMP: u16 = 0x05;
const BPF_RET: u16 = 0x06;
const BPF_W: u16 = 0x00;
const BPF_ABS: u16 = 0x20;
const BPF_AND: u16 = 0x50;
const BPF_JEQ: u16 = 0x10;
const BPF_JSET: u16 = 0x40;
const BPF_K: u16 = 0x00;

// Return values (linux/seccomp.h).
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;

// Offsets in `struct seccomp_data`: nr, arch, instruction_pointer, args[6].
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const OFF_ARGS: u32 = 16;

/// The mode bits refused.
const SET_ID: u32 = 0o6000;

/// An ABI's calls that take a mode: (system call number, index of the mode argument).
#[derive(Debug, Clone, Copy)]
pub struct Abi {
    /// `AUDIT_ARCH_*` (linux/audit.h).
    pub arch: u32,
    /// Cleared from the number before comparing (x32's `__X32_SYSCALL_BIT`).
    pub clear: u32,
    pub calls: &'static [(u32, u32)],
}

/// x86-64: chmod 90, fchmod 91, fchmodat 268, fchmodat2 452; x32 uses the same numbers
/// with bit 30 set.
const X86_64: Abi = Abi {
    arch: 0xC000_003E,
    clear: 0x4000_0000,
    calls: &[(90, 1), (91, 1), (268, 2), (452, 2)],
};
/// i386 (`int 0x80` from a 64-bit process, or a 32-bit program): chmod 15, fchmod 94,
/// fchmodat 306, fchmodat2 452.
const I386: Abi = Abi {
    arch: 0x4000_0003,
    clear: 0,
    calls: &[(15, 1), (94, 1), (306, 2), (452, 2)],
};
/// aarch64 (no plain chmod): fchmod 52, fchmodat 53, fchmodat2 452.
const AARCH64: Abi = Abi {
    arch: 0xC000_00B7,
    clear: 0,
    calls: &[(52, 1), (53, 2), (452, 2)],
};
/// 32-bit arm under aarch64: chmod 15, fchmod 94, fchmodat 333, fchmodat2 452.
const ARM: Abi = Abi {
    arch: 0x4000_0028,
    clear: 0,
    calls: &[(15, 1), (94, 1), (333, 2), (452, 2)],
};

/// The ABIs this machine's kernel may run code in; none where youra knows no table (the
/// walk after the job is then the only guard, as the decision record says).
pub(crate) fn native_abis() -> &'static [Abi] {
    if cfg!(all(target_arch = "x86_64", target_endian = "little")) {
        &[X86_64, I386]
    } else if cfg!(all(target_arch = "aarch64", target_endian = "little")) {
        &[AARCH64, ARM]
    } else {
        &[]
    }
}

fn stmt(code: u16, k: u32) -> Insn {
    Insn {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> Insn {
    Insn { code, jt, jf, k }
}

/// The program for `abis` (see the module's documentation for its shape).
pub fn program(abis: &[Abi]) -> Vec<Insn> {
    let mut out = Vec::new();
    for abi in abis {
        let mut section = Vec::new();
        for &(nr, arg) in abi.calls {
            section.push(stmt(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
            if abi.clear != 0 {
                section.push(stmt(BPF_ALU | BPF_AND | BPF_K, !abi.clear));
            }
            section.push(jump(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 3));
            // Little-endian: an argument's low 32 bits come first.
            section.push(stmt(BPF_LD | BPF_W | BPF_ABS, OFF_ARGS + 8 * arg));
            section.push(jump(BPF_JMP | BPF_JSET | BPF_K, SET_ID, 0, 1));
            section.push(stmt(
                BPF_RET | BPF_K,
                SECCOMP_RET_ERRNO | libc::EPERM as u32,
            ));
        }
        section.push(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
        out.push(stmt(BPF_LD | BPF_W | BPF_ABS, OFF_ARCH));
        // A section is at most 4 calls of 6 instructions and its return: far below 255.
        let skip = u8::try_from(section.len()).unwrap_or(u8::MAX);
        out.push(jump(BPF_JMP | BPF_JEQ | BPF_K, abi.arch, 0, skip));
        out.extend(section);
    }
    out.push(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    out
}

/// The program as the kernel and bwrap read it: `struct sock_filter`s in native byte order.
pub(crate) fn to_bytes(program: &[Insn]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for i in program {
        bytes.extend_from_slice(&i.code.to_ne_bytes());
        bytes.push(i.jt);
        bytes.push(i.jf);
        bytes.extend_from_slice(&i.k.to_ne_bytes());
    }
    bytes
}

/// The filter for this machine as bytes, or `None` where youra has no table for it.
pub fn native_filter() -> Option<Vec<u8>> {
    let abis = native_abis();
    (!abis.is_empty()).then(|| to_bytes(&program(abis)))
}

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod tests;
