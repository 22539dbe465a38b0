//! The native integration tests, one test binary: one link instead of one per file, and the
//! tests of every file share the test threads (`cargo test --release --test integration`;
//! one file: `cargo test --release --test integration heads::`). docs/tests.md says what each
//! file checks.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod analysis;
mod cli;
mod cli_train;
mod date_sweep;
mod fuzz_regressions;
mod heads;
mod inspect;
mod loader;
mod marian;
mod metrics;
mod model;
mod packed;
mod packed_session;
mod parallel;
mod playground;
mod playground_heads;
mod recording;
mod reference;
mod roles;
mod shipped;
mod timeline;
mod training;
