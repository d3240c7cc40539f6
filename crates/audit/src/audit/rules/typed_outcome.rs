//! Outcomes set rather than measured: a per-example flag that every assignment sets to the
//! same constant (`clar_correct = True`, or `acc1 = True` in both arms of an `if`), counted
//! into a tally (`acc_cl.append(clar_correct)`, `acc_cl += acc1`) that a reported metric is
//! computed from. Whatever the data, that metric comes out as typed. A flag set to `False`
//! first and to `True` when a prediction matches (`ok = False; if pred == gold: ok = True`)
//! takes two values, so it is measured and never flagged here.

use std::collections::{HashMap, HashSet};

use crate::audit::ctx::{self, Ctx};
use crate::audit::ir::{Expr, How, Module};
use crate::audit::verdict::{Evidence, Weight};

pub(crate) const RULE: &str = "typed-outcome";

pub fn check(ctx: &Ctx) -> Vec<Evidence> {
    let mut out = Vec::new();
    for (m, module) in ctx.program.modules.iter().enumerate() {
        if !ctx.executed[m] || module.is_test {
            continue;
        }
        for (s, scope) in module.scopes.iter().enumerate() {
            // Flags: every assignment a constant, all the same one.
            let mut consts: HashMap<&str, (Option<String>, bool, usize)> = HashMap::new();
            for a in &scope.assigns {
                let e = consts
                    .entry(a.target.as_str())
                    .or_insert((None, true, a.line));
                let text = constant(module, &a.value, a.line);
                match (&e.0, text) {
                    (_, None) => e.1 = false,
                    (None, Some(t)) => e.0 = Some(t),
                    (Some(prev), Some(t)) if *prev != t => e.1 = false,
                    _ => {}
                }
            }
            let flags: HashMap<&str, (String, usize)> = consts
                .into_iter()
                .filter_map(|(n, (t, same, line))| same.then_some((n, (t?, line))))
                .collect();
            if flags.is_empty() {
                continue;
            }
            // Tallies of a flag, and names computed from a tally (`clar_acc = sum(acc_cl) / n`).
            let mut tainted: HashMap<String, (String, usize)> = HashMap::new();
            for a in &scope.assigns {
                let counted = match &a.value {
                    Expr::Name(n) => Some(n),
                    // `tally.append(flag)`
                    Expr::Group(parts) => match parts.as_slice() {
                        [Expr::Name(n)] => Some(n),
                        _ => None,
                    },
                    _ => None,
                };
                if matches!(a.how, How::Augment | How::Mutate)
                    && let Some(n) = counted
                    && let Some((t, line)) = flags.get(n.as_str())
                {
                    tainted.insert(a.target.clone(), (format!("`{n}` is always {t}"), *line));
                }
            }
            for _ in 0..3 {
                for a in scope.assigns.iter().filter(|a| a.how == How::Set) {
                    if tainted.contains_key(&a.target) {
                        continue;
                    }
                    if let Some(why) = mentions(&a.value, &tainted) {
                        tainted.insert(a.target.clone(), why);
                    }
                }
            }
            let mut said = HashSet::new();
            // A metric-named variable computed from a tally (`clar_acc = sum(acc_cl) / n`),
            // and a metric site that uses one.
            let named = scope
                .assigns
                .iter()
                .filter(|a| a.how == How::Set && ctx::is_metric_key(&a.target, None, &[]))
                .filter_map(|a| Some((a.target.as_str(), a.line, tainted.get(&a.target)?.clone())));
            let sites = module
                .sites
                .iter()
                .filter(|x| x.scope == s && ctx::is_metric_key(&x.key, x.holder.as_deref(), &[]))
                .filter_map(|x| Some((x.key.as_str(), x.line, mentions(&x.value, &tainted)?)));
            for (key, at, (why, line)) in named.chain(sites) {
                if ctx.self_test(m, at) {
                    continue;
                }
                if said.insert(line) {
                    out.push(ctx.at(
                        m,
                        line,
                        RULE,
                        Weight::Fabricated,
                        0.8,
                        format!(
                            "{why}: the outcome counted into `{}` is set, not measured",
                            key
                        ),
                    ));
                }
            }
        }
    }
    out
}

/// The constant an assignment sets (`True`, `False`), read from its line; `None` when it
/// sets anything else.
fn constant(module: &Module, value: &Expr, line: usize) -> Option<String> {
    let inner = match value {
        Expr::Guarded(v, _) => v.as_ref(),
        v => v,
    };
    if *inner != Expr::Const {
        return None;
    }
    let text = module.lines.get(line.checked_sub(1)?)?;
    let rhs = text.rsplit_once('=')?.1.split('#').next()?.trim();
    matches!(rhs, "True" | "False").then(|| rhs.to_string())
}

fn mentions(e: &Expr, names: &HashMap<String, (String, usize)>) -> Option<(String, usize)> {
    match e {
        Expr::Name(n) => names.get(n).cloned(),
        Expr::Call(c) => c
            .args
            .iter()
            .chain(c.recv.iter())
            .find_map(|a| mentions(a, names)),
        Expr::Ops { parts, .. } | Expr::Group(parts) => {
            parts.iter().find_map(|p| mentions(p, names))
        }
        Expr::Guarded(v, _) => mentions(v, names),
        Expr::Num(_) | Expr::Str | Expr::Const | Expr::Outcome => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::ctx::TextFile;
    use crate::audit::verdict::{Verdict, Weight};
    use crate::audit::{Input, analyze};

    fn run(code: &str) -> (Verdict, Vec<String>) {
        let r = analyze(Input {
            code: vec![TextFile {
                path: "eval.py".into(),
                text: code.into(),
            }],
            ..Input::default()
        });
        let typed = r
            .evidence
            .iter()
            .filter(|e| e.rule == super::RULE && e.weight == Weight::Fabricated)
            .map(|e| format!("{}:{}", e.file, e.line))
            .collect();
        (r.verdict, typed)
    }

    #[test]
    fn a_flag_always_set_to_one_constant_and_counted_is_a_typed_outcome() {
        const HEAD: &str =
            "from datasets import load_dataset\nds = load_dataset('squad', split='validation')\n";
        for (body, want) in [
            // Always True, appended, averaged into the metric.
            (
                "hits = []\nfor s in ds:\n    ok = True\n    hits.append(ok)\nr = {'clar_acc': sum(hits) / len(ds)}\n",
                Some("eval.py:5"),
            ),
            // True in both arms of an if: still always True.
            (
                "n = 0\nfor s in ds:\n    if s['id'] == 'a':\n        ok = True\n    else:\n        ok = True\n    n += ok\nr = {'accuracy': n / len(ds)}\n",
                Some("eval.py:6"),
            ),
            // Counter-example: False, then True when the answer matches: measured.
            (
                "hits = []\nfor s in ds:\n    ok = False\n    if reader(s) in s['answers']:\n        ok = True\n    hits.append(ok)\nr = {'exact_match': sum(hits) / len(ds)}\n",
                None,
            ),
            // Counter-example: a comparison, not a constant.
            (
                "hits = []\nfor s in ds:\n    ok = reader(s) == s['answer']\n    hits.append(ok)\nr = {'accuracy': sum(hits) / len(ds)}\n",
                None,
            ),
            // Counter-example: a constant flag that reaches no metric.
            (
                "seen = []\nfor s in ds:\n    done = True\n    seen.append(done)\nr = {'accuracy': score(ds)}\n",
                None,
            ),
        ] {
            let (verdict, typed) = run(&format!("{HEAD}{body}"));
            match want {
                Some(at) => {
                    assert_eq!(typed, vec![at.to_string()], "{body}");
                    assert_eq!(verdict, Verdict::Fabricated, "{body}");
                }
                None => assert!(typed.is_empty(), "{body}: {typed:?}"),
            }
        }
    }
}
