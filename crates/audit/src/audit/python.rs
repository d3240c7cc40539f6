//! Python read as Python: tree-sitter's grammar parses each file (and each notebook's code
//! cells), and one walk turns the tree into the facts of `ir.rs`. Formats, docstrings and
//! formulas are what the grammar says they are, not what a regular expression guesses.
//! The walk is bounded: nesting deeper than [`MAX_DEPTH`] is cut and noted (a file of 100k
//! nested parentheses parses in C without recursion, and the walk never follows it down),
//! and a parse that runs past [`PARSE_DEADLINE`] stops.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, Parser};

use super::ir::{Expr, Module, Scope, ScopeKind};

/// How deep the walk goes into statements and expressions; real code stays far below.
pub const MAX_DEPTH: usize = 200;
/// The longest one file may take to parse.
pub(crate) const PARSE_DEADLINE: Duration = Duration::from_secs(2);

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
        guards: vec![],
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
pub(crate) fn notebook_code(json: &str) -> Result<(String, Vec<usize>), Unparsed> {
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
    /// The condition of the innermost `if` around (an index into `Builder::guards`).
    guard: Option<usize>,
}

struct Builder<'s> {
    src: &'s [u8],
    guards: Vec<Expr>,
    m: Module,
}

fn line(n: Node) -> usize {
    n.start_position().row + 1
}

fn named(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

mod expr;
mod stmt;

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
