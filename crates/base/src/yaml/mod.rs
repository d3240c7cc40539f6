//! A YAML document that remembers where every node came from.
//!
//! youra must edit `verification_state.yaml` without disturbing a byte it did not mean to
//! change, and must report bad input by line and column. Both need source positions, which
//! serde-based readers throw away, so the document is built here from `saphyr-parser`'s
//! spanned events: a plain tree of nodes, each with its byte range in the original text.
//! Edits are splices of that text ([`splice`]), so everything outside them stays as it was.

mod build;
mod error;
pub mod json;
mod scalar;
pub mod splice;
mod value;

pub use build::parse;
pub use error::{DuplicateKey, YamlError};
pub use scalar::{Scalar, Scalar11, Style, format_scalar, interpret_plain};
pub use splice::{NewNode, Splice, SpliceError};
pub use value::{Document, Node, NodeKind, Pos};
