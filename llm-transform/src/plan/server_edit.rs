//! A refactor's planning: the language server's edit, applied to the bytes
//! the server read (see `crate::refactor`), or refused when a file is not
//! those bytes any more.

use aide_core::checksum::sha256_hex;
use aide_core::{AideError, Root};

use super::{Plan, mismatch};
use crate::refactor::PreparedRefactor;
use crate::request::Operation;

impl Plan {
    /// Applies the edit `refactor` prepared as operation `index`'s.
    pub(super) fn refactor(
        &mut self,
        root: &Root,
        index: usize,
        op: &Operation,
        refactor: &PreparedRefactor,
    ) -> Result<(), AideError> {
        let (files, report) = refactor.take()?;
        for f in files {
            let current = self.file(root, &f.path)?.current.as_deref();
            if current.map(sha256_hex).as_deref() != Some(f.checksum.as_str()) {
                return Err(mismatch(&f.path, &f.checksum, current));
            }
            self.apply_edits(root, index, op.name(), &f.path, f.edits)?;
        }
        self.refactors.push(report);
        Ok(())
    }
}
