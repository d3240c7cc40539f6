//! What the data is when no metric can be followed to it. Agents' metrics often pass
//! through a model, a DataLoader loop or a framework's trainer that youra cannot follow,
//! so every metric's origin stays unknown; the data the code builds is still plain to see.
//! A census of the executed code's data-named assignments (`X`, `y_train`, `dataset`,
//! `self.data`): if every one is generated (a random draw, `make_*`, a simulator) and none
//! loaded, the results are on synthetic data; if every one is loaded (and used, not only
//! counted) and none generated, they are on real data. Both, or neither: it says nothing.
//! Noise added to loaded rows is loaded data (its roots hold the loader), so augmentation
//! never counts as generated. Data-named values built from neither, by code that loads
//! nothing at all (`x ∘ y mod p` over `range(p)`, a simulator's state), are constructed by
//! the program: synthetic too, more weakly. A value that comes out of a library call youra
//! does not know (`fancyloader.open_split("cifar10", 0.8)`) is not constructed: the library
//! may read data, so its constant arguments say nothing, and the census stays silent rather
//! than refuse a real run (the engine's fabrication gate acts on a Synthetic verdict).

use crate::audit::classify;
use crate::audit::ctx::Ctx;
use crate::audit::flow::{Flow, RootKind};
use crate::audit::ir::{Expr, How};
use crate::audit::verdict::{Evidence, Origin, Weight};

pub(crate) const RULE: &str = "data-census";

/// Libraries that read stored data through calls youra does not classify (`h5py.File`,
/// `sqlite3.connect`): code importing one may load its data there, so the census does not
/// call its data generated or constructed.
const DATA_LIBS: [&str; 10] = [
    "h5py", "sqlite3", "pyarrow", "netCDF4", "xarray", "scipy.io", "tables", "zarr", "lmdb",
    "duckdb",
];

/// Libraries that compute rather than read: a value built through them from the code's own
/// numbers is still constructed by the program (`np.arange(p)`, `torch.randperm(n)`).
const COMPUTE_LIBS: [&str; 14] = [
    "numpy",
    "torch",
    "math",
    "itertools",
    "functools",
    "collections",
    "jax",
    "scipy",
    "sympy",
    "random",
    "statistics",
    "operator",
    "networkx",
    "pandas",
];

/// How deep `external` follows names to their assignments.
const EXTERNAL_DEPTH: usize = 4;

/// Whether `e` (in `scope` of module `m`, before `line`) comes out of a call to a library
/// outside the program that youra does not classify and that is not a computing library:
/// directly, or through names assigned from one.
fn external(
    ctx: &Ctx,
    flow: &Flow,
    m: usize,
    scope: usize,
    e: &Expr,
    line: usize,
    depth: usize,
) -> bool {
    if depth > EXTERNAL_DEPTH {
        return false;
    }
    let module = &ctx.program.modules[m];
    let go = |x: &Expr| external(ctx, flow, m, scope, x, line, depth + 1);
    match e {
        Expr::Call(c) => {
            let unknown_lib = flow.definition(m, scope, &c.callee).is_none()
                && classify::kind(&c.callee) == classify::CallKind::Other
                && library_of(module, &c.callee).is_some_and(|lib| {
                    !COMPUTE_LIBS
                        .iter()
                        .any(|k| lib == *k || lib.starts_with(&format!("{k}.")))
                });
            unknown_lib || c.args.iter().chain(c.recv.iter()).any(go)
        }
        Expr::Name(n) => {
            let base = n.split('.').next().unwrap_or(n);
            module
                .scopes
                .get(scope)
                .into_iter()
                .chain(module.scopes.first())
                .any(|sc| {
                    sc.assigns
                        .iter()
                        .filter(|a| a.target == base && a.line < line)
                        .any(|a| go(&a.value))
                })
        }
        Expr::Ops { parts, .. } | Expr::Group(parts) => parts.iter().any(go),
        Expr::Guarded(a, b) => go(a) || go(b),
        Expr::Num(_) | Expr::Str | Expr::Const | Expr::Outcome => false,
    }
}

/// The module a call's callee is imported from (`fancyloader.open_split` after `import
/// fancyloader`; `read_shards` after `from mylab.io import read_shards`), if it is imported.
fn library_of<'m>(module: &'m crate::audit::ir::Module, callee: &str) -> Option<&'m str> {
    let first = callee.split('.').next().unwrap_or(callee);
    module
        .imports
        .iter()
        .find(|i| i.local == first)
        .map(|i| i.module.as_str())
}

/// A data-named assignment and where its value comes from.
struct Site {
    module: usize,
    line: usize,
    target: String,
    what: String,
}

pub fn check(ctx: &Ctx) -> Vec<Evidence> {
    if ctx.traced.iter().any(|t| t.origin != Origin::Unknown) {
        return Vec::new();
    }
    let flow = Flow::new(&ctx.program);
    let (mut generated, mut loaded, mut built) = (Vec::new(), Vec::new(), Vec::new());
    let (mut loads_anything, mut reads_unknown) = (false, false);
    for (m, module) in ctx.program.modules.iter().enumerate() {
        if !ctx.executed[m] || module.is_test {
            continue;
        }
        let unknown_reader = module.imports.iter().any(|i| {
            DATA_LIBS
                .iter()
                .any(|l| i.module == *l || i.module.starts_with(&format!("{l}.")))
        });
        reads_unknown |= unknown_reader;
        // `open` is left out: it writes results and logs as often as it reads data.
        loads_anything |= module.calls.iter().any(|(_, c)| {
            c.callee != "open"
                && classify::kind(&c.callee) == classify::CallKind::Loader
                && !flow.rereads_results(m, c.line)
                && !ctx.self_test(m, c.line)
        });
        for (s, scope) in module.scopes.iter().enumerate() {
            for a in scope
                .assigns
                .iter()
                .filter(|a| a.how == How::Set && classify::data_name(&a.target))
            {
                if flow.rereads_results(m, a.line) || ctx.self_test(m, a.line) {
                    continue;
                }
                let roots = flow.value(m, s, &a.value, a.line);
                let loader = roots.iter().find(|r| r.kind == RootKind::Loader);
                let drawn = roots
                    .iter()
                    .find(|r| matches!(r.kind, RootKind::Generator | RootKind::Outcome));
                let site = |what: &str| Site {
                    module: m,
                    line: a.line,
                    target: a.target.clone(),
                    what: what.to_string(),
                };
                match (loader, drawn) {
                    (None, Some(g)) => generated.push(site(&g.what)),
                    (Some(l), None) if used(module, &a.target, a.line) => {
                        loaded.push(site(&l.what))
                    }
                    // Built from the code's own numbers (`range(p)`): a value from a library
                    // youra does not know (`h5py.File(p)["x"]`) has none, and may be data;
                    // nor is one whose constants only pass through such a library's call.
                    (None, None)
                        if roots.iter().any(|r| r.kind == RootKind::Constant)
                            && !external(ctx, &flow, m, s, &a.value, a.line, 0) =>
                    {
                        built.push(site(""))
                    }
                    _ => {}
                }
            }
        }
    }
    let (weight, strength, first, detail) = match (generated.first(), loaded.first()) {
        (Some(g), None) if !reads_unknown => (
            Weight::Synthetic,
            0.6,
            g,
            format!(
                "no reported metric could be followed to its data; the data the code builds is generated (`{}` from `{}`{}) and nothing is loaded",
                g.target,
                g.what,
                more(generated.len())
            ),
        ),
        (None, Some(l)) => (
            Weight::Real,
            0.55,
            l,
            format!(
                "no reported metric could be followed to its data; the data the code uses is loaded (`{}` from `{}`{}) and nothing is generated",
                l.target,
                l.what,
                more(loaded.len())
            ),
        ),
        (None, None) if !loads_anything && !reads_unknown && !built.is_empty() => {
            let b = &built[0];
            (
                Weight::Synthetic,
                0.55,
                b,
                format!(
                    "no reported metric could be followed to its data, and the code that runs loads no data at all: the data it builds (`{}`{}) is constructed by the program",
                    b.target,
                    more(built.len())
                ),
            )
        }
        _ => return Vec::new(),
    };
    vec![ctx.at(first.module, first.line, RULE, weight, strength, detail)]
}

fn more(n: usize) -> String {
    if n > 1 {
        format!(", and {} more", n - 1)
    } else {
        String::new()
    }
}

/// Whether `target` is read after `line` for its values (not only `len`/`.shape`).
fn used(module: &crate::audit::ir::Module, target: &str, line: usize) -> bool {
    let base = target.split('.').next().unwrap_or(target);
    module
        .uses
        .iter()
        .any(|u| u.line > line && !u.counted && (u.name == target || u.name == base))
}
