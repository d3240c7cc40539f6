//! What can go wrong in grounded reporting, by kind, each saying what the user can do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot read {}: {source}; check that it exists and is readable", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}; check that the folder is writable", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not valid YAML: {source}; fix the file or rebuild it from the run's results", path.display())]
    Yaml {
        path: PathBuf,
        #[source]
        source: crate::yaml::YamlError,
    },
    #[error("{} holds no numbers: a ground-truth registry needs at least one numeric value", path.display())]
    EmptyRegistry { path: PathBuf },
}
