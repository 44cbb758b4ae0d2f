//! `/storage/v1`: the Storage-compatible API (supabase/storage `src/http/routes`).
//!
//! No API key is demanded here (the hosted gateway does not check one): Storage
//! reads only the `Authorization` JWT, and public object URLs need nothing at all.
//! Errors take Storage's shape.
//!
//! Metadata lives in `storage.buckets` and `storage.objects` (`sql/020_storage.sql`),
//! read and written as the caller so that row-level security decides; bytes live
//! in an object store ([`backend`]) under `<bucket>/<key>/<version>`; [`sweep`]
//! removes the bytes that no row points at.

pub mod backend;
pub mod buckets;
pub mod cache;
pub mod config;
pub mod download;
pub mod drain;
pub mod error;
pub mod keys;
pub mod manage;
pub mod objects;
pub mod path;
pub mod resumable;
pub mod signed;
pub mod sweep;
pub mod upload;

use axum::{
    Router,
    extract::DefaultBodyLimit,
    middleware,
    routing::{get, post},
};

pub use backend::Backend;
pub use config::StorageConfig;

use crate::error::{ApiError, Shape, render_as};
use crate::state::AppState;

pub fn router(state: AppState) -> Router<AppState> {
    // Uploads stream their body to the store and count it themselves; a
    // pause in it longer than the body timeout ends it (`crate::body::pace`).
    let unlimited = DefaultBodyLimit::disable();
    let drain_refused = middleware::from_fn_with_state(state.clone(), drain::unread_body_on_refusal);
    let paced =
        middleware::from_fn_with_state(crate::body::Limits::of(&state.config.server), crate::body::pace);
    let uploads = Router::new()
        .route(
            "/object/{bucket}/{*path}",
            post(upload::create)
                .put(upload::update)
                .get(download::authenticated)
                .delete(manage::remove_one)
                .layer(unlimited)
                .layer(paced.clone())
                .layer(drain_refused.clone()),
        )
        .route(
            "/object/upload/sign/{bucket}/{*path}",
            post(signed::sign_upload).put(signed::upload).layer(unlimited).layer(paced).layer(drain_refused),
        );
    // The other routes' bodies are JSON, read whole under the gateway's
    // limits (`crate::body::read_whole`), which replace axum's default one.
    Router::new()
        .route("/bucket", get(buckets::list).post(buckets::create))
        .route("/bucket/{id}", get(buckets::get).put(buckets::update).delete(buckets::delete))
        .route("/bucket/{id}/empty", post(buckets::empty))
        .route("/object/{bucket}", axum::routing::delete(manage::remove))
        .route("/object/authenticated/{bucket}/{*path}", get(download::authenticated))
        .route("/object/public/{bucket}/{*path}", get(download::public))
        .route("/object/info/{bucket}/{*path}", get(download::info))
        .route("/object/info/authenticated/{bucket}/{*path}", get(download::info))
        .route("/object/info/public/{bucket}/{*path}", get(download::info_public))
        .route("/object/sign/{bucket}", post(signed::sign_many))
        .route("/object/sign/{bucket}/{*path}", post(signed::sign).get(signed::download))
        .route("/object/list/{bucket}", post(manage::list))
        .route("/object/move", post(manage::move_object))
        .route("/object/copy", post(manage::copy))
        .layer(middleware::from_fn_with_state(
            crate::body::Limits::of(&state.config.server),
            crate::body::read_whole,
        ))
        .layer(unlimited)
        .merge(uploads)
        .merge(resumable::router(&state))
        .fallback(|| async { ApiError::NotFound })
        .layer(middleware::from_fn(|request, next| render_as(Shape::Storage, request, next)))
}
