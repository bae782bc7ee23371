//! End-to-end tests: the real binaries on temporary trees, their JSON parsed
//! into typed structs.

mod contract;
mod discover;
mod log;
mod search;
mod search_differential;
