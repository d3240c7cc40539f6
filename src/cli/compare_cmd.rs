//! `youra compare <run-a> <run-b> [--json]`: where two runs' gate results and routes
//! diverge (see `crate::compare`). Exit 0 when they agree, 1 when they diverge, 2 when a
//! run cannot be read.

use std::path::Path;

use color_eyre::eyre::Result;

use super::fail;
use crate::compare::{compare, load, table};

pub fn run(a: &Path, b: &Path, json: bool) -> Result<i32> {
    let read = |dir: &Path| {
        load(dir).map_err(|e| {
            fail(
                &e,
                "give two run folders (youra runs or YouRA research folders)",
            );
        })
    };
    let (Ok(ta), Ok(tb)) = (read(a), read(b)) else {
        return Ok(2);
    };
    let c = compare(&ta, &tb);
    let (na, nb) = (a.display().to_string(), b.display().to_string());
    if json {
        println!("{}", table::json(&c, &na, &nb));
    } else {
        print!("{}", table::render(&c, &na, &nb));
    }
    Ok(i32::from(c.diverged()))
}
