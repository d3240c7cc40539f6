//! The vocabulary below every layer that speaks it: words the store, the steering verbs,
//! the plan's rules and recovery all read and write, kept here so none of them imports
//! another for a type (`vsa` sits below `steer`, `plan` and `reflect`).

mod cause;
mod op;
mod routing;

pub use cause::{Category, rank};
pub use op::{Op, UnknownOp, percent};
pub use routing::{RoutingAction, UnknownAction};
