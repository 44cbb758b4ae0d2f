//! The gateway's kernel: what every service stands on, and nothing of any
//! service. The compiler keeps it so: this crate depends on no service crate.
//!
//! - [`config`]: configuration primitives (secrets that never print,
//!   durations and sizes with units).
//! - [`db`]: the connection pool and [`db::session`], the one module that
//!   opens request transactions and sets role and claims.
//! - [`jwt`] and [`keys`]: tokens, signing keys and API keys;
//!   [`caller`]: who is calling, from the request's key and token.
//! - [`error`]: the one internal error type; each service renders it.
//! - [`body`] and [`server`]: request limits and the accept loop.
//! - [`sql`]: the one function that quotes identifiers.
//! - [`logs`], [`role`].

pub mod body;
pub mod caller;
pub mod config;
pub mod db;
pub mod error;
pub mod jwt;
pub mod keys;
pub mod logs;
pub mod markup;
pub mod role;
pub mod server;
pub mod sql;
