//! What a command runs among: the working directory, the `PATH` its
//! names are looked up on, `HOME`, and the names a session defined as
//! functions or aliases (a later `ls` may be anything then).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What a command runs among.
#[derive(Debug, Clone, Default)]
pub struct Surroundings {
    /// Where relative paths (redirections, `./prog`, `PATH` entries) lead.
    pub cwd: PathBuf,
    /// The `PATH` the command's names are looked up on (None: nothing is looked up).
    pub path: Option<String>,
    pub home: Option<String>,
    /// Functions and aliases the session has defined.
    pub defined: BTreeSet<String>,
}

impl Surroundings {
    /// This process's `PATH` and `HOME`, in `cwd`: a command about to run
    /// in a fresh shell, or one only explained.
    pub fn of_this_process(cwd: &Path) -> Surroundings {
        Surroundings {
            cwd: cwd.to_path_buf(),
            path: std::env::var("PATH").ok(),
            home: std::env::var("HOME").ok(),
            defined: BTreeSet::new(),
        }
    }
}
