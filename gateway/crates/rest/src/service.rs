//! `/rest/v1` as one service: PostgREST's three routes (`/`, `/{table}`,
//! `/rpc/{function}`) matched by hand, and each request's steps in the order
//! the hosted service takes them:
//!
//! 1. the API key, whatever the path (Kong's `key-auth` in front of PostgREST);
//! 2. the body, read whole within the limits (`gateway_core::body`);
//! 3. the route and its method: an unknown path is PGRST125 once the bearer
//!    is checked (PostgREST checks the token before it routes), a method the
//!    route does not take is 405 with `Allow`;
//! 4. the caller (`Caller`), the request's headers (`RestRequest`), and the
//!    handler.
//!
//! axum's router did the same with a router per nesting, a boxed and cloned
//! service per route and per layer, path parameters in the request's
//! extensions and an extractor per argument: about a tenth of a simple
//! request's instructions (`bench/profile.sh`), for three routes.

use std::borrow::Cow;
use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::body::Bytes;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;

use crate::request::RestRequest;
use crate::{PostgRest, RestState};
use gateway_core::caller::{Caller, admitted};
use gateway_core::error::{ApiError, reshape};
use gateway_core::server::RouteTemplate;

/// REST's service. [`router`] serves paths relative to REST's root (what
/// the gateway's own callers send: the console's table editor, the first
/// screen's data); [`Rest::under`] mounts it under a prefix.
#[derive(Clone)]
pub struct Rest {
    state: RestState,
    prefix: &'static str,
    labels: bool,
}

/// REST's service over `state`, at the root.
pub fn router(state: RestState) -> Rest {
    Rest { state, prefix: "", labels: false }
}

impl Rest {
    /// The service for paths that begin with `prefix` (`/rest/v1`).
    pub fn under(self, prefix: &'static str) -> Self {
        Self { prefix, ..self }
    }

    /// Whether answers carry their route template (`RouteTemplate`), which
    /// only the metrics read: an extension costs an allocation.
    pub fn labelling_routes(self, labels: bool) -> Self {
        Self { labels, ..self }
    }

    /// Whether `path` is REST's: the prefix, or the prefix and a slash.
    pub fn serves(&self, path: &str) -> bool {
        own_path(self.prefix, path).is_some()
    }
}

impl tower::Service<Request> for Rest {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let rest = self.clone();
        Box::pin(async move {
            let (route, answer) = rest.answer(request).await;
            let mut response = reshape::<PostgRest>(answer.unwrap_or_else(IntoResponse::into_response));
            if let (true, Some(template)) = (rest.labels, route) {
                response.extensions_mut().insert(RouteTemplate(template));
            }
            Ok(response)
        })
    }
}

impl Rest {
    /// The answer, and the template of the route it came from (`None` for
    /// a path that is no route, or a request refused before routing).
    async fn answer(&self, request: Request) -> (Option<&'static str>, Result<Response, ApiError>) {
        let state = &self.state;
        let (parts, body) = request.into_parts();
        let key = match admitted(&state.credentials, &parts) {
            Ok(key) => key,
            Err(refused) => return (None, Err(refused)),
        };
        let body = match gateway_core::body::read(state.limits, body).await {
            Ok(Ok(body)) => body,
            Ok(Err(_broken)) => return (None, Err(crate::bad_body("Failed to read the request body"))),
            Err(refused) => return (None, Err(refused)),
        };
        let path = own_path(self.prefix, parts.uri.path()).unwrap_or_default();
        let route = Route::of(path);
        let template = route.template();
        if let Some(allowed) = route.refuses(&parts.method) {
            return (template, Ok(not_allowed(allowed)));
        }
        // `request.path` is the path below REST's root, `/` for the root.
        let path = if path.is_empty() { "/" } else { path };
        let answer = async {
            let caller = Caller::keyed(&state.credentials, &parts, path, key)?;
            if route == Route::Unknown {
                return Err(ApiError::NotFound);
            }
            let request = RestRequest::of(&parts, state).await?;
            serve(state.clone(), &parts, route, caller, request, body).await
        };
        (template, answer.await)
    }
}

/// The handler of a route and method [`Route::refuses`] let through.
async fn serve(
    state: RestState,
    parts: &Parts,
    route: Route<'_>,
    caller: Caller,
    request: RestRequest,
    body: Bytes,
) -> Result<Response, ApiError> {
    let method = &parts.method;
    match route {
        Route::Root => {
            let host = parts.headers.get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_owned);
            crate::describe(state, caller, request, host).await
        }
        Route::Function(function) => crate::call(state, caller, request, function.into_owned(), body).await,
        Route::Table(table) => {
            let table = table.into_owned();
            match *method {
                Method::GET | Method::HEAD => crate::read(state, caller, request, table).await,
                Method::POST => crate::create(state, caller, request, table, body).await,
                Method::PATCH => crate::update(state, caller, request, table, body).await,
                Method::PUT => crate::put(state, caller, request, table, body).await,
                Method::DELETE => crate::delete(state, caller, request, table).await,
                _ => Ok(not_allowed("GET,HEAD,POST,PATCH,PUT,DELETE")),
            }
        }
        Route::Unknown => Err(ApiError::NotFound),
    }
}

/// The path below `prefix`, when `path` is the prefix or goes on with a slash.
fn own_path<'a>(prefix: &str, path: &'a str) -> Option<&'a str> {
    let rest = path.strip_prefix(prefix)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

/// One of PostgREST's routes, its name percent-decoded.
#[derive(Debug, PartialEq, Eq)]
enum Route<'a> {
    /// `/`: the OpenAPI description.
    Root,
    Table(Cow<'a, str>),
    Function(Cow<'a, str>),
    /// Anything else (`/a/b`, `/rpc/`, a trailing slash): PGRST125.
    Unknown,
}

impl<'a> Route<'a> {
    /// The route of a path below REST's root.
    fn of(path: &'a str) -> Self {
        let Some(rest) = path.strip_prefix('/') else {
            return if path.is_empty() { Self::Root } else { Self::Unknown };
        };
        if rest.is_empty() {
            return Self::Root;
        }
        // `/rpc` alone is a table's name, as in PostgREST.
        if let Some(function) = rest.strip_prefix("rpc/") {
            return segment(function).map_or(Self::Unknown, Self::Function);
        }
        segment(rest).map_or(Self::Unknown, Self::Table)
    }

    /// The route's template, the metrics' label.
    fn template(&self) -> Option<&'static str> {
        match self {
            Self::Root => Some("/rest/v1/"),
            Self::Table(_) => Some("/rest/v1/{table}"),
            Self::Function(_) => Some("/rest/v1/rpc/{function}"),
            Self::Unknown => None,
        }
    }

    /// The methods the route takes, as `Allow` lists them, when `method` is
    /// not one of them.
    fn refuses(&self, method: &Method) -> Option<&'static str> {
        let (allowed, allow) = match self {
            Self::Root => (matches!(*method, Method::GET | Method::HEAD), "GET,HEAD"),
            Self::Function(_) => {
                (matches!(*method, Method::GET | Method::HEAD | Method::POST), "GET,HEAD,POST")
            }
            Self::Table(_) => (
                matches!(
                    *method,
                    Method::GET | Method::HEAD | Method::POST | Method::PATCH | Method::PUT | Method::DELETE
                ),
                "GET,HEAD,POST,PATCH,PUT,DELETE",
            ),
            Self::Unknown => (true, ""),
        };
        (!allowed).then_some(allow)
    }
}

/// One path segment, percent-decoded, invalid UTF-8 replaced, as WAI's
/// `pathInfo` gives PostgREST its names (http-types' `decodePathSegment`:
/// `decodeUtf8With lenientDecode . urlDecode False`); `None` for an empty
/// segment or more than one.
fn segment(text: &str) -> Option<Cow<'_, str>> {
    if text.is_empty() || text.contains('/') {
        return None;
    }
    Some(percent_encoding::percent_decode_str(text).decode_utf8_lossy())
}

/// 405, with the methods the route takes.
fn not_allowed(allow: &'static str) -> Response {
    (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, HeaderValue::from_static(allow))]).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_routes_as_postgrest_routes_them() {
        let cases: &[(&str, Route<'_>)] = &[
            ("", Route::Root),
            ("/", Route::Root),
            ("/products", Route::Table("products".into())),
            ("/rpc", Route::Table("rpc".into())),
            ("/rpc/products_between", Route::Function("products_between".into())),
            ("/pro%64ucts", Route::Table("products".into())),
            ("/a%20b", Route::Table("a b".into())),
            ("/%2F", Route::Table("/".into())),
            ("/%ff", Route::Table("\u{fffd}".into())),
            ("/rpc/%C3%A9", Route::Function("é".into())),
            ("/products/", Route::Unknown),
            ("/a/b", Route::Unknown),
            ("//products", Route::Unknown),
            ("/rpc/", Route::Unknown),
            ("/rpc/a/b", Route::Unknown),
            ("products", Route::Unknown),
        ];
        for (path, route) in cases {
            assert_eq!(&Route::of(path), route, "{path}");
        }
    }

    #[test]
    fn a_path_is_rests_when_it_is_the_prefix_or_goes_on_with_a_slash() {
        let cases = [
            ("/rest/v1", Some("")),
            ("/rest/v1/", Some("/")),
            ("/rest/v1/products", Some("/products")),
            ("/rest/v1x", None),
            ("/rest/v", None),
            ("/auth/v1/user", None),
        ];
        for (path, own) in cases {
            assert_eq!(own_path("/rest/v1", path), own, "{path}");
        }
        assert_eq!(own_path("", "/products"), Some("/products"));
    }

    #[test]
    fn each_route_refuses_the_methods_it_does_not_take_with_the_ones_it_does() {
        let table = Route::Table("t".into());
        let function = Route::Function("f".into());
        let cases = [
            (&Route::Root, Method::GET, None),
            (&Route::Root, Method::HEAD, None),
            (&Route::Root, Method::POST, Some("GET,HEAD")),
            (&function, Method::POST, None),
            (&function, Method::DELETE, Some("GET,HEAD,POST")),
            (&table, Method::PATCH, None),
            (&table, Method::PUT, None),
            (&table, Method::DELETE, None),
            (&table, Method::TRACE, Some("GET,HEAD,POST,PATCH,PUT,DELETE")),
            (&table, Method::OPTIONS, Some("GET,HEAD,POST,PATCH,PUT,DELETE")),
            (&Route::Unknown, Method::TRACE, None),
        ];
        for (route, method, refused) in cases {
            assert_eq!(route.refuses(&method), refused, "{route:?} {method}");
        }
    }
}
