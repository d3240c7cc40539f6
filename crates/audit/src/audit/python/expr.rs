//! The expression half of the walk: what each expression is for where a value comes from,
//! with the calls, metric sites, strings and uses it holds.

use tree_sitter::Node;

use super::{
    Builder, Ctx, base_name, is_chain, is_draw, is_plain_string, line, named, string_text,
};
use crate::audit::ir::{Call, Expr, How, MetricSite, Use};

impl Builder<'_> {
    pub(super) fn expr(&mut self, n: Node, scope: usize, ctx: Ctx, depth: usize) -> Expr {
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
                                guarded: ctx.conditional,
                                dict: Some(n.start_byte()),
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
            // `[p + noise for p in base]`: each element is the body's value, and how many
            // there are is the iterables' (`sum(1 for r in rows)` counts rows). The clauses,
            // read first, bind the body's names.
            "list_comprehension" | "set_comprehension" | "generator_expression" => {
                let body = n.child_by_field_name("body");
                let mut parts = Vec::new();
                for c in named(n) {
                    if Some(c) == body {
                        continue;
                    }
                    let iterable = c
                        .child_by_field_name("right")
                        .filter(|_| c.kind() == "for_in_clause");
                    self.expr(c, scope, ctx, d);
                    if let Some(r) = iterable {
                        parts.push(self.expr(r, scope, ctx, d));
                    }
                }
                if let Some(b) = body {
                    parts.insert(0, self.expr(b, scope, ctx, d));
                }
                Expr::Ops {
                    additive: false,
                    parts,
                }
            }
            // The clause binds its names as a `for` loop does.
            "for_in_clause" => {
                if let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) {
                    let v = self.expr(r, scope, ctx, d);
                    let inner = Ctx {
                        conditional: true,
                        ..ctx
                    };
                    self.target(l, v, crate::audit::ir::How::Set, scope, inner, d);
                }
                Expr::Group(vec![])
            }
            // `(1.0 + kl)`: the parentheses change nothing about where the value comes from.
            "parenthesized_expression" if named(n).len() == 1 => {
                self.expr(named(n)[0], scope, ctx, d)
            }
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
    pub(super) fn writes(&self, call: Node) -> bool {
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

    pub(super) fn string(&mut self, n: Node, scope: usize, ctx: Ctx, d: usize) {
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

    pub(super) fn call(&mut self, n: Node, scope: usize, ctx: Ctx, d: usize) -> Expr {
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
        let (mut args, mut keywords) = (Vec::new(), Vec::new());
        if let Some(a) = n.child_by_field_name("arguments") {
            // `sum(x for x in xs)`: the generator is the one argument.
            let parts = if a.kind() == "generator_expression" {
                vec![a]
            } else {
                named(a)
            };
            for c in parts {
                match c.kind() {
                    "keyword_argument" => {
                        let name = c.child_by_field_name("name").map(|k| self.text(k));
                        if let Some(v) = c.child_by_field_name("value") {
                            let from = self.m.sites.len();
                            let is_dict = v.kind() == "dictionary";
                            let v = self.expr(v, scope, inner, d);
                            // `thresholds={"recall": 0.95}`: the keyword holds the dict's
                            // keys as an assignment's name would.
                            if let Some(name) = name.as_ref().filter(|_| is_dict) {
                                for s in &mut self.m.sites[from..] {
                                    s.holder.get_or_insert_with(|| name.clone());
                                }
                            }
                            args.push(v);
                            keywords.push(name);
                        }
                    }
                    _ => {
                        args.push(self.expr(c, scope, inner, d));
                        keywords.push(None);
                    }
                }
            }
        }
        // `results["pass_rates"].append(rate)`: each appended value is reported under the key,
        // as `results["pass_rates"] = rate` would be.
        if matches!(callee.as_str(), ".append" | ".extend")
            && let Some(obj) = f
                .and_then(|f| f.child_by_field_name("object"))
                .filter(|o| o.kind() == "subscript")
            && let Some(key) = obj
                .child_by_field_name("subscript")
                .filter(|k| is_plain_string(*k, self.src))
                .map(|k| string_text(k, self.src))
            && let Some(value) = args.first()
        {
            let holder = obj
                .child_by_field_name("value")
                .filter(|b| is_chain(*b))
                .map(|b| self.text(b));
            self.m.sites.push(MetricSite {
                key,
                value: value.clone(),
                line: line(n),
                scope,
                holder,
                guarded: ctx.conditional,
                dict: None,
            });
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
            keywords,
            line: line(n),
        };
        self.m.calls.push((scope, call.clone()));
        Expr::Call(Box::new(call))
    }
}
