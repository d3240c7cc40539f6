//! The statement half of the walk: blocks, definitions, branches, imports, assignments
//! and their targets.

use tree_sitter::Node;

use super::{
    Builder, Ctx, MAX_DEPTH, base_name, expr_base, guarded, is_chain, is_plain_string, line, named,
    string_text,
};
use crate::audit::ir::{Assign, Branch, Class, Expr, How, Import, MetricSite, Scope, ScopeKind};

impl Builder<'_> {
    pub(super) fn text(&self, n: Node) -> String {
        n.utf8_text(self.src).unwrap_or("").to_string()
    }

    pub(super) fn too_deep(&mut self, n: Node, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            self.m.too_deep.get_or_insert(line(n));
            return true;
        }
        false
    }

    pub(super) fn block(&mut self, n: Node, scope: usize, ctx: Ctx, depth: usize) {
        for s in named(n) {
            self.stmt(s, scope, ctx, depth + 1);
        }
    }

    pub(super) fn new_branch(&mut self, n: Node, handler: bool) -> usize {
        self.m.branches.push(Branch {
            line: line(n),
            messages: vec![],
            handler,
        });
        self.m.branches.len() - 1
    }

    pub(super) fn stmt(&mut self, n: Node, scope: usize, ctx: Ctx, depth: usize) {
        if self.too_deep(n, depth) {
            return;
        }
        let d = depth + 1;
        match n.kind() {
            "expression_statement" => {
                for c in named(n) {
                    match c.kind() {
                        "assignment" => self.assignment(c, scope, ctx, d),
                        "augmented_assignment" => {
                            let value = c
                                .child_by_field_name("right")
                                .map(|r| self.expr(r, scope, ctx, d));
                            if let (Some(t), Some(v)) = (c.child_by_field_name("left"), value) {
                                let v = guarded(v, ctx);
                                self.target(t, v, How::Augment, scope, ctx, d);
                            }
                        }
                        // A bare string is a docstring or a comment in disguise, not code.
                        "string" | "concatenated_string" => {}
                        _ => {
                            let e = self.expr(c, scope, ctx, d);
                            self.mutation(e, scope, ctx);
                        }
                    }
                }
            }
            "function_definition" => self.function(n, scope, d),
            "class_definition" => self.class(n, scope, d),
            "decorated_definition" => {
                if let Some(def) = n.child_by_field_name("definition") {
                    self.stmt(def, scope, ctx, d);
                }
            }
            "if_statement" => self.if_stmt(n, scope, ctx, d),
            "for_statement" | "while_statement" => {
                let inner = Ctx {
                    conditional: true,
                    ..ctx
                };
                if let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) {
                    let v = self.expr(r, scope, ctx, d);
                    self.target(l, v, How::Set, scope, inner, d);
                }
                if let Some(c) = n.child_by_field_name("condition") {
                    self.expr(c, scope, ctx, d);
                }
                if let Some(b) = n.child_by_field_name("body") {
                    self.block(b, scope, inner, d);
                }
                if let Some(a) = n.child_by_field_name("alternative") {
                    self.generic_blocks(a, scope, inner, d);
                }
            }
            "try_statement" => {
                if let Some(b) = n.child_by_field_name("body") {
                    self.block(b, scope, ctx, d);
                }
                for c in named(n) {
                    match c.kind() {
                        "except_clause" | "except_group_clause" => {
                            let br = self.new_branch(c, true);
                            let inner = Ctx {
                                conditional: true,
                                branch: Some(br),
                                ..ctx
                            };
                            self.generic_blocks(c, scope, inner, d);
                        }
                        "else_clause" | "finally_clause" => self.generic_blocks(c, scope, ctx, d),
                        _ => {}
                    }
                }
            }
            "with_statement" => {
                for c in named(n) {
                    if c.kind() == "with_clause" {
                        for item in named(c) {
                            let Some(v) = item.child_by_field_name("value") else {
                                continue;
                            };
                            if v.kind() == "as_pattern" {
                                let value = named(v).first().map(|x| self.expr(*x, scope, ctx, d));
                                if let (Some(alias), Some(value)) =
                                    (v.child_by_field_name("alias"), value)
                                {
                                    self.target(alias, value, How::Set, scope, ctx, d);
                                }
                            } else {
                                self.expr(v, scope, ctx, d);
                            }
                        }
                    } else if c.kind() == "block" {
                        self.block(c, scope, ctx, d);
                    }
                }
            }
            "return_statement" => {
                if let Some(v) = named(n).first() {
                    let e = self.expr(*v, scope, ctx, d);
                    self.m.scopes[scope].returns.push((e, line(n)));
                }
            }
            "import_statement" | "import_from_statement" => self.import(n),
            "comment" | "pass_statement" | "break_statement" | "continue_statement" => {}
            _ => self.generic_blocks(
                n,
                scope,
                Ctx {
                    conditional: true,
                    ..ctx
                },
                d,
            ),
        }
    }

    /// A statement youra has no special rule for: its blocks are walked, its expressions read.
    pub(super) fn generic_blocks(&mut self, n: Node, scope: usize, ctx: Ctx, depth: usize) {
        if self.too_deep(n, depth) {
            return;
        }
        for c in named(n) {
            match c.kind() {
                "block" => self.block(c, scope, ctx, depth + 1),
                k if k.ends_with("_clause") || k.ends_with("_statement") => {
                    self.stmt(c, scope, ctx, depth + 1)
                }
                _ => {
                    self.expr(c, scope, ctx, depth + 1);
                }
            }
        }
    }

    pub(super) fn if_stmt(&mut self, n: Node, scope: usize, ctx: Ctx, d: usize) {
        let cond = n.child_by_field_name("condition");
        let text = cond.map(|c| self.text(c)).unwrap_or_default();
        if text.contains("__name__") && text.contains("__main__") {
            self.m.main_guard = true;
            self.m.main_block = Some((line(n), n.end_position().row + 1));
        }
        let main = text.contains("__name__") && text.contains("__main__");
        let c = cond.map(|c| self.expr(c, scope, ctx, d));
        let random = ctx.random_guard || c == Some(Expr::Outcome);
        let guard = match c {
            Some(c) if c != Expr::Outcome => {
                self.guards.push(c);
                Some(self.guards.len() - 1)
            }
            _ => ctx.guard,
        };
        if let Some(body) = n.child_by_field_name("consequence") {
            // The script's entry block always runs: no branch, no guard.
            if main {
                self.block(body, scope, ctx, d);
                return;
            }
            let br = self.new_branch(n, false);
            let inner = Ctx {
                conditional: true,
                branch: Some(br),
                random_guard: random,
                guard,
                ..ctx
            };
            self.block(body, scope, inner, d);
        }
        let mut cursor = n.walk();
        let alts: Vec<Node> = n
            .children_by_field_name("alternative", &mut cursor)
            .collect();
        for alt in alts {
            let br = self.new_branch(alt, false);
            let inner = Ctx {
                conditional: true,
                branch: Some(br),
                guard,
                ..ctx
            };
            if alt.kind() == "elif_clause" {
                if let Some(c) = alt.child_by_field_name("condition") {
                    self.expr(c, scope, ctx, d);
                }
                if let Some(b) = alt.child_by_field_name("consequence") {
                    self.block(b, scope, inner, d);
                }
            } else {
                self.generic_blocks(alt, scope, inner, d);
            }
        }
    }

    pub(super) fn function(&mut self, n: Node, parent: usize, d: usize) {
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x))
            .unwrap_or_default();
        let mut params = Vec::new();
        if let Some(ps) = n.child_by_field_name("parameters") {
            for p in named(ps) {
                let id = match p.kind() {
                    "identifier" => Some(p),
                    "default_parameter" | "typed_default_parameter" => {
                        p.child_by_field_name("name")
                    }
                    _ => named(p).into_iter().find(|c| c.kind() == "identifier"),
                };
                if let Some(id) = id {
                    params.push(self.text(id));
                }
            }
        }
        let scope = self.push_scope(name, ScopeKind::Function, parent, line(n), params);
        if let Some(b) = n.child_by_field_name("body") {
            self.block(b, scope, Ctx::default(), d);
        }
    }

    pub(super) fn class(&mut self, n: Node, parent: usize, d: usize) {
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x))
            .unwrap_or_default();
        let bases = n
            .child_by_field_name("superclasses")
            .map(|x| self.text(x))
            .unwrap_or_default();
        let scope = self.push_scope(name.clone(), ScopeKind::Class, parent, line(n), vec![]);
        self.m.classes.push(Class {
            name,
            bases,
            line: line(n),
            scope,
        });
        if let Some(b) = n.child_by_field_name("body") {
            self.block(b, scope, Ctx::default(), d);
        }
    }

    pub(super) fn push_scope(
        &mut self,
        name: String,
        kind: ScopeKind,
        parent: usize,
        line: usize,
        params: Vec<String>,
    ) -> usize {
        let id = self.m.scopes.len();
        self.m.scopes[parent].defs.push((name.clone(), id));
        self.m.scopes.push(Scope {
            name,
            kind,
            parent: Some(parent),
            line,
            params,
            assigns: vec![],
            returns: vec![],
            defs: vec![],
        });
        id
    }

    pub(super) fn import(&mut self, n: Node) {
        let from = n.child_by_field_name("module_name").map(|m| self.text(m));
        let mut cursor = n.walk();
        let names: Vec<Node> = n.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            let (full, alias) = if name.kind() == "aliased_import" {
                (
                    name.child_by_field_name("name")
                        .map(|x| self.text(x))
                        .unwrap_or_default(),
                    name.child_by_field_name("alias").map(|x| self.text(x)),
                )
            } else {
                (self.text(name), None)
            };
            let import = match &from {
                Some(module) => Import {
                    local: alias.unwrap_or_else(|| full.clone()),
                    module: module.clone(),
                    name: Some(full),
                    line: line(n),
                },
                None => Import {
                    local: alias
                        .unwrap_or_else(|| full.split('.').next().unwrap_or("").to_string()),
                    module: full,
                    name: None,
                    line: line(n),
                },
            };
            self.m.imports.push(import);
        }
    }

    pub(super) fn assignment(&mut self, n: Node, scope: usize, ctx: Ctx, d: usize) {
        let Some(right) = n.child_by_field_name("right") else {
            return;
        };
        // `a = b = v`: the inner assignment is the value's source.
        let value = if right.kind() == "assignment" {
            self.assignment(right, scope, ctx, d + 1);
            right
                .child_by_field_name("left")
                .map(|l| self.expr(l, scope, ctx, d))
                .unwrap_or(Expr::Group(vec![]))
        } else {
            self.expr(right, scope, ctx, d)
        };
        let value = guarded(value, ctx);
        if let Some(left) = n.child_by_field_name("left") {
            if matches!(right.kind(), "dictionary") && left.kind() == "identifier" {
                let holder = self.text(left);
                let from = self
                    .m
                    .sites
                    .iter()
                    .rposition(|s| s.line < line(right))
                    .map_or(0, |i| i + 1);
                for s in &mut self.m.sites[from..] {
                    s.holder.get_or_insert_with(|| holder.clone());
                }
            }
            self.target(left, value, How::Set, scope, ctx, d);
        }
    }

    /// Record `value` flowing into the target `t` (a name, an attribute, a subscript, a tuple).
    pub(super) fn target(
        &mut self,
        t: Node,
        value: Expr,
        how: How,
        scope: usize,
        ctx: Ctx,
        d: usize,
    ) {
        if self.too_deep(t, d) {
            return;
        }
        match t.kind() {
            "identifier" | "attribute" => {
                let name = self.text(t);
                if t.kind() == "attribute" && !is_chain(t) {
                    return;
                }
                self.push_assign(name, value, how, scope, ctx, line(t));
            }
            "subscript" => {
                let Some(base) = t.child_by_field_name("value") else {
                    return;
                };
                let key = t
                    .child_by_field_name("subscript")
                    .filter(|k| is_plain_string(*k, self.src))
                    .map(|k| string_text(k, self.src));
                if let Some(key) = key {
                    let holder = is_chain(base).then(|| self.text(base));
                    self.m.sites.push(MetricSite {
                        key,
                        value: value.clone(),
                        line: line(t),
                        scope,
                        holder,
                        guarded: ctx.conditional,
                        dict: None,
                    });
                }
                if let Some(name) = base_name(base, self.src) {
                    self.push_assign(name, value, How::Mutate, scope, ctx, line(t));
                }
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "parenthesized_expression" => {
                for c in named(t) {
                    self.target(c, value.clone(), how, scope, ctx, d + 1);
                }
            }
            "list_splat_pattern" => {
                if let Some(c) = named(t).first() {
                    self.target(*c, value, how, scope, ctx, d + 1);
                }
            }
            _ => {}
        }
    }

    pub(super) fn push_assign(
        &mut self,
        target: String,
        value: Expr,
        how: How,
        scope: usize,
        ctx: Ctx,
        line: usize,
    ) {
        // `self.x = …` in a method belongs to the class: every method reads it.
        let mut at = scope;
        if target.starts_with("self.")
            && let Some(parent) = self.m.scopes[scope].parent
            && self.m.scopes[parent].kind == ScopeKind::Class
        {
            at = parent;
        }
        let conditional = ctx.conditional || at != scope;
        let value = match (ctx.guard, &value) {
            (_, Expr::Num(_) | Expr::Const | Expr::Outcome) | (None, _) => value,
            (Some(g), _) => Expr::Guarded(Box::new(value), Box::new(self.guards[g].clone())),
        };
        self.m.scopes[at].assigns.push(Assign {
            target,
            value,
            line,
            how,
            conditional,
            branch: ctx.branch,
        });
    }

    /// `x.append(v)`, `x.extend(v)`, `x.update(v)`: the object `x` now holds `v`.
    pub(super) fn mutation(&mut self, e: Expr, scope: usize, ctx: Ctx) {
        let Expr::Call(c) = e else { return };
        let (base, method) = match c.callee.rsplit_once('.') {
            Some((b, m)) if !b.is_empty() => (Some(b.to_string()), m),
            Some((_, m)) => (c.recv.as_ref().and_then(expr_base), m),
            None => return,
        };
        if !matches!(
            method,
            "append" | "extend" | "update" | "add" | "insert" | "put" | "setdefault"
        ) {
            return;
        }
        if let Some(base) = base {
            let value = guarded(Expr::Group(c.args.clone()), ctx);
            self.push_assign(base, value, How::Mutate, scope, ctx, c.line);
        }
    }
}
