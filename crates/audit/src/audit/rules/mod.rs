//! The audit's rules, one per file, each a pure function of the [`Ctx`] returning evidence:
//! where each metric's value comes from (`metric_origin`), data sources by use
//! (`data_source`), the data the code builds when no metric can be followed
//! (`data_census`), mock back-ends (`mock_backend`), execution evidence (`execution`, and a
//! log's clock: `clock`), the paper against the code (`paper`), data the output writes
//! itself and reads back (`self_made`), and outcomes set rather than measured
//! (`typed_outcome`).

use super::ctx::Ctx;
use super::verdict::Evidence;

pub mod clock;
pub mod data_census;
pub mod data_source;
pub mod execution;
pub mod metric_origin;
pub mod mock_backend;
pub mod paper;
pub mod self_made;
pub mod typed_outcome;

pub fn all(ctx: &Ctx) -> Vec<Evidence> {
    let mut out = metric_origin::check(ctx);
    out.extend(data_source::check(ctx));
    out.extend(data_census::check(ctx));
    out.extend(mock_backend::check(ctx));
    out.extend(execution::check(ctx));
    out.extend(clock::check(ctx));
    out.extend(paper::check(ctx));
    out.extend(self_made::check(ctx));
    out.extend(typed_outcome::check(ctx));
    out
}
