//! The errors every service shares, rendered by each service in its own wire
//! shape (each service implements the kernel's `ErrorShape`): PostgREST's,
//! GoTrue's, Storage's and Realtime's.

use std::time::Duration;

use axum::response::Response;
use gateway::auth::error::GoTrue;
use gateway::error::{ApiError, ErrorShape, render};
use gateway::jwt::JwtError;
use gateway::realtime::error::Phoenix;
use gateway::rest::PostgRest;
use gateway::storage::error::Storage;
use serde_json::{Value, json};

/// The status and JSON body of `error` in shape `S`.
fn rendered<S: ErrorShape>(error: &ApiError) -> (u16, Value) {
    let response: Response = render::<S>(error);
    let status = response.status().as_u16();
    let bytes =
        futures::executor::block_on(axum::body::to_bytes(response.into_body(), 1 << 16)).expect("body");
    (status, serde_json::from_slice(&bytes).expect("json"))
}

/// `error` in every shape, named.
fn in_every_shape(error: &ApiError) -> [(&'static str, (u16, Value)); 4] {
    [
        ("PostgREST", rendered::<PostgRest>(error)),
        ("GoTrue", rendered::<GoTrue>(error)),
        ("Storage", rendered::<Storage>(error)),
        ("Realtime", rendered::<Phoenix>(error)),
    ]
}

#[test]
fn each_service_renders_a_bad_token_in_its_own_shape() {
    let gotrue = "invalid JWT: unable to parse or verify signature, JWT expired";
    let expected = [
        ("PostgREST", (401, json!({"code":"PGRST303","details":null,"hint":null,"message":"JWT expired"}))),
        ("GoTrue", (403, json!({"code":"bad_jwt","error_code":"bad_jwt","msg":gotrue,"message":gotrue}))),
        (
            "Storage",
            (
                400,
                json!({"statusCode":"403","code":"AccessDenied","error":"Unauthorized","message":"JWT expired"}),
            ),
        ),
        ("Realtime", (401, json!({"message":"Unauthorized"}))),
    ];
    assert_eq!(in_every_shape(&ApiError::Jwt(JwtError::Expired)), expected);
}

#[test]
fn body_limits_answer_in_each_services_shape() {
    let too_large = ApiError::BodyTooLarge(10);
    let too_slow = ApiError::BodyTimeout(Duration::from_secs(3));
    // (shape, status and code of a body too large, of one too slow)
    let expected = [
        ("PostgREST", (413, "PGRST413"), (408, "PGRST408")),
        ("GoTrue", (413, "request_too_large"), (408, "request_timeout")),
        ("Storage", (400, "EntityTooLarge"), (400, "InvalidRequest")),
    ];
    let large = in_every_shape(&too_large);
    let slow = in_every_shape(&too_slow);
    for (i, (shape, large_expected, slow_expected)) in expected.into_iter().enumerate() {
        let code = |(status, body): &(u16, Value)| (*status, body["code"].as_str().unwrap_or("").to_owned());
        assert_eq!(code(&large[i].1), (large_expected.0, large_expected.1.to_owned()), "{shape}: too large");
        assert_eq!(code(&slow[i].1), (slow_expected.0, slow_expected.1.to_owned()), "{shape}: too slow");
    }
    assert_eq!(large[3].1, (413, json!({"message": "Payload Too Large"})), "Realtime: too large");
}

#[test]
fn server_errors_never_carry_internals() {
    let error = ApiError::Internal("connection string postgres://secret@host".to_owned());
    for (shape, (status, body)) in in_every_shape(&error) {
        assert_eq!(status, 500, "{shape}");
        assert!(!body.to_string().contains("secret"), "{shape}: {body}");
    }
}

#[test]
fn key_refusals_answer_alike_in_every_shape() {
    let cases = [
        (ApiError::NoApiKey, "No API key found in request"),
        (ApiError::InvalidApiKey, "Invalid API key"),
        (ApiError::SecretKeyInBrowser, "Forbidden use of secret API key in browser"),
    ];
    for (error, message) in cases {
        for (shape, (status, body)) in in_every_shape(&error) {
            assert_eq!((status, body["message"].as_str()), (401, Some(message)), "{shape}");
        }
    }
}

#[test]
fn a_services_own_error_keeps_its_shape_wherever_it_surfaces() {
    let storage_error = ApiError::from(gateway::storage::error::StorageError::no_such_key());
    for (shape, (status, body)) in in_every_shape(&storage_error) {
        assert_eq!((status, body["code"].as_str()), (400, Some("NoSuchKey")), "{shape}");
    }
}
