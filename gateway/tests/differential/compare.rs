//! One request, sent to both servers, and what is compared of the answers:
//! status, `Content-Range`, `Content-Type` (modulo case and spacing),
//! `Location` and the body decoded as JSON (numbers compared numerically,
//! keys in any order).

use reqwest::Method;
use serde_json::Value;

/// Whose token the request carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Anon,
    /// A signed-in user (`authenticated`).
    User,
    Service,
    /// A user token past its `exp`.
    Expired,
    /// A token signed with another secret.
    Forged,
}

#[derive(Clone, Debug)]
pub struct Request {
    pub method: Method,
    /// Path and query below `/rest/v1`, e.g. `/products?select=id`.
    pub path: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Option<String>,
    pub who: Who,
    /// Whether every array in the answer has a defined order; when not, arrays
    /// are compared as multisets.
    pub ordered: bool,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Empty,
    Json(Value),
    Text(String),
}

#[derive(Clone, Debug)]
pub struct Answer {
    pub status: u16,
    pub content_range: Option<String>,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub body: Body,
}

impl Answer {
    pub async fn from(response: reqwest::Response) -> Self {
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.to_ascii_lowercase().replace(' ', ""))
        };
        let content_range = header("content-range");
        let content_type = header("content-type");
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let text = response.text().await.expect("body");
        let body = if text.is_empty() {
            Body::Empty
        } else {
            match serde_json::from_str::<Value>(&text) {
                Ok(json) if !content_type.as_deref().unwrap_or("").starts_with("text/csv") => {
                    Body::Json(numbers_as_floats(json))
                }
                _ => Body::Text(text),
            }
        };
        Self { status, content_range, content_type, location, body }
    }

    /// No answer: the connection failed.
    pub fn failed(error: &reqwest::Error) -> Self {
        let mut source: &dyn std::error::Error = error;
        while let Some(next) = source.source() {
            source = next;
        }
        Self {
            status: 0,
            content_range: None,
            content_type: None,
            location: None,
            body: Body::Text(source.to_string()),
        }
    }

    /// The error body's field, if this is one.
    pub fn field(&self, name: &str) -> Option<&Value> {
        match &self.body {
            Body::Json(Value::Object(o)) => o.get(name),
            _ => None,
        }
    }

    pub fn code(&self) -> Option<&str> {
        self.field("code").and_then(Value::as_str)
    }

    pub fn message(&self) -> Option<&str> {
        self.field("message").and_then(Value::as_str)
    }

    /// A copy with the error field `name` set to `value`.
    pub fn with(&self, name: &str, value: Value) -> Self {
        let mut copy = self.clone();
        if let Body::Json(Value::Object(o)) = &mut copy.body {
            o.insert(name.to_owned(), value);
        }
        copy
    }
}

fn numbers_as_floats(value: Value) -> Value {
    match value {
        Value::Number(n) => n.as_f64().map_or(Value::Number(n), Value::from),
        Value::Array(items) => Value::Array(items.into_iter().map(numbers_as_floats).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_floats(v))).collect()),
        other => other,
    }
}

/// Every array sorted by its elements' text, for answers of unordered requests.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(sorted).collect();
            items.sort_by_key(Value::to_string);
            Value::Array(items)
        }
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), sorted(v))).collect()),
        other => other.clone(),
    }
}

/// Whether the two answers are the same, for this request.
pub fn same(request: &Request, a: &Answer, b: &Answer) -> bool {
    if a.status != b.status
        || a.content_range != b.content_range
        || a.content_type != b.content_type
        || a.location != b.location
    {
        return false;
    }
    match (&a.body, &b.body) {
        (Body::Json(x), Body::Json(y)) if !request.ordered => x == y || sorted(x) == sorted(y),
        (x, y) => x == y,
    }
}
