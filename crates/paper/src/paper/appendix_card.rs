//! The paper's "Reproducibility" appendix (issue 40, item 6): each attempt's run card, as
//! youra collected it (`exec::run_card`, read through `exec::collected`), after the
//! bibliography. The card's text (a package name, a data file's name, a link's target, the
//! command) is the experiment's and the machine's, never markup: it enters Typst only
//! through `typst_md::text` and TeX only through `tex::text` (decision 0032). The appendix
//! is youra's own record, added when publishing, so the sanitizer and `report check` (which
//! check the paper's claims against the measurements) never read its hashes and versions.
//! The HTML report shows the same facts ([`facts`]).

use std::collections::BTreeMap;

pub use crate::exec::run_card::{AttemptCard, DataFile, DataKind, RunCard, read_all};

use super::{tex, typst_md};

/// One piece of the appendix, as plain text.
#[derive(Debug, Clone, PartialEq)]
enum Block {
    Heading(u8, String),
    Para(String),
    Items(Vec<String>),
}

/// `argv` as a shell would need it typed: a word with anything but `[A-Za-z0-9_./=:,+@%-]`
/// in single quotes.
pub fn command_line(argv: &[String]) -> String {
    let word = |a: &String| {
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./=:,+@%-".contains(c));
        if plain {
            a.clone()
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    };
    argv.iter().map(word).collect::<Vec<_>>().join(" ")
}

/// The card's facts as (label, text) pairs, in the order the paper and the report show them.
pub fn facts(c: &RunCard) -> Vec<(&'static str, String)> {
    let mut out = vec![
        ("Command", command_line(&c.argv)),
        (
            "Started",
            format!("{} in {}, {} back end", c.started_at, c.workdir, c.backend),
        ),
    ];
    if !c.env.is_empty() {
        let env: Vec<String> = c.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        out.push(("Environment", env.join(", ")));
    }
    let i = &c.interpreter;
    let mut python = match (&i.version, &i.program) {
        (Some(v), Some(p)) => format!("Python {v} ({p})"),
        (None, Some(p)) => p.clone(),
        _ => "not identified".to_string(),
    };
    if let Some(h) = &i.packages_sha256 {
        python.push_str(&format!("; {} packages, list sha256 {h}", i.packages.len()));
    }
    if let Some(e) = &i.error {
        python.push_str(&format!("; {e}"));
    }
    out.push(("Interpreter", python));
    let m = &c.machine;
    let mut machine = format!(
        "{}{}",
        m.cpu_model.as_deref().unwrap_or("CPU not identified"),
        m.cpus.map_or(String::new(), |n| format!(", {n} CPUs"))
    );
    if let Some(os) = &m.os {
        machine.push_str(&format!(", {os}"));
    }
    machine.push_str(&format!(" (probed on {})", m.probed_on));
    out.push(("Machine", machine));
    if !m.gpus.is_empty() || m.gpu_error.is_some() {
        let mut gpus: Vec<String> = m
            .gpus
            .iter()
            .map(|g| {
                let mut s = format!("{} {}", g.name, g.uuid);
                if let Some(d) = &g.driver {
                    s.push_str(&format!(", driver {d}"));
                }
                if let Some(mb) = g.memory_mib {
                    s.push_str(&format!(", {mb} MiB"));
                }
                s
            })
            .collect();
        if let Some(cuda) = &m.cuda_version {
            gpus.push(format!("CUDA {cuda}"));
        }
        gpus.extend(m.gpu_error.clone());
        out.push(("GPUs", gpus.join("; ")));
    }
    out.push(("Sandbox", sandbox(c)));
    out
}

fn sandbox(c: &RunCard) -> String {
    let s = &c.sandbox;
    let mut parts = vec![if s.bubblewrap {
        "bubblewrap".to_string()
    } else {
        format!("no sandbox (sandbox = {})", s.mode)
    }];
    parts.push(
        if s.network {
            "network on"
        } else {
            "no network"
        }
        .into(),
    );
    if s.bubblewrap {
        parts.push(
            if s.seccomp {
                "seccomp filter"
            } else {
                "no seccomp filter"
            }
            .into(),
        );
    }
    parts.push(format!("time limit {} s", s.time_limit_s));
    parts.push(match s.memory_limit_mb {
        Some(mb) => format!("memory limit {mb} MiB"),
        None => "no memory limit".into(),
    });
    if let Some(cpu) = s.cpu_limit_s {
        parts.push(format!("CPU limit {cpu} s"));
    }
    if let Some(p) = s.max_processes {
        parts.push(format!("at most {p} processes"));
    }
    parts.push(format!("{} GPU(s)", s.gpus_requested));
    parts.join(", ")
}

/// One data entry in a line: its path and sha256, or what it is instead (a link named with
/// its target, never followed).
pub fn data_line(d: &DataFile) -> String {
    let mut s = d.path.clone();
    match (d.kind, &d.sha256) {
        (DataKind::Link, _) => s.push_str(&format!(
            ": a symbolic link to {} (not followed)",
            d.target.as_deref().unwrap_or("?")
        )),
        (_, Some(h)) => s.push_str(&format!(
            ": sha256 {h}, {} bytes",
            d.bytes.unwrap_or_default()
        )),
        _ => {}
    }
    if d.kind != DataKind::Link
        && let Some(n) = &d.note
    {
        s.push_str(&format!(" ({n})"));
    }
    s
}

fn title(a: &AttemptCard) -> String {
    match a.record {
        Some(n) => format!("{}, attempt {n}", a.hypothesis),
        None => a.hypothesis.clone(),
    }
}

fn blocks(cards: &[AttemptCard]) -> Vec<Block> {
    let mut out = vec![
        Block::Heading(1, "Reproducibility".into()),
        Block::Para("Each attempt's run card as youra recorded it when the job ended: the command and its environment, the interpreter and the sha256 of its package list, the machine, the sha256 of every data file the experiment could read, and the sandbox. A card's own sha256 is in youra's collection record of the attempt.".into()),
    ];
    let mut lists: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut refused = Vec::new();
    for a in cards {
        let c = match &a.card {
            Ok(c) => c,
            Err(why) => {
                refused.push(why.clone());
                continue;
            }
        };
        out.push(Block::Heading(2, title(a)));
        let mut items: Vec<String> = facts(c)
            .into_iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        items.push(format!(
            "Card: {}, sha256 {}",
            a.file,
            a.sha256.as_deref().unwrap_or("?")
        ));
        if c.data.is_empty() {
            items.push("Data: no data folder".into());
        }
        items.extend(c.data.iter().map(|d| format!("Data: {}", data_line(d))));
        out.push(Block::Items(items));
        if let Some(h) = &c.interpreter.packages_sha256 {
            lists.insert(h.clone(), c.interpreter.packages.clone());
        }
    }
    if !refused.is_empty() {
        // A compliance-test job's card and a violated attempt's are not youra's to vouch for.
        out.push(Block::Heading(2, "Cards not shown".into()));
        out.push(Block::Items(refused));
    }
    for (hash, packages) in lists {
        out.push(Block::Heading(2, format!("Package list {hash}")));
        out.push(Block::Para(if packages.is_empty() {
            "(no packages)".into()
        } else {
            packages.join(", ")
        }));
    }
    out
}

/// The appendix as Typst markup, to follow the bibliography; empty without cards.
pub fn typst(cards: &[AttemptCard]) -> String {
    if cards.is_empty() {
        return String::new();
    }
    // Lists of hashes read better ragged than justified.
    let mut out = String::from("\n#pagebreak();\n#set par(justify: false);\n");
    for b in blocks(cards) {
        match b {
            Block::Heading(level, t) => out.push_str(&format!(
                "{} {}\n\n",
                "=".repeat(level as usize),
                typst_md::text(&t)
            )),
            Block::Para(t) => out.push_str(&format!("{}\n\n", typst_md::text(&t))),
            Block::Items(items) => {
                for i in items {
                    out.push_str(&format!("- {}\n", typst_md::text(&i)));
                }
                out.push('\n');
            }
        }
    }
    out
}

/// The appendix as LaTeX, to follow the bibliography; empty without cards.
pub fn tex(cards: &[AttemptCard]) -> String {
    if cards.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n\\clearpage\n\\appendix\n");
    for b in blocks(cards) {
        match b {
            Block::Heading(1, t) => out.push_str(&format!("\\section*{{{}}}\n\n", tex::text(&t))),
            Block::Heading(_, t) => {
                out.push_str(&format!("\\subsection*{{{}}}\n\n", tex::text(&t)))
            }
            Block::Para(t) => out.push_str(&format!("{}\n\n", tex::text(&t))),
            Block::Items(items) => {
                out.push_str("\\begin{itemize}\n");
                for i in items {
                    out.push_str(&format!("\\item {}\n", tex::text(&i)));
                }
                out.push_str("\\end{itemize}\n\n");
            }
        }
    }
    out
}

/// `document` (a `tex::document`) with the appendix before its `\end{document}`.
pub(crate) fn with_tex(document: &str, cards: &[AttemptCard]) -> String {
    let appendix = tex(cards);
    match document.rfind("\\end{document}") {
        Some(at) if !appendix.is_empty() => {
            format!("{}{appendix}{}", &document[..at], &document[at..])
        }
        _ => document.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_reads_back_as_its_words() {
        let argv: Vec<String> = ["python3", "train.py", "--seed", "7", "a b", "it's", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            command_line(&argv),
            "python3 train.py --seed 7 'a b' 'it'\\''s' ''"
        );
    }

    #[test]
    fn hostile_card_text_stays_inside_the_emitters_literals() {
        let evil = "#set text(red); \"] \\input{/etc/passwd} $x$ <b> ]];";
        let cards = vec![AttemptCard {
            hypothesis: "h-e1".into(),
            file: "h-e1/results/run_card.json".into(),
            record: Some(1),
            sha256: None,
            card: Err(evil.into()),
        }];
        let t = typst(&cards);
        assert!(t.contains(&format!("- {}\n", typst_md::text(evil))), "{t}");
        assert!(t.contains(&typst_md::text("Cards not shown")), "{t}");
        let outside = t.replace(&typst_md::text(evil), "");
        assert!(
            !outside.contains("#set text") && !outside.contains("passwd"),
            "{t}"
        );
        let x = tex(&cards);
        assert!(x.contains("\\textbackslash{}input\\{/etc/passwd\\}"), "{x}");
        assert!(!x.contains("\\input{"), "{x}");
        let doc = with_tex("\\begin{document}\nBody\n\\end{document}\n", &cards);
        assert!(
            doc.ends_with("\\end{itemize}\n\n\\end{document}\n"),
            "{doc}"
        );
        assert!(doc.starts_with("\\begin{document}\nBody\n\n\\clearpage\n\\appendix\n"));
        assert_eq!(with_tex("X\\end{document}\n", &[]), "X\\end{document}\n");
    }
}
