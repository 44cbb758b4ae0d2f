//! `gateway gen types`: the types supabase-js apps are written against, as
//! the Supabase CLI's `supabase gen types` prints them from postgres-meta
//! (<https://supabase.com/docs/reference/cli/supabase-gen-types>).
//!
//! [`catalog`] reads the database as postgres-meta does, [`typescript`]
//! renders its TypeScript template and [`go`] its Go template, and [`doc`]
//! lays the TypeScript out as the Prettier run that ends the CLI's template
//! does.

pub mod catalog;
pub mod collate;
pub mod doc;
pub mod go;
pub mod typescript;

pub use catalog::{Catalog, CatalogError};
