use std::fmt;

/// A file that is not well-formed YAML: where, and what the parser expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct YamlError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    /// What went wrong, in the parser's words plus ours.
    pub message: String,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.col, self.message
        )
    }
}

/// A key that appeared twice in one mapping. YouRA's own tools (PyYAML) keep the last one,
/// and so does youra, but it says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    pub key: String,
    /// Line of the occurrence that was overridden.
    pub first_line: usize,
    /// Line of the occurrence that wins.
    pub line: usize,
}
