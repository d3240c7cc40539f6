//! Who decided: the researcher's name that every steering answer, breakpoint and VSA edit
//! records (a history entry's `actor`, a decision's `by`), and the lab's rule that some
//! decisions wait for a second researcher (`[steer] second_approval`, issue 42 item 3).
//!
//! The name comes from the person at the keyboard, never from a run folder: a lab hands runs
//! around, and a run's own `youra.toml` naming someone would sign every decision taken on it
//! with that name (and let one person pass for two). So, first found wins: `--as NAME`, the
//! `YOURA_NAME` variable, `[steer] name` of the user's config (`config.rs` drops the run's
//! own), then `user@host` of this login: `$USER` (over SSH, the session's user, which sshd
//! sets), else `$LOGNAME`, else the uid's passwd entry (`whoami`), at this machine's hostname.
//!
//! A name is one line of plain text: control and bidi characters are refused where a name is
//! given; one that reaches the file by hand is still only text to every emitter that shows it.

use serde::{Deserialize, Serialize};

/// The variable that names the researcher for one shell (`YOURA_NAME="Ana Souza"`).
pub(crate) const NAME_ENV: &str = "YOURA_NAME";
/// What a name may not exceed, in characters: it is shown on one line of a card.
pub(crate) const MAX_NAME_CHARS: usize = 100;
/// Who decided when nothing names anyone (no login name either).
pub const UNKNOWN: &str = "researcher";

/// The decisions `second_approval` may list: the steering verbs (`steer::Verb`'s names; a
/// test there keeps the two lists equal) but `breakpoint`, which only stops the run: stopping
/// never waits for a second name.
pub const DECISIONS: &[&str] = &[
    "pause",
    "resume",
    "step",
    "retry",
    "redesign",
    "reset",
    "skip",
    "pin",
    "unpin",
    "veto",
    "unveto",
    "force",
    "edit",
    "budget",
    "alpha-max",
    "approve",
    "reject",
    "override",
];

/// `[steer]`: who is steering from this account, and which decisions need two names.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SteerSection {
    /// The researcher's name in the history (read from the user's config only).
    #[serde(
        deserialize_with = "checked_name",
        skip_serializing_if = "Option::is_none"
    )]
    pub name: Option<String>,
    /// Verbs whose first answer waits for a second, different name (`["reset", "redesign"]`).
    #[serde(deserialize_with = "checked_decisions")]
    pub second_approval: Vec<String>,
}

impl SteerSection {
    /// Whether `verb` (a steering verb's name) waits for a second researcher.
    pub fn needs_two(&self, verb: &str) -> bool {
        self.second_approval.iter().any(|v| v == verb)
    }
}

fn checked_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let raw = <String as Deserialize>::deserialize(d)?;
    check(&raw).map(Some).map_err(serde::de::Error::custom)
}

fn checked_decisions<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let items = <Vec<String> as Deserialize>::deserialize(d)?;
    for i in &items {
        if !DECISIONS.contains(&i.as_str()) {
            // serde's own wording, so the config's reader adds "did you mean" (config_words).
            return Err(serde::de::Error::unknown_variant(i, DECISIONS));
        }
    }
    Ok(items)
}

/// `raw` as a name: trimmed, one line, no control or bidi character, at most
/// [`MAX_NAME_CHARS`]; `Err` says which rule it broke.
pub fn check(raw: &str) -> Result<String, String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err("a name is empty: give the researcher's name, e.g. \"Ana Souza\"".into());
    }
    if let Some(c) = name
        .chars()
        .find(|&c| c.is_control() || crate::term::is_unsafe(c))
    {
        return Err(format!(
            "a name is one line of plain text; this one has U+{:04X}",
            u32::from(c)
        ));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "a name has at most {MAX_NAME_CHARS} characters; this one has {}",
            name.chars().count()
        ));
    }
    Ok(name.to_string())
}

/// The researcher's name: `given` (`--as`), else `$YOURA_NAME`, else `configured` (`[steer]
/// name` of the user's config), else `user@host`. `Err` when the one that applies is not a
/// name ([`check`]), naming where it came from.
pub fn resolve(given: Option<&str>, configured: Option<&str>) -> Result<String, String> {
    let env = std::env::var(NAME_ENV).ok();
    pick(given, env.as_deref(), configured, login)
}

/// [`resolve`] with the variable and the login passed in (pure, for tests).
fn pick(
    given: Option<&str>,
    env: Option<&str>,
    configured: Option<&str>,
    login: impl FnOnce() -> String,
) -> Result<String, String> {
    let named = [
        (given, "--as"),
        (env.filter(|e| !e.trim().is_empty()), NAME_ENV),
        (configured, "[steer] name"),
    ];
    match named.into_iter().find_map(|(v, from)| Some((v?, from))) {
        Some((v, from)) => check(v).map_err(|e| format!("{from}: {e}")),
        None => Ok(login()),
    }
}

/// [`resolve`] for callers that cannot refuse (a request built before any name was given):
/// a name that breaks the rules gives way to the login's.
pub fn current() -> String {
    resolve(None, None).unwrap_or_else(|_| login())
}

/// `user@host` of this login; the user alone without a hostname, [`UNKNOWN`] without either.
pub fn login() -> String {
    let user = ["USER", "LOGNAME"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find_map(|u| check(&u).ok())
        .or_else(passwd_name);
    match (user, hostname()) {
        (Some(u), Some(h)) => format!("{u}@{h}"),
        (Some(u), None) => u,
        (None, _) => UNKNOWN.to_string(),
    }
}

/// This machine's hostname (`gethostname(2)`), when it is a plain name.
fn hostname() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; the kernel writes at most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).into_owned();
    check(&name).ok()
}

/// The uid's login name from the passwd database, as `whoami` prints it.
fn passwd_name() -> Option<String> {
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 4096];
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; on success `out` points at `pwd`, whose
    // strings live in `buf`, read before either is dropped.
    let rc = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut out,
        )
    };
    if rc != 0 || out.is_null() || pwd.pw_name.is_null() {
        return None;
    }
    // SAFETY: pw_name is a NUL-terminated string inside `buf`.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    check(&name.to_string_lossy()).ok()
}

/// Whether `c` may stand in a name or a reason shown on one line: no control character, no
/// bidi formatting (the readers below `term` — the paper, the report — ask here).
pub fn is_plain(c: char) -> bool {
    !(c.is_control() || crate::term::is_unsafe(c))
}

/// Two names are one researcher when they differ only in case and surrounding space.
pub fn same(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

/// Names as a reader says them: `ana`, `ana and bo`, `ana, bo and cy`.
pub fn names(list: &[String]) -> String {
    match list {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_name_found_wins_and_a_bad_one_says_where_it_came_from() {
        let login = || "lee@lab".to_string();
        type Case<'a> = (
            Option<&'a str>,
            Option<&'a str>,
            Option<&'a str>,
            Result<&'a str, &'a str>,
        );
        let cases: &[Case] = &[
            (Some("ana"), Some("bo"), Some("cy"), Ok("ana")),
            (None, Some(" bo "), Some("cy"), Ok("bo")),
            (None, Some("  "), Some("cy"), Ok("cy")),
            (None, None, Some("cy"), Ok("cy")),
            (None, None, None, Ok("lee@lab")),
            (Some("a\u{1b}[2J"), None, None, Err("--as: ")),
            (None, Some("x\u{202e}y"), None, Err("YOURA_NAME: ")),
            (None, None, Some(""), Err("[steer] name: ")),
        ];
        for (given, env, conf, want) in cases {
            let got = pick(*given, *env, *conf, login);
            match want {
                Ok(w) => assert_eq!(got.as_deref(), Ok(*w), "{given:?} {env:?} {conf:?}"),
                Err(prefix) => {
                    let e = got.unwrap_err();
                    assert!(e.starts_with(prefix), "{e}");
                }
            }
        }
    }

    #[test]
    fn names_keep_braces_quotes_and_backslashes_but_not_controls() {
        for ok in [
            "O'Brien",
            "Ana \"the PI\" Souza",
            "{#set} \\write18 $x$ <b>",
            "李 雷",
        ] {
            assert_eq!(check(ok).as_deref(), Ok(ok));
        }
        for bad in ["a\nb", "a\tb", "\u{7}", "x\u{2066}", &"n".repeat(101)] {
            assert!(check(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_login_is_user_at_host() {
        let l = login();
        assert!(
            l == UNKNOWN || !l.is_empty() && check(&l).is_ok(),
            "a plain name: {l:?}"
        );
        assert!(same(" Ana ", "ana") && !same("ana", "anna"));
        assert_eq!(names(&["a".into(), "b".into(), "c".into()]), "a, b and c");
    }

    #[test]
    fn second_approval_takes_verbs_only() {
        let ok: SteerSection =
            toml::from_str("name = \"ana\"\nsecond_approval = [\"reset\", \"edit\"]").unwrap();
        assert!(ok.needs_two("reset") && !ok.needs_two("approve"));
        let e = toml::from_str::<SteerSection>("second_approval = [\"rest\"]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown variant `rest`"), "{e}");
        let e = toml::from_str::<SteerSection>("secnd_approval = []")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `secnd_approval`"), "{e}");
        assert!(toml::from_str::<SteerSection>("name = \"a\\u001b\"").is_err());
    }
}
