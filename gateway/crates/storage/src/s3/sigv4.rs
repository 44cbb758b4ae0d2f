//! AWS Signature Version 4, as S3 checks it
//! (<https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html>):
//! the canonical request, the string to sign, the signing key and the
//! signatures of `aws-chunked` bodies. Pure functions over text; which
//! secret signs and whether a request is on time is `super::auth`'s work.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// The one algorithm S3 accepts for SigV4.
pub const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// The SHA-256 of an empty payload, which a `GET` signs.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    // HMAC takes a key of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("hmac accepts any key length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// `kSigning`: the secret folded through the date, region, service and
/// `aws4_request`.
pub fn signing_key(secret: &str, date: &str, region: &str, service: &str) -> [u8; 32] {
    let k_date = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    let k_region = hmac(&k_date, region.as_bytes());
    let k_service = hmac(&k_region, service.as_bytes());
    hmac(&k_service, b"aws4_request")
}

pub fn signature(key: &[u8; 32], string_to_sign: &str) -> String {
    hex::encode(hmac(key, string_to_sign.as_bytes()))
}

/// S3's `UriEncode`: every byte but the unreserved ones percent-encoded in
/// upper-case hex; `/` kept when `keep_slash` (paths), encoded otherwise
/// (query names and values).
pub fn uri_encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'_' | b'.' | b'~')
            || (keep_slash && byte == b'/')
        {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Percent-decoding of a path or query part; `+` stays a `+` (S3 clients
/// encode a space as `%20`).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(byte) =
                u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The query's pairs, decoded, in their order.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|part| !part.is_empty())
        .map(|part| match part.split_once('=') {
            Some((name, value)) => (percent_decode(name), percent_decode(value)),
            None => (percent_decode(part), String::new()),
        })
        .collect()
}

/// What a canonical request is made of. `path` is decoded (it is encoded
/// once here, as S3 does not double-encode); `query` holds decoded pairs
/// without `X-Amz-Signature`; `headers` are the signed ones, lower-case,
/// in the order `SignedHeaders` lists them, with every value they had.
pub struct Canonical<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a [(String, String)],
    pub headers: &'a [(String, Vec<String>)],
    pub payload_hash: &'a str,
}

impl Canonical<'_> {
    pub fn request(&self) -> String {
        let mut query: Vec<(String, String)> =
            self.query.iter().map(|(n, v)| (uri_encode(n, false), uri_encode(v, false))).collect();
        query.sort();
        let query: Vec<String> = query.into_iter().map(|(n, v)| format!("{n}={v}")).collect();
        let mut headers = String::new();
        for (name, values) in self.headers {
            let values: Vec<String> =
                values.iter().map(|v| v.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
            headers.push_str(&format!("{name}:{}\n", values.join(",")));
        }
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        let path = if self.path.is_empty() { "/".to_owned() } else { uri_encode(self.path, true) };
        format!(
            "{}\n{}\n{}\n{}\n{}\n{}",
            self.method,
            path,
            query.join("&"),
            headers,
            names.join(";"),
            self.payload_hash
        )
    }
}

/// `AWS4-HMAC-SHA256`, the time, the scope and the canonical request's hash.
pub fn string_to_sign(amz_date: &str, scope: &str, canonical_request: &str) -> String {
    format!("{ALGORITHM}\n{amz_date}\n{scope}\n{}", sha256_hex(canonical_request.as_bytes()))
}

/// What one chunk of a `STREAMING-AWS4-HMAC-SHA256-PAYLOAD` body signs: the
/// previous signature (the seed, the request's own, for the first) and the
/// chunk's hash.
pub fn chunk_string_to_sign(amz_date: &str, scope: &str, previous: &str, chunk: &[u8]) -> String {
    format!(
        "AWS4-HMAC-SHA256-PAYLOAD\n{amz_date}\n{scope}\n{previous}\n{EMPTY_SHA256}\n{}",
        sha256_hex(chunk)
    )
}

/// Equal texts, compared in time that does not depend on where they differ.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, Vec<String>)> {
        pairs.iter().map(|(n, v)| ((*n).to_owned(), vec![(*v).to_owned()])).collect()
    }

    /// AWS's SigV4 test suite, "get-vanilla": the documented canonical
    /// request, string to sign and signature of `GET /` with no query.
    #[test]
    fn get_vanilla_signs_as_aws_documents() {
        let signed = headers(&[("host", "example.amazonaws.com"), ("x-amz-date", "20150830T123600Z")]);
        let canonical =
            Canonical { method: "GET", path: "/", query: &[], headers: &signed, payload_hash: EMPTY_SHA256 };
        let request = canonical.request();
        assert_eq!(
            request,
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\
             e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let scope = "20150830/us-east-1/service/aws4_request";
        let to_sign = string_to_sign("20150830T123600Z", scope, &request);
        assert_eq!(
            to_sign,
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n\
             bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63"
        );
        let key = signing_key("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830", "us-east-1", "service");
        assert_eq!(
            signature(&key, &to_sign),
            "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
    }

    /// The S3 reference's "GET Object" example: a ranged read of
    /// `examplebucket/test.txt`, signed in headers.
    #[test]
    fn s3s_get_object_example_signs_as_documented() {
        let signed = headers(&[
            ("host", "examplebucket.s3.amazonaws.com"),
            ("range", "bytes=0-9"),
            ("x-amz-content-sha256", EMPTY_SHA256),
            ("x-amz-date", "20130524T000000Z"),
        ]);
        let canonical = Canonical {
            method: "GET",
            path: "/test.txt",
            query: &[],
            headers: &signed,
            payload_hash: EMPTY_SHA256,
        };
        let scope = "20130524/us-east-1/s3/aws4_request";
        let to_sign = string_to_sign("20130524T000000Z", scope, &canonical.request());
        assert!(
            to_sign.ends_with("7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"),
            "{to_sign}"
        );
        let key = signing_key("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "20130524", "us-east-1", "s3");
        assert_eq!(
            signature(&key, &to_sign),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
    }

    /// The S3 reference's presigned URL example: the query carries the
    /// credential, and the payload is `UNSIGNED-PAYLOAD`.
    #[test]
    fn s3s_presigned_url_example_signs_as_documented() {
        let query: Vec<(String, String)> = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"),
            ("X-Amz-Date", "20130524T000000Z"),
            ("X-Amz-Expires", "86400"),
            ("X-Amz-SignedHeaders", "host"),
        ]
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
        let signed = headers(&[("host", "examplebucket.s3.amazonaws.com")]);
        let canonical = Canonical {
            method: "GET",
            path: "/test.txt",
            query: &query,
            headers: &signed,
            payload_hash: "UNSIGNED-PAYLOAD",
        };
        let scope = "20130524/us-east-1/s3/aws4_request";
        let to_sign = string_to_sign("20130524T000000Z", scope, &canonical.request());
        let key = signing_key("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "20130524", "us-east-1", "s3");
        assert_eq!(
            signature(&key, &to_sign),
            "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        );
    }

    /// The S3 reference's chunked upload example: 65 KiB of `a` in a 64 KiB
    /// chunk, a 1 KiB chunk and the empty final one, each signed after the
    /// previous signature, from the seed signature of the headers.
    #[test]
    fn chunk_signatures_chain_from_the_seed_as_documented() {
        let key = signing_key("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "20130524", "us-east-1", "s3");
        let scope = "20130524/us-east-1/s3/aws4_request";
        let seed = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";
        let first = signature(&key, &chunk_string_to_sign("20130524T000000Z", scope, seed, &[b'a'; 65536]));
        assert_eq!(first, "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648");
        let second = signature(&key, &chunk_string_to_sign("20130524T000000Z", scope, &first, &[b'a'; 1024]));
        assert_eq!(second, "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497");
        let last = signature(&key, &chunk_string_to_sign("20130524T000000Z", scope, &second, &[]));
        assert_eq!(last, "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9");
    }

    #[test]
    fn paths_and_queries_encode_as_s3_does() {
        let cases = [
            ("a b/(1).png", true, "a%20b/%281%29.png"),
            ("a/b", false, "a%2Fb"),
            ("~-_.", false, "~-_."),
            ("ünï", true, "%C3%BCn%C3%AF"),
        ];
        for (text, keep_slash, expected) in cases {
            assert_eq!(uri_encode(text, keep_slash), expected, "{text}");
        }
        assert_eq!(percent_decode("a%20b%2F%28"), "a b/(");
        assert_eq!(
            query_pairs("list-type=2&prefix=a%2Fb&delimiter"),
            [
                ("list-type".to_owned(), "2".to_owned()),
                ("prefix".to_owned(), "a/b".to_owned()),
                ("delimiter".to_owned(), String::new()),
            ]
        );
    }
}
