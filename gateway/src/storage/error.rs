//! Errors of the storage API, in Storage's shape
//! `{"statusCode":"<string>","code","error","message"}`. The hosted service sends
//! client errors as HTTP 400 and keeps the real status in `statusCode`
//! (supabase/storage `src/internal/errors/storage-error.ts`,
//! `src/http/error-handler.ts`).

#[derive(Debug, Clone, PartialEq)]
pub struct StorageError {
    /// The real status, as a string: `"404"`, `"409"`...
    pub status_code: &'static str,
    /// Storage's error code, e.g. `NoSuchBucket`.
    pub code: &'static str,
    /// The short title, e.g. `Bucket not found`.
    pub error: &'static str,
    pub message: String,
}
