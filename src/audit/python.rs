//! Python read as Python: tree-sitter's grammar parses each file (and each notebook's code
//! cells), and one walk turns the tree into the facts of `ir.rs`. Formats, docstrings and
//! formulas are what the grammar says they are, not what a regular expression guesses.
//! The walk is bounded: nesting deeper than [`MAX_DEPTH`] is cut and noted (a file of 100k
//! nested parentheses parses in C without recursion, and the walk never follows it down),
//! and a parse that runs past [`PARSE_DEADLINE`] stops.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, Parser};

use super::ir::{
    Assign, Branch, Call, Class, Expr, How, Import, MetricSite, Module, Scope, ScopeKind, Use,
};

/// How deep the walk goes into statements and expressions; real code stays far below.
pub const MAX_DEPTH: usize = 200;
/// The longest one file may take to parse.
pub const PARSE_DEADLINE: Duration = Duration::from_secs(2);

/// Why a file could not be read as Python.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unparsed(pub String);

/// Parse `text` (the file `file`) into a [`Module`].
pub fn parse(file: &str, text: &str) -> Result<Module, Unparsed> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| Unparsed(format!("the Python grammar did not load: {e}")))?;
    let start = Instant::now();
    let mut past = |_: &tree_sitter::ParseState| {
        if start.elapsed() > PARSE_DEADLINE {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let bytes = text.as_bytes();
    let tree = parser
        .parse_with_options(
            &mut |at, _| bytes.get(at..).unwrap_or(&[]),
            None,
            Some(ParseOptions::new().progress_callback(&mut past)),
        )
        .ok_or_else(|| {
            Unparsed(format!(
                "parsing took longer than {} s; not analysed",
                PARSE_DEADLINE.as_secs()
            ))
        })?;
    let root = tree.root_node();
    let mut b = Builder {
        src: bytes,
        m: Module {
            file: file.to_string(),
            lines: text.lines().map(str::to_string).collect(),
            syntax_errors: root.has_error(),
            ..Module::default()
        },
    };
    b.m.scopes.push(Scope {
        name: "<module>".into(),
        kind: ScopeKind::Module,
        parent: None,
        line: 1,
        params: vec![],
        assigns: vec![],
        returns: vec![],
        defs: vec![],
    });
    b.block(root, 0, Ctx::default(), 0);
    Ok(b.m)
}

/// The code cells of a notebook joined into one program (magics and shell lines blanked),
/// with the `.ipynb` line each code line came from.
pub fn notebook_code(json: &str) -> Result<(String, Vec<usize>), Unparsed> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| Unparsed(format!("not notebook JSON: {e}")))?;
    let cells = v
        .get("cells")
        .and_then(|c| c.as_array())
        .ok_or_else(|| Unparsed("a notebook without `cells`".into()))?;
    let (mut code, mut map, mut from) = (String::new(), Vec::new(), 0usize);
    for cell in cells {
        if cell.get("cell_type").and_then(|t| t.as_str()) != Some("code") {
            continue;
        }
        let source = match cell.get("source") {
            Some(serde_json::Value::String(s)) => {
                s.split_inclusive('\n').map(str::to_string).collect()
            }
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .filter_map(|l| l.as_str().map(str::to_string))
                .collect(),
            _ => Vec::<String>::new(),
        };
        for line in source {
            let line = line.trim_end_matches('\n');
            // Each source line is a JSON string of its own in the file: find it from where the
            // last one was, so evidence points into the file a reader opens.
            let needle = serde_json::to_string(line).unwrap_or_default();
            let needle = needle.trim_end_matches('"');
            let at = json[from..].find(needle).map(|i| from + i);
            if let Some(at) = at {
                from = at + needle.len();
            }
            map.push(json[..at.unwrap_or(from)].matches('\n').count() + 1);
            let t = line.trim_start();
            code.push_str(if t.starts_with('%') || t.starts_with('!') {
                ""
            } else {
                line
            });
            code.push('\n');
        }
    }
    Ok((code, map))
}

#[derive(Debug, Clone, Copy, Default)]
struct Ctx {
    conditional: bool,
    branch: Option<usize>,
    /// Inside `if random() < rate:` — a literal assigned here is a drawn outcome.
    random_guard: bool,
    /// Inside `len(…)`: a use that only counts.
    counted: bool,
}

struct Builder<'s> {
    src: &'s [u8],
    m: Module,
}

fn line(n: Node) -> usize {
    n.start_position().row + 1
}

fn named(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

impl Builder<'_> {
    fn text(&self, n: Node) -> String {
        n.utf8_text(self.src).unwrap_or("").to_string()
    }

    fn too_deep(&mut self, n: Node, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            self.m.too_deep.get_or_insert(line(n));
            return true;
        }
        false
    }

    fn block(&mut self, n: Node, scope: usize, ctx: Ctx, depth: usize) {
        for s in named(n) {
            self.stmt(s, scope, ctx, depth + 1);
        }
    }

    fn new_branch(&mut self, n: Node) -> usize {
        self.m.branches.push(Branch {
            line: line(n),
            messages: vec![],
        });
        self.m.branches.len() - 1
    }

    fn stmt(&mut self, n: Node, scope: usize, ctx: Ctx, depth: usize) {
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
                            let br = self.new_branch(c);
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
    fn generic_blocks(&mut self, n: Node, scope: usize, ctx: Ctx, depth: usize) {
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

    fn if_stmt(&mut self, n: Node, scope: usize, ctx: Ctx, d: usize) {
        let cond = n.child_by_field_name("condition");
        let text = cond.map(|c| self.text(c)).unwrap_or_default();
        if text.contains("__name__") && text.contains("__main__") {
            self.m.main_guard = true;
        }
        let c = cond.map(|c| self.expr(c, scope, ctx, d));
        let guard = ctx.random_guard || c == Some(Expr::Outcome);
        if let Some(body) = n.child_by_field_name("consequence") {
            let br = self.new_branch(n);
            let inner = Ctx {
                conditional: true,
                branch: Some(br),
                random_guard: guard,
                ..ctx
            };
            self.block(body, scope, inner, d);
        }
        let mut cursor = n.walk();
        let alts: Vec<Node> = n
            .children_by_field_name("alternative", &mut cursor)
            .collect();
        for alt in alts {
            let br = self.new_branch(alt);
            let inner = Ctx {
                conditional: true,
                branch: Some(br),
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

    fn function(&mut self, n: Node, parent: usize, d: usize) {
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

    fn class(&mut self, n: Node, parent: usize, d: usize) {
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

    fn push_scope(
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

    fn import(&mut self, n: Node) {
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

    fn assignment(&mut self, n: Node, scope: usize, ctx: Ctx, d: usize) {
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
    fn target(&mut self, t: Node, value: Expr, how: How, scope: usize, ctx: Ctx, d: usize) {
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

    fn push_assign(
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
    fn mutation(&mut self, e: Expr, scope: usize, ctx: Ctx) {
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

    fn expr(&mut self, n: Node, scope: usize, ctx: Ctx, depth: usize) -> Expr {
        if self.too_deep(n, depth) {
            return Expr::Group(vec![]);
        }
        let d = depth + 1;
        match n.kind() {
            "integer" | "float" => Expr::Num(self.text(n)),
            "true" | "false" | "none" => Expr::Const,
            "identifier" => {
                let name = self.text(n);
                self.m.uses.push(Use {
                    name: name.clone(),
                    line: line(n),
                    scope,
                    counted: ctx.counted,
                });
                Expr::Name(name)
            }
            "string" | "concatenated_string" => {
                self.string(n, scope, ctx, d);
                Expr::Str
            }
            "attribute" if is_chain(n) => {
                let name = self.text(n);
                if let Some(base) = base_name(n, self.src) {
                    let counted =
                        ctx.counted || name.ends_with(".shape") || name.ends_with(".size");
                    self.m.uses.push(Use {
                        name: base,
                        line: line(n),
                        scope,
                        counted,
                    });
                }
                Expr::Name(name)
            }
            "call" => self.call(n, scope, ctx, d),
            "unary_operator" => match n
                .child_by_field_name("argument")
                .map(|a| self.expr(a, scope, ctx, d))
            {
                Some(Expr::Num(x)) => Expr::Num(format!("-{x}")),
                Some(e) => e,
                None => Expr::Group(vec![]),
            },
            "binary_operator" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                let parts = ["left", "right"]
                    .iter()
                    .filter_map(|f| n.child_by_field_name(f))
                    .map(|c| self.expr(c, scope, ctx, d))
                    .collect();
                Expr::Ops {
                    additive: op == "+" || op == "-",
                    parts,
                }
            }
            "comparison_operator" => {
                let parts: Vec<Expr> = named(n)
                    .into_iter()
                    .map(|c| self.expr(c, scope, ctx, d))
                    .collect();
                let ordered = (0..n.child_count())
                    .filter_map(|i| n.child(i))
                    .any(|c| matches!(c.kind(), "<" | "<=" | ">" | ">="));
                if ordered && parts.iter().any(is_draw) {
                    Expr::Outcome
                } else {
                    Expr::Group(parts)
                }
            }
            "dictionary" => {
                let mut values = Vec::new();
                for pair in named(n) {
                    if pair.kind() != "pair" {
                        values.push(self.expr(pair, scope, ctx, d));
                        continue;
                    }
                    let value = pair
                        .child_by_field_name("value")
                        .map(|v| self.expr(v, scope, ctx, d))
                        .unwrap_or(Expr::Group(vec![]));
                    match pair.child_by_field_name("key") {
                        Some(k) if is_plain_string(k, self.src) => {
                            let key = string_text(k, self.src);
                            self.m.sites.push(MetricSite {
                                key,
                                value: value.clone(),
                                line: line(pair),
                                scope,
                                holder: None,
                            });
                        }
                        Some(k) => {
                            self.expr(k, scope, ctx, d);
                        }
                        None => {}
                    }
                    values.push(value);
                }
                Expr::Group(values)
            }
            "named_expression" => {
                let v = n
                    .child_by_field_name("value")
                    .map(|v| self.expr(v, scope, ctx, d))
                    .unwrap_or(Expr::Group(vec![]));
                if let Some(name) = n.child_by_field_name("name") {
                    self.push_assign(
                        self.text(name),
                        v.clone(),
                        How::Set,
                        scope,
                        Ctx {
                            conditional: true,
                            ..ctx
                        },
                        line(n),
                    );
                }
                v
            }
            "lambda" => Expr::Group(vec![]),
            "comment" => Expr::Group(vec![]),
            _ => Expr::Group(
                named(n)
                    .into_iter()
                    .map(|c| self.expr(c, scope, ctx, d))
                    .collect(),
            ),
        }
    }

    /// Whether an `open(…)` call's mode argument writes (`"w"`, `"a"`, `mode="wb"`).
    fn writes(&self, call: Node) -> bool {
        let Some(args) = call.child_by_field_name("arguments") else {
            return false;
        };
        named(args).into_iter().any(|a| {
            let s = if a.kind() == "keyword_argument" {
                a.child_by_field_name("value")
            } else {
                Some(a)
            };
            s.filter(|s| is_plain_string(*s, self.src))
                .map(|s| string_text(s, self.src))
                .is_some_and(|m| m.len() <= 3 && m.starts_with(['w', 'a', 'x']))
        })
    }

    fn string(&mut self, n: Node, scope: usize, ctx: Ctx, d: usize) {
        let mut text = String::new();
        for c in named(n) {
            match c.kind() {
                "string_content" => text.push_str(&self.text(c)),
                // The expression inside `{…}` is read as code (its names are used); the
                // format spec after `:` is not a value.
                "interpolation" => {
                    if let Some(e) = c.child_by_field_name("expression") {
                        self.expr(e, scope, ctx, d);
                    }
                    text.push('\u{1f}');
                }
                "string" => self.string(c, scope, ctx, d + 1),
                _ => {}
            }
        }
        if !text.trim().is_empty() {
            self.m.strings.push((line(n), text.clone()));
            if let Some(b) = ctx.branch {
                self.m.branches[b].messages.push(text);
            }
        }
    }

    fn call(&mut self, n: Node, scope: usize, ctx: Ctx, d: usize) -> Expr {
        let f = n.child_by_field_name("function");
        let (callee, recv) = match f {
            Some(f) if f.kind() == "identifier" || (f.kind() == "attribute" && is_chain(f)) => {
                let callee = self.text(f);
                if let Some(base) = base_name(f, self.src) {
                    self.m.uses.push(Use {
                        name: base,
                        line: line(f),
                        scope,
                        counted: ctx.counted,
                    });
                }
                (callee, None)
            }
            Some(f) if f.kind() == "attribute" => {
                let attr = f
                    .child_by_field_name("attribute")
                    .map(|a| self.text(a))
                    .unwrap_or_default();
                let recv = f
                    .child_by_field_name("object")
                    .map(|o| self.expr(o, scope, ctx, d));
                (format!(".{attr}"), recv)
            }
            Some(f) => (String::new(), Some(self.expr(f, scope, ctx, d))),
            None => (String::new(), None),
        };
        let last = callee.rsplit('.').next().unwrap_or("");
        let counting = matches!(last, "len" | "count" | "nunique" | "numel");
        let opens = last == "open";
        let inner = Ctx {
            counted: ctx.counted || counting,
            ..ctx
        };
        let mut args = Vec::new();
        if let Some(a) = n.child_by_field_name("arguments") {
            // `sum(x for x in xs)`: the generator is the one argument.
            let parts = if a.kind() == "generator_expression" {
                vec![a]
            } else {
                named(a)
            };
            for c in parts {
                let v = match c.kind() {
                    "keyword_argument" => c
                        .child_by_field_name("value")
                        .map(|v| self.expr(v, scope, inner, d)),
                    _ => Some(self.expr(c, scope, inner, d)),
                };
                args.extend(v);
            }
        }
        // `open(path, "w")` writes: it is no source of data.
        let mut callee = callee;
        if opens && self.writes(n) {
            callee.push_str("_for_writing");
        }
        let call = Call {
            callee,
            recv,
            args,
            line: line(n),
        };
        self.m.calls.push((scope, call.clone()));
        Expr::Call(Box::new(call))
    }
}

/// Under `if random() < rate:`, a literal assigned is an outcome the draw decided.
fn guarded(v: Expr, ctx: Ctx) -> Expr {
    let literal = match &v {
        Expr::Num(_) | Expr::Const => true,
        Expr::Group(parts) => {
            !parts.is_empty()
                && parts
                    .iter()
                    .all(|p| matches!(p, Expr::Num(_) | Expr::Const))
        }
        _ => false,
    };
    if ctx.random_guard && literal {
        Expr::Outcome
    } else {
        v
    }
}

/// A direct draw of one uniform number: `random.random()`, `np.random.rand()`, `rng.random()`.
fn is_draw(e: &Expr) -> bool {
    let Expr::Call(c) = e else { return false };
    let last = c.callee.rsplit('.').next().unwrap_or("");
    matches!(
        last,
        "random" | "rand" | "uniform" | "random_sample" | "random_float" | "ranf" | "sample"
    ) && (c.callee.contains("random") || c.callee.contains("rng") || c.recv.is_some())
        && c.args.len() <= 2
}

fn is_chain(n: Node) -> bool {
    let mut n = n;
    loop {
        match n.kind() {
            "identifier" => return true,
            "attribute" => match n.child_by_field_name("object") {
                Some(o) => n = o,
                None => return false,
            },
            _ => return false,
        }
    }
}

/// The name at the bottom of `a.b[c].d`.
fn base_name(n: Node, src: &[u8]) -> Option<String> {
    let mut n = n;
    for _ in 0..64 {
        match n.kind() {
            "identifier" => return n.utf8_text(src).ok().map(str::to_string),
            "attribute" => n = n.child_by_field_name("object")?,
            "subscript" => n = n.child_by_field_name("value")?,
            "call" => n = n.child_by_field_name("function")?,
            _ => return None,
        }
    }
    None
}

fn expr_base(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.clone()),
        Expr::Group(parts) => parts.first().and_then(expr_base),
        _ => None,
    }
}

fn is_plain_string(n: Node, src: &[u8]) -> bool {
    n.kind() == "string"
        && !named(n).iter().any(|c| c.kind() == "interpolation")
        && named(n).first().is_some_and(|s| {
            !s.utf8_text(src)
                .unwrap_or("")
                .to_ascii_lowercase()
                .contains('f')
        })
}

fn string_text(n: Node, src: &[u8]) -> String {
    named(n)
        .iter()
        .filter(|c| c.kind() == "string_content")
        .map(|c| c.utf8_text(src).unwrap_or(""))
        .collect()
}

#[cfg(test)]
#[path = "python_tests.rs"]
mod tests;
