//! Calls across functions: what a local function returns, what its callers pass for each
//! parameter, and which local definition a callee names (through `self.`, a local module
//! or an import from one).

use super::{Flow, Root, RootKind, Roots, add};
use crate::audit::ir::{Call, ScopeKind};

impl Flow<'_> {
    /// Each parameter root replaced by what the function's callers pass for it.
    pub(super) fn substitute(&self, mut roots: Roots, depth: usize) -> Roots {
        for _ in 0..3 {
            let params: Vec<Root> = roots
                .iter()
                .filter(|r| r.kind == RootKind::Param)
                .cloned()
                .collect();
            if params.is_empty() || depth > 2 {
                break;
            }
            roots.retain(|r| r.kind != RootKind::Param);
            for p in params {
                let f = self.p.modules[p.module].scopes.iter().position(|s| {
                    s.kind == ScopeKind::Function && s.line == p.line && s.params.contains(&p.what)
                });
                if let Some(f) = f {
                    add(&mut roots, self.callers(p.module, f, &p.what, depth + 1));
                }
            }
        }
        roots
    }

    /// What a local function returns (parameters kept as [`RootKind::Param`]).
    pub(super) fn returns(&self, m: usize, f: usize, direct: bool, depth: usize) -> Roots {
        if let Some(r) = self.returns.borrow().get(&(m, f, direct)) {
            return r.clone();
        }
        let key = (m, f, "<returns>".to_string());
        if !self.active.borrow_mut().insert(key.clone()) {
            return Roots::new();
        }
        let each: Vec<Roots> = self.p.modules[m].scopes[f]
            .returns
            .iter()
            .map(|(e, line)| self.expr(m, f, e, *line, direct, depth + 1))
            .collect();
        // A dispatcher over data sets (`get_dataset(name)` returning moons, line, circle or
        // dino) whose generated alternatives outnumber its loaded ones two to one: the
        // results over its data sets rest on generated data, so the loaded few do not
        // make them real. A fallback (one loaded, one generated) keeps both.
        let has = |r: &Roots, k: RootKind| r.iter().any(|x| x.kind == k);
        let loaded = each.iter().filter(|r| has(r, RootKind::Loader)).count();
        let generated = each
            .iter()
            .filter(|r| has(r, RootKind::Generator) && !has(r, RootKind::Loader))
            .count();
        let outnumbered = each.len() >= 3 && loaded >= 1 && generated >= 2 * loaded;
        let mut out = Roots::new();
        for r in each {
            add(&mut out, r);
        }
        if outnumbered {
            out.retain(|x| x.kind != RootKind::Loader);
        }
        self.active.borrow_mut().remove(&key);
        self.returns
            .borrow_mut()
            .insert((m, f, direct), out.clone());
        out
    }

    /// The roots of what call `c` passes for parameter `param` of function `f`: its keyword
    /// argument, else its positional one (`self` of a method is not passed).
    pub(super) fn arg_for(
        &self,
        m: usize,
        scope: usize,
        c: &Call,
        f: (usize, usize),
        param: &str,
        depth: usize,
    ) -> Roots {
        let target = &self.p.modules[f.0].scopes[f.1];
        let method = target
            .parent
            .is_some_and(|p| self.p.modules[f.0].scopes[p].kind == ScopeKind::Class);
        let offset = usize::from(
            method
                && target
                    .params
                    .first()
                    .is_some_and(|p| p == "self" || p == "cls"),
        );
        let at = c
            .keywords
            .iter()
            .position(|k| k.as_deref() == Some(param))
            .or_else(|| {
                let i = target
                    .params
                    .iter()
                    .position(|p| p == param)?
                    .checked_sub(offset)?;
                c.keywords
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| k.is_none())
                    .nth(i)
                    .map(|(j, _)| j)
            });
        match at.and_then(|i| c.args.get(i)) {
            Some(a) => self.expr(m, scope, a, c.line, false, depth + 1),
            None => Roots::new(),
        }
    }

    /// What the callers of function `f` pass for its parameter `param`.
    pub(super) fn callers(&self, m: usize, f: usize, param: &str, depth: usize) -> Roots {
        let key = (m, f, param.to_string());
        if let Some(r) = self.callers.borrow().get(&key) {
            return r.clone();
        }
        self.callers.borrow_mut().insert(key.clone(), Roots::new());
        let name = self.p.modules[m].scopes[f].name.clone();
        let mut out = Roots::new();
        let sites = self.p.calls_by_name.get(&name).cloned().unwrap_or_default();
        for (cm, j) in sites {
            let (cs, c) = &self.p.modules[cm].calls[j];
            if self.definition(cm, *cs, &c.callee) == Some((m, f)) {
                let passed = self.arg_for(cm, *cs, c, (m, f), param, depth);
                add(&mut out, self.substitute(passed, depth));
            }
        }
        self.callers.borrow_mut().insert(key, out.clone());
        out
    }

    /// The local function or class a callee names: in the enclosing scopes, the class of
    /// `self.`, a local module (`utils.load`), or an import from one.
    pub fn definition(&self, m: usize, scope: usize, callee: &str) -> Option<(usize, usize)> {
        let module = &self.p.modules[m];
        if let Some(method) = callee.strip_prefix("self.") {
            let mut s = Some(scope);
            while let Some(i) = s {
                if module.scopes[i].kind == ScopeKind::Class {
                    return module.scopes[i]
                        .defs
                        .iter()
                        .find(|(n, _)| n == method)
                        .map(|(_, d)| (m, *d));
                }
                s = module.scopes[i].parent;
            }
            return None;
        }
        if let Some((base, last)) = callee.rsplit_once('.') {
            let imp = module
                .imports
                .iter()
                .find(|i| i.local == base && i.name.is_none())?;
            let t = self.p.module_named(m, &imp.module)?;
            return self.p.modules[t].scopes[0]
                .defs
                .iter()
                .find(|(n, _)| n == last)
                .map(|(_, d)| (t, *d));
        }
        let mut s = Some(scope);
        while let Some(i) = s {
            if let Some((_, d)) = module.scopes[i].defs.iter().find(|(n, _)| n == callee) {
                return Some((m, *d));
            }
            s = module.scopes[i].parent;
        }
        let imp = module
            .imports
            .iter()
            .find(|i| i.local == callee && i.name.is_some())?;
        let t = self.p.module_named(m, &imp.module).filter(|t| *t != m)?;
        let name = imp.name.as_deref()?;
        self.p.modules[t].scopes[0]
            .defs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| (t, *d))
    }
}
