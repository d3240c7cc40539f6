//! The facts the audit reads from one Python file, in its own small vocabulary (no parser
//! types): scopes with their assignments and returns, the calls, the reported-metric sites,
//! the imports and the strings. `python.rs` builds it; `flow.rs` and the rules read it.

/// An expression reduced to what matters for where a value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A number literal, as written (`0.93`, `-1`).
    Num(String),
    /// Any string, f-strings included: text, never a measured number.
    Str,
    /// `True`, `False`, `None`.
    Const,
    /// A name or a chain of names (`x`, `self.data`, `np.random`).
    Name(String),
    Call(Box<Call>),
    /// Arithmetic; `additive` for `+` and `-` (literal plus noise is additive).
    Ops {
        additive: bool,
        parts: Vec<Expr>,
    },
    /// An outcome drawn at random: `random() < rate`, or a literal assigned under such a test.
    Outcome,
    /// Everything else that combines values (containers, subscripts, comprehensions…).
    Group(Vec<Expr>),
    /// A value assigned under `if <guard>:` — it depends on the guard's data too (the step
    /// at which validation accuracy passed 0.99 comes from the accuracy, not from `step`).
    Guarded(Box<Expr>, Box<Expr>),
}

/// A call: `callee` is the dotted text of the function when it is a chain of names
/// (`np.random.rand`, `load`), else `.method` with the receiver in `recv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub callee: String,
    pub recv: Option<Expr>,
    pub args: Vec<Expr>,
    /// Per argument, its keyword (`seed=0`), `None` for a positional one.
    pub keywords: Vec<Option<String>>,
    pub line: usize,
}

/// How an assignment changes its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// `x = v`: replaces the value.
    Set,
    /// `x += v`: adds to it.
    Augment,
    /// `x.append(v)`, `x[k] = v`: changes the object.
    Mutate,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Assign {
    pub target: String,
    pub value: Expr,
    pub line: usize,
    pub how: How,
    /// Inside a branch, loop or handler of its scope: it may not run.
    pub conditional: bool,
    /// The `except`/`else`/`if` branch it sits in (an index into `Module::branches`).
    pub branch: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Module,
    Function,
    Class,
}

#[derive(Debug, Clone)]
pub struct Scope {
    pub name: String,
    pub kind: ScopeKind,
    pub parent: Option<usize>,
    pub line: usize,
    pub params: Vec<String>,
    pub assigns: Vec<Assign>,
    pub returns: Vec<(Expr, usize)>,
    /// Functions and classes defined directly here: (name, their scope).
    pub defs: Vec<(String, usize)>,
}

/// A value stored under a string key (`{"accuracy": acc}`, `results["f1"] = f1`): where a
/// reported metric is born.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSite {
    pub key: String,
    pub value: Expr,
    pub line: usize,
    pub scope: usize,
    /// The name the enclosing dict is assigned to, when there is one (`config`, `baselines`).
    pub holder: Option<String>,
    /// Inside a branch, loop or handler: it may not run (`if not gold: return {"f1": 1.0}`).
    pub guarded: bool,
    /// The dict literal it is an entry of (its byte offset), to read its entries together.
    pub dict: Option<usize>,
}

/// A branch that may be a fallback: an `except` handler or an `if`/`else` body, with the
/// messages it prints (a log that shows one shows the branch was taken).
#[derive(Debug, Clone, Default)]
pub struct Branch {
    pub line: usize,
    pub messages: Vec<String>,
    /// An `except` handler (any `if` branch is a fallback only if its message says so).
    pub handler: bool,
}

#[derive(Debug, Clone)]
pub struct Import {
    /// The name bound here (`np`, `load_data`).
    pub local: String,
    /// The module named (`numpy`, `.utils`).
    pub module: String,
    /// For `from m import n`: `n`.
    pub name: Option<String>,
    pub line: usize,
}

#[derive(Debug, Clone)]
pub struct Class {
    pub name: String,
    pub bases: String,
    pub line: usize,
    pub scope: usize,
}

/// A use of a name; `counted` when it only reaches `len(…)` or `.shape`.
#[derive(Debug, Clone)]
pub struct Use {
    pub name: String,
    pub line: usize,
    pub scope: usize,
    pub counted: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Module {
    /// Path relative to the audited folder, `/`-separated.
    pub file: String,
    pub scopes: Vec<Scope>,
    pub calls: Vec<(usize, Call)>,
    pub sites: Vec<MetricSite>,
    pub branches: Vec<Branch>,
    pub imports: Vec<Import>,
    pub classes: Vec<Class>,
    pub uses: Vec<Use>,
    /// Non-docstring string literals (their literal text) with their line.
    pub strings: Vec<(usize, String)>,
    pub main_guard: bool,
    /// The lines of its `if __name__ == "__main__":` block, first and last.
    pub main_block: Option<(usize, usize)>,
    /// Where nesting beyond the parser walk's bound was cut (the rest of that subtree unread).
    pub too_deep: Option<usize>,
    /// The parser found syntax errors (the file was still read as far as it parsed).
    pub syntax_errors: bool,
    /// The code's lines, for excerpts; for a notebook, its code cells joined.
    pub lines: Vec<String>,
    /// For a notebook: the line of the `.ipynb` file each code line came from.
    pub line_map: Option<Vec<usize>>,
    /// Under a tests folder or named `test_*.py`: not on the executed path.
    pub is_test: bool,
}

impl Module {
    /// Whether `line` is in the module's `if __name__ == "__main__":` block.
    pub(crate) fn in_main_block(&self, line: usize) -> bool {
        self.main_block.is_some_and(|(a, b)| line >= a && line <= b)
    }

    /// The line in the file as a reader opens it (a notebook's JSON line).
    pub(crate) fn file_line(&self, line: usize) -> usize {
        match &self.line_map {
            Some(map) => map.get(line.saturating_sub(1)).copied().unwrap_or(1),
            None => line,
        }
    }

    /// The trimmed code at `line`, at most 100 characters.
    pub fn excerpt(&self, line: usize) -> String {
        let text = self
            .lines
            .get(line.saturating_sub(1))
            .map(|l| l.trim())
            .unwrap_or("");
        match text.char_indices().nth(100) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text.to_string(),
        }
    }
}
