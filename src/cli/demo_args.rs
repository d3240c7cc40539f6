//! `youra demo`'s option values (`--study`, `--router`, `--exec`) and what each becomes.

use super::engine_cmd;

/// `youra demo --router`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RouterArg {
    Controller,
    Table,
}

/// `youra demo --study`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum StudyArg {
    Penguins,
    Sex,
}

impl From<StudyArg> for engine_cmd::Study {
    fn from(a: StudyArg) -> Self {
        match a {
            StudyArg::Penguins => engine_cmd::Study::Penguins,
            StudyArg::Sex => engine_cmd::Study::Sex,
        }
    }
}

/// `youra demo --exec`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ExecArg {
    Local,
    Slurm,
}

impl From<ExecArg> for crate::exec::BackendKind {
    fn from(a: ExecArg) -> Self {
        match a {
            ExecArg::Local => crate::exec::BackendKind::Local,
            ExecArg::Slurm => crate::exec::BackendKind::Slurm,
        }
    }
}
