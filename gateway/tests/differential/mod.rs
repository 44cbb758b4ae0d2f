//! The differential test against PostgREST 12.0.2 (`rest_differential.rs`).

pub mod allowlist;
pub mod compare;
pub mod generate;
pub mod generate_calls;
pub mod generate_catalog;
pub mod generate_nested;
pub mod postgrest;
