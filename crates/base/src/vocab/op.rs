//! A gate criterion's comparison (`>=`, `>`, `<=`, `<`, `==`), as the store reads a
//! criterion and the plan's reward and the gates judge one.

use std::fmt;
use std::str::FromStr;

/// How the measured value must relate to the required one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Op {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a comparison: use >=, >, <=, < or ==")]
pub struct UnknownOp(pub String);

impl FromStr for Op {
    type Err = UnknownOp;
    fn from_str(s: &str) -> Result<Op, UnknownOp> {
        match s.trim() {
            ">=" | "≥" | "ge" => Ok(Op::Ge),
            ">" | "gt" => Ok(Op::Gt),
            "<=" | "≤" | "le" => Ok(Op::Le),
            "<" | "lt" => Ok(Op::Lt),
            "==" | "=" | "eq" => Ok(Op::Eq),
            other => Err(UnknownOp(other.to_string())),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Ge => ">=",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Lt => "<",
            Op::Eq => "==",
        })
    }
}

impl Op {
    /// `≥` for `>=` and so on, as a reader writes a criterion (a card, a table).
    pub fn sign(self) -> &'static str {
        match self {
            Op::Ge => "≥",
            Op::Gt => ">",
            Op::Le => "≤",
            Op::Lt => "<",
            Op::Eq => "=",
        }
    }
}

/// `95%`, `98.3%`: a confidence as a card, a table or the paper writes it.
pub fn percent(confidence: f64) -> String {
    let p = confidence * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{}%", p.round())
    } else {
        format!("{p:.1}%")
    }
}
