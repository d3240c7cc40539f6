//! Where a value comes from: an expression followed back through names, assignments,
//! local functions (their returns, their callers' arguments), classes and local imports,
//! to its roots — loaders, generators, literals, mocks. Bounded: a work budget per audit,
//! a cycle guard, and at most [`MAX_ROOTS`] roots per value.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap, HashSet};

use super::classify::{self, CallKind};
use super::ir::{Assign, Call, Expr, How, Module, ScopeKind};

pub(crate) const MAX_ROOTS: usize = 32;
const MAX_DEPTH: usize = 48;
/// Steps one audit may spend following values (a 500-file output needs a few 100k).
const BUDGET: usize = 2_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RootKind {
    Loader,
    Generator,
    Literal,
    /// A literal plus a random draw (`0.85 + random.uniform(-0.02, 0.02)`).
    Noise,
    /// An outcome decided by `random() < rate`.
    Outcome,
    Mock,
    /// A literal that enters a computation (`range(97)`, `[1, 2]`, a model's argument),
    /// not the value itself: algorithmic data is built from these.
    Constant,
    /// A function's parameter, replaced by its callers' arguments.
    Param,
    /// A name youra cannot follow (a global of another library, a parameter nobody
    /// passes): it keeps a formula like `1.0 / (1.0 + x)` from reading as a literal.
    Unresolved,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Root {
    pub kind: RootKind,
    pub module: usize,
    pub line: usize,
    /// The call or literal, as named in code (`load_dataset`, `0.93`).
    pub what: String,
}

pub(crate) type Roots = BTreeSet<Root>;

mod calls;

/// The audited code: its modules, and which fallback branches the logs show were taken.
pub struct Program {
    pub modules: Vec<Module>,
    /// `(module, branch)` pairs whose message a log holds.
    pub taken: HashSet<(usize, usize)>,
    /// Every module a dotted name may mean (`utils` in several folders).
    by_name: HashMap<String, Vec<usize>>,
    /// Calls by the last part of their callee (`load` of `utils.load`): (module, index).
    pub calls_by_name: HashMap<String, Vec<(usize, usize)>>,
}

impl Program {
    pub fn new(modules: Vec<Module>) -> Program {
        let mut by_name = HashMap::new();
        for (i, m) in modules.iter().enumerate() {
            let stem = m
                .file
                .trim_end_matches(".py")
                .trim_end_matches(".ipynb")
                .trim_end_matches("/__init__");
            let parts: Vec<&str> = stem.split('/').collect();
            for k in 0..parts.len() {
                by_name
                    .entry(parts[k..].join("."))
                    .or_insert_with(Vec::new)
                    .push(i);
            }
        }
        let mut calls_by_name: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
        for (i, m) in modules.iter().enumerate() {
            for (j, (_, c)) in m.calls.iter().enumerate() {
                let last = c.callee.rsplit('.').next().unwrap_or("").to_string();
                calls_by_name.entry(last).or_default().push((i, j));
            }
        }
        Program {
            modules,
            taken: HashSet::new(),
            by_name,
            calls_by_name,
        }
    }

    /// The local module an import in module `from` names (`.utils`, `pkg.models`), if the
    /// folder has it: of several, the one nearest `from` (most folders in common).
    pub(crate) fn module_named(&self, from: usize, name: &str) -> Option<usize> {
        let candidates = self.by_name.get(name.trim_start_matches('.'))?;
        let dir = |i: usize| {
            let f = &self.modules[i].file;
            f.rsplit_once('/').map_or("", |(d, _)| d).to_string()
        };
        let here = dir(from);
        let common = |i: &usize| {
            here.split('/')
                .zip(dir(*i).split('/'))
                .take_while(|(a, b)| a == b)
                .count()
        };
        candidates
            .iter()
            .copied()
            .max_by_key(|i| (common(i), usize::MAX - i))
    }
}

pub struct Flow<'p> {
    p: &'p Program,
    steps: Cell<usize>,
    active: RefCell<HashSet<(usize, usize, String)>>,
    returns: RefCell<HashMap<(usize, usize, bool), Roots>>,
    callers: RefCell<HashMap<(usize, usize, String), Roots>>,
    names: RefCell<HashMap<NameKey, Roots>>,
}

/// A name looked up: (module, scope, name, line of the use, direct).
type NameKey = (usize, usize, String, usize, bool);

fn add(into: &mut Roots, from: Roots) {
    for r in from {
        if into.len() >= MAX_ROOTS {
            return;
        }
        into.insert(r);
    }
}

fn root(kind: RootKind, module: usize, line: usize, what: &str) -> Roots {
    BTreeSet::from([Root {
        kind,
        module,
        line,
        what: what.to_string(),
    }])
}

impl<'p> Flow<'p> {
    pub fn new(p: &'p Program) -> Flow<'p> {
        Flow {
            p,
            steps: Cell::new(0),
            active: RefCell::default(),
            returns: RefCell::default(),
            callers: RefCell::default(),
            names: RefCell::default(),
        }
    }

    /// Whether the work budget ran out (values followed after that have no roots).
    pub fn exhausted(&self) -> bool {
        self.steps.get() >= BUDGET
    }

    fn spend(&self) -> bool {
        self.steps.set(self.steps.get() + 1);
        self.steps.get() < BUDGET
    }

    /// The roots of a value written at `line` of `scope`, parameters replaced by what the
    /// function's callers pass (up to three calls up).
    pub fn value(&self, m: usize, scope: usize, e: &Expr, line: usize) -> Roots {
        let roots = self.expr(m, scope, e, line, true, 0);
        let mut roots = self.substitute(roots, 0);
        if roots.iter().any(|r| r.kind == RootKind::Param) {
            roots.retain(|r| r.kind != RootKind::Param);
            add(
                &mut roots,
                root(RootKind::Unresolved, m, line, "a parameter"),
            );
        }
        roots
    }

    pub fn expr(
        &self,
        m: usize,
        scope: usize,
        e: &Expr,
        line: usize,
        direct: bool,
        depth: usize,
    ) -> Roots {
        if depth > MAX_DEPTH || !self.spend() {
            return Roots::new();
        }
        let d = depth + 1;
        match e {
            // A literal is the value itself only when it reaches the metric directly; one
            // passed into a computation (a range, a container, a model) is a constant.
            Expr::Num(x) if direct => root(RootKind::Literal, m, line, x),
            Expr::Num(x) => root(RootKind::Constant, m, line, x),
            Expr::Str | Expr::Const => Roots::new(),
            Expr::Outcome => root(RootKind::Outcome, m, line, "random() < rate"),
            Expr::Name(n) => self.name(m, scope, n, line, direct, d),
            Expr::Call(c) => self.call(m, scope, c, direct, d),
            Expr::Ops { additive, parts } => {
                // A number beside a computed part is a scale or an offset of it (`x * 100`,
                // `1.0 - err`), not the value: it reaches the metric only as a constant.
                let computed = parts.iter().any(|p| !matches!(p, Expr::Num(_)));
                let each: Vec<Roots> = parts
                    .iter()
                    .map(|p| {
                        let lit = matches!(p, Expr::Num(_));
                        self.expr(m, scope, p, line, direct && !(lit && computed), d)
                    })
                    .collect();
                // One side a literal (`BASE[method]` counts: literals and names youra cannot
                // follow, no data), the other only random draws.
                let literal = |r: &Roots| {
                    r.iter()
                        .any(|x| matches!(x.kind, RootKind::Literal | RootKind::Constant))
                        && r.iter().all(|x| {
                            matches!(
                                x.kind,
                                RootKind::Literal
                                    | RootKind::Constant
                                    | RootKind::Unresolved
                                    | RootKind::Param
                            )
                        })
                };
                let drawn = |r: &Roots| {
                    r.iter().any(|x| x.kind == RootKind::Generator)
                        && r.iter().all(|x| {
                            matches!(
                                x.kind,
                                RootKind::Generator | RootKind::Literal | RootKind::Constant
                            )
                        })
                };
                if direct && *additive && each.iter().any(literal) && each.iter().any(drawn) {
                    let lit = each
                        .iter()
                        .find(|r| literal(r))
                        .and_then(|r| {
                            r.iter()
                                .find(|x| matches!(x.kind, RootKind::Literal | RootKind::Constant))
                        })
                        .map(|r| r.what.clone())
                        .unwrap_or_default();
                    return root(RootKind::Noise, m, line, &format!("{lit} + a random draw"));
                }
                // Noise added to a value youra cannot follow (a function's argument: data
                // loaded by its caller, perhaps) is augmentation of that value; the draw does
                // not make it generated data (`x_test + np.random.normal(…)`).
                let data = |r: &Roots| {
                    r.iter()
                        .any(|x| matches!(x.kind, RootKind::Param | RootKind::Unresolved))
                        && !r.iter().any(|x| {
                            matches!(
                                x.kind,
                                RootKind::Generator | RootKind::Literal | RootKind::Constant
                            )
                        })
                };
                // The draw's own arguments may be such values (`size=x_test.shape`).
                let noise = |r: &Roots| {
                    r.iter().any(|x| x.kind == RootKind::Generator)
                        && !r
                            .iter()
                            .any(|x| matches!(x.kind, RootKind::Loader | RootKind::Mock))
                };
                if *additive && each.iter().any(data) && each.iter().any(noise) {
                    let mut out = Roots::new();
                    each.into_iter()
                        .filter(|r| !noise(r))
                        .for_each(|r| add(&mut out, r));
                    return out;
                }
                let mut out = Roots::new();
                each.into_iter().for_each(|r| add(&mut out, r));
                out
            }
            Expr::Guarded(value, guard) => {
                let mut out = self.expr(m, scope, value, line, direct, d);
                add(&mut out, self.expr(m, scope, guard, line, false, d));
                out
            }
            Expr::Group(parts) => {
                let mut out = Roots::new();
                for p in parts {
                    add(&mut out, self.expr(m, scope, p, line, false, d));
                }
                out
            }
        }
    }

    fn name(
        &self,
        m: usize,
        scope: usize,
        name: &str,
        line: usize,
        direct: bool,
        depth: usize,
    ) -> Roots {
        let memo = (m, scope, name.to_string(), line, direct);
        if let Some(r) = self.names.borrow().get(&memo) {
            return r.clone();
        }
        let key = (m, scope, format!("{name}@{line}"));
        if !self.active.borrow_mut().insert(key.clone()) {
            return Roots::new();
        }
        let out = self.name_inner(m, scope, name, line, direct, depth);
        self.active.borrow_mut().remove(&key);
        self.names.borrow_mut().insert(memo, out.clone());
        out
    }

    fn name_inner(
        &self,
        m: usize,
        scope: usize,
        name: &str,
        line: usize,
        direct: bool,
        depth: usize,
    ) -> Roots {
        let module = &self.p.modules[m];
        let mut s = Some(scope);
        let mut limit = line;
        while let Some(i) = s {
            let sc = &module.scopes[i];
            // A class body is no enclosing scope for its methods, except for `self.x`.
            if sc.kind == ScopeKind::Class && i != scope && !name.starts_with("self.") {
                s = sc.parent;
                continue;
            }
            let live = self.live(m, &sc.assigns, name, limit);
            if !live.is_empty() {
                let mut out = Roots::new();
                // `best_step = n_steps` then `if …: best_step = step`: the first is the
                // default a conditional update replaces, not the value reported.
                let updated = live
                    .iter()
                    .any(|a| a.conditional && !matches!(a.value, Expr::Num(_)));
                let first = live.len() - 1;
                for (k, a) in live.into_iter().enumerate() {
                    // `q *= 0.9`, `n += 1`: a number that scales or steps the value it
                    // changes, not the value.
                    let step = a.how == How::Augment && matches!(a.value, Expr::Num(_));
                    let default = updated && k == first && k > 0 && !a.conditional;
                    let direct = direct && !step && !default;
                    let mut r = self.expr(m, i, &a.value, a.line, direct, depth);
                    // `y = (rng.random(n) < p)`: labels drawn against a rate are generated
                    // data, not outcomes typed in for a metric.
                    if classify::data_name(&a.target) {
                        r = r
                            .into_iter()
                            .map(|mut x| {
                                if x.kind == RootKind::Outcome {
                                    x.kind = RootKind::Generator;
                                }
                                x
                            })
                            .collect();
                    }
                    add(&mut out, r);
                }
                return out;
            }
            if sc.params.iter().any(|p| p == name) {
                return root(RootKind::Param, m, sc.line, name);
            }
            if sc.defs.iter().any(|(n, _)| n == name) {
                return Roots::new();
            }
            s = sc.parent;
            limit = usize::MAX;
        }
        // `data.train`, `self.x.y`: the object the attribute belongs to.
        if let Some((base, _)) = name.rsplit_once('.') {
            return self.name(m, scope, base, line, direct, depth);
        }
        // `from utils import X`: X in the module that defines it.
        for imp in &module.imports {
            if imp.local == name
                && let (Some(n), Some(t)) = (&imp.name, self.p.module_named(m, &imp.module))
                && t != m
            {
                return self.name(t, 0, n, usize::MAX, direct, depth);
            }
        }
        // A library (`np`, `torch.nn`) is no value; an unknown global or builtin is one
        // youra cannot follow.
        if module.imports.iter().any(|i| i.local == name) || name.is_empty() {
            return Roots::new();
        }
        root(RootKind::Unresolved, m, line, name)
    }

    /// The assignments to `name` that may reach a use at `line`: walking back from the
    /// last one before it, up to the first that always runs and replaces the value. A
    /// fallback branch the logs show taken is the only one that counts.
    fn live<'a>(
        &self,
        m: usize,
        assigns: &'a [Assign],
        name: &str,
        line: usize,
    ) -> Vec<&'a Assign> {
        let all: Vec<&Assign> = assigns.iter().filter(|a| a.target == name).collect();
        let before: Vec<&Assign> = all.iter().copied().filter(|a| a.line < line).collect();
        let pool = if before.is_empty() { all } else { before };
        let taken: Vec<&Assign> = pool
            .iter()
            .copied()
            .filter(|a| {
                a.branch.is_some_and(|b| self.p.taken.contains(&(m, b))) && a.how == How::Set
            })
            .collect();
        if !taken.is_empty() {
            return taken;
        }
        let mut out = Vec::new();
        for a in pool.into_iter().rev() {
            out.push(a);
            if a.how == How::Set && !a.conditional {
                break;
            }
        }
        out
    }

    fn call(&self, m: usize, scope: usize, c: &Call, direct: bool, depth: usize) -> Roots {
        if let Some((tm, ts)) = self.definition(m, scope, &c.callee) {
            let target = &self.p.modules[tm].scopes[ts];
            if target.kind == ScopeKind::Class {
                if classify::mock_name(&target.name) {
                    return root(RootKind::Mock, m, c.line, &target.name);
                }
                return self.args(m, scope, c, depth);
            }
            let mut out = self.returns(tm, ts, direct, depth);
            let params: Vec<Root> = out
                .iter()
                .filter(|r| r.kind == RootKind::Param && r.module == tm && r.line == target.line)
                .cloned()
                .collect();
            for p in params {
                out.remove(&p);
                add(
                    &mut out,
                    self.arg_for(m, scope, c, (tm, ts), &p.what, depth),
                );
            }
            return out;
        }
        let what = if c.callee.starts_with('.') {
            c.callee.trim_start_matches('.')
        } else {
            &c.callee
        };
        match classify::kind(&c.callee) {
            // Re-reading the run's own results (`np.load("all_results.npy")`) loads no data.
            CallKind::Loader if self.rereads_results(m, c.line) => Roots::new(),
            CallKind::Loader => root(RootKind::Loader, m, c.line, what),
            CallKind::Generator => root(RootKind::Generator, m, c.line, what),
            CallKind::Mock => root(RootKind::Mock, m, c.line, what),
            CallKind::Count | CallKind::Seed => Roots::new(),
            CallKind::Wrapper => {
                let mut out = Roots::new();
                // `max(a, b)`: each argument is a value; `round(x, 4)`: only the first.
                let last = c.callee.rsplit('.').next().unwrap_or("");
                let all = matches!(last, "max" | "min" | "sum" | "mean" | "median");
                // `max(len(found), 1)`: a number beside a computed argument is a bound.
                let computed = c.args.iter().any(|a| !matches!(a, Expr::Num(_)));
                for (i, a) in c.args.iter().enumerate() {
                    let bound = computed && matches!(a, Expr::Num(_));
                    add(
                        &mut out,
                        self.expr(
                            m,
                            scope,
                            a,
                            c.line,
                            direct && (i == 0 || all) && !bound,
                            depth,
                        ),
                    );
                }
                if let Some(r) = &c.recv {
                    add(&mut out, self.expr(m, scope, r, c.line, direct, depth));
                }
                if let Some((base, _)) = c.callee.rsplit_once('.')
                    && !base.is_empty()
                {
                    add(&mut out, self.name(m, scope, base, c.line, direct, depth));
                }
                out
            }
            CallKind::Other => {
                let mut out = self.args(m, scope, c, depth);
                if let Some((base, _)) = c.callee.rsplit_once('.')
                    && !base.is_empty()
                {
                    add(&mut out, self.name(m, scope, base, c.line, false, depth));
                }
                out
            }
        }
    }

    /// Whether the loader at `line` of module `m` re-reads the run's own results.
    pub(crate) fn rereads_results(&self, m: usize, line: usize) -> bool {
        let text = self.p.modules[m]
            .lines
            .get(line.saturating_sub(1))
            .map(|l| l.to_ascii_lowercase())
            .unwrap_or_default();
        ["result", "final_info", "metrics"]
            .iter()
            .any(|w| text.contains(w))
    }

    fn args(&self, m: usize, scope: usize, c: &Call, depth: usize) -> Roots {
        let mut out = Roots::new();
        for a in c.args.iter().chain(c.recv.iter()) {
            add(&mut out, self.expr(m, scope, a, c.line, false, depth));
        }
        out
    }
}

#[cfg(test)]
#[path = "flow_tests.rs"]
mod tests;
