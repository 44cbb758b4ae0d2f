//! The plain-HTTP ceiling of S7 and S8 (performance.md §5): a trivial axum
//! server that returns a 200 KB body on `GET /blob` and reads a body to its end
//! on `POST /blob`. `bench/storage.sh` measures it with the same wrk settings as
//! the storage routes.
//!
//! Usage: `http_ceiling <address>` (e.g. 127.0.0.1:0); prints the bound address.

use axum::{Router, body::Bytes, routing::get};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let blob = Bytes::from(vec![7u8; 200 * 1024]);
    let app = Router::new().route(
        "/blob",
        get(move || {
            let blob = blob.clone();
            async move { ([("content-type", "image/png")], blob) }
        })
        .post(|body: Bytes| async move { format!("{{\"read\":{}}}", body.len()) }),
    );
    let listener = tokio::net::TcpListener::bind(address).await?;
    println!("{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
