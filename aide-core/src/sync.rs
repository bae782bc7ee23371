//! Locks that outlive a panic: a panicking worker (a visitor of the walk,
//! one call of the MCP server) must not lose what the others collected.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, recovering from poisoning.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
