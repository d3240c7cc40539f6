//! `youra trust <run>`: the researcher's word that the programs, addresses and confinement a
//! run's own `youra.toml` names are theirs (`crate::config_trust`), and [`guard`], which the
//! commands that would act on them call first. Run folders are shared; a folder someone
//! handed you must not start a program, send your key, or lift the sandbox because you ran
//! `youra run` on it. Exit 0 when recorded, 1 when it cannot be.

use std::path::{Path, PathBuf};

use clap::Args;
use color_eyre::eyre::Result;

use super::fail;
use crate::config_trust::{Setting, store};

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The run folder whose youra.toml settings you allow.
    #[arg(required_unless_present = "list", conflicts_with = "list")]
    pub dir: Option<PathBuf>,
    /// Forget the run's record: its settings are asked about again.
    #[arg(long)]
    pub revoke: bool,
    /// List the trusted runs and what was allowed for each.
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: TrustArgs) -> Result<i32> {
    let at = store::store_path();
    if args.list {
        let runs = match store::list(at.as_deref()) {
            Ok(r) => r,
            Err(e) => return Ok(fail(e, "")),
        };
        if runs.is_empty() {
            println!("no trusted runs");
        }
        for (path, record) in runs {
            println!("{path}  (trusted {})", record.trusted_at);
            for s in &record.settings {
                println!("  {s}");
            }
        }
        return Ok(0);
    }
    let dir = super::abs(args.dir.unwrap_or_default());
    if args.revoke {
        return Ok(match store::revoke(&dir, at.as_deref()) {
            Ok(true) => {
                println!(
                    "{}: trust revoked; its settings are asked about again",
                    dir.display()
                );
                0
            }
            Ok(false) => {
                println!("{}: was not trusted", dir.display());
                0
            }
            Err(e) => fail(e, ""),
        });
    }
    match store::trust_with(&dir, at.as_deref()) {
        Ok(settings) if settings.is_empty() => {
            println!(
                "{}: its youra.toml names no program, address or confinement setting; nothing to trust",
                dir.display()
            );
            Ok(0)
        }
        Ok(settings) => {
            println!(
                "trusted for {} (recorded in {}):",
                dir.display(),
                at.as_deref().unwrap_or(Path::new("?")).display()
            );
            for s in &settings {
                println!("{}", shown(s, None));
            }
            println!("a change to any of them asks again; `youra trust --revoke` forgets them");
            Ok(0)
        }
        Err(e) => Ok(fail(e, "")),
    }
}

/// `Some(1)` (after saying why) when `dir`'s own youra.toml sets command-bearing values the
/// researcher has not trusted; `None` when the command may go on. Every command that would
/// start a program, send to an address or run experiments on the run's settings calls this
/// before anything else.
pub(crate) fn guard(dir: &Path) -> Option<i32> {
    let (untrusted, before) = match store::check(dir, store::store_path().as_deref()) {
        Ok(found) => found,
        Err(e) => {
            return Some(fail(
                format!(
                    "cannot tell whether {}'s settings are trusted: {e}",
                    dir.display()
                ),
                "",
            ));
        }
    };
    if untrusted.is_empty() {
        return None;
    }
    let file = dir.join("youra.toml");
    match &before {
        Some(r) => eprintln!(
            "error: {} changed what it runs or sends since you trusted it ({}); youra will not act on it unasked:",
            file.display(),
            r.trusted_at
        ),
        None => eprintln!(
            "error: {} names programs to run, addresses to send to or confinement to lift, \
             and you have not trusted them; youra will not act on them unasked:",
            file.display()
        ),
    }
    for s in &untrusted {
        eprintln!(
            "{}",
            shown(s, before.as_ref().map(|r| r.settings.as_slice()))
        );
    }
    let word = crate::notice::message::shell_word(&dir.display().to_string());
    eprintln!("  hint: read them; if they are yours, run `youra trust {word}`");
    Some(1)
}

/// One setting, its file:line, and why it matters; `(changed)` when a record of what was
/// trusted before does not hold it.
fn shown(s: &Setting, before: Option<&[String]>) -> String {
    let mark = match before {
        Some(was) if !was.contains(&format!("{} = {}", s.key, s.value)) => "  (changed)",
        _ => "",
    };
    format!("  {s}{mark}\n      {}", s.why)
}

/// Record as trusted what youra itself just wrote into `dir`'s youra.toml (`youra init`,
/// `demo`, `replay`: the researcher's own command wrote it). A failure only warns: the run
/// is made, and `youra trust` can still record it.
pub(crate) fn record_own(dir: &Path, by: &str) {
    if let Err(e) = store::trust(dir) {
        let word = crate::notice::message::shell_word(&dir.display().to_string());
        eprintln!(
            "warning: cannot record that the settings `youra {by}` wrote are yours ({e}); \
             `youra trust {word}` records them"
        );
    }
}
