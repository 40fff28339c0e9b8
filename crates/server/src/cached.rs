//! Answers that are the same bytes for the life of the process (the
//! playground's files, the OpenAPI document), sent with an `ETag` and
//! `Cache-Control: no-cache`: a browser or a client keeps them and asks
//! again with `If-None-Match`, and gets `304 Not Modified` without the
//! body until a new build changes them (RFC 9110, section 13.1.2).
//!
//! The tag is weak (`W/"..."`): the answer may be sent identity or
//! compressed, each other bytes, and one strong tag may only name one of
//! them (RFC 9110, section 8.8.1). `If-None-Match` compares weakly, so a
//! client holding either variant gets its 304; 200 and 304 alike say
//! `Vary: Accept-Encoding`.

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// A fixed body with its entity tag: a hash of its bytes, so the same
/// build on every replica gives the same tag.
pub(crate) struct Cached {
    body: &'static str,
    etag: HeaderValue,
}

impl Cached {
    pub(crate) fn new(body: &'static str) -> Cached {
        Cached {
            body,
            etag: weak_etag(body.as_bytes()),
        }
    }

    /// 304 when `request` names this tag in `If-None-Match`, else the body
    /// as `content_type`; both carry the tag, the caching rule and
    /// `headers`.
    pub(crate) fn answer(
        &self,
        request: &HeaderMap,
        content_type: &'static str,
        headers: &[(HeaderName, &'static str)],
    ) -> Response {
        let caching = [
            (header::ETAG, self.etag.clone()),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (header::VARY, HeaderValue::from_static("accept-encoding")),
        ];
        let mut response = if self.matches(request) {
            (StatusCode::NOT_MODIFIED, caching).into_response()
        } else {
            let typed = [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))];
            (caching, typed, self.body).into_response()
        };
        for (name, value) in headers {
            response
                .headers_mut()
                .insert(name.clone(), HeaderValue::from_static(value));
        }
        response
    }

    fn matches(&self, request: &HeaderMap) -> bool {
        none_match(request, &self.etag)
    }
}

/// A weak tag for `bytes`: the first 128 bits of their SHA-256, the same
/// on every replica.
pub(crate) fn weak_etag(bytes: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(bytes);
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    HeaderValue::from_str(&format!("W/\"{hex}\"")).expect("hex is a header value")
}

/// Whether `request`'s `If-None-Match` names `etag`, so that a 304 is the
/// answer. It compares weakly (RFC 9110, section 13.1.2): `W/` is ignored
/// on either side, and `*` matches any.
pub(crate) fn none_match(request: &HeaderMap, etag: &HeaderValue) -> bool {
    let ours = etag.as_bytes();
    let ours = ours.strip_prefix(b"W/").unwrap_or(ours);
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/").as_bytes() == ours)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn the_tag_is_matched_weakly_in_a_list_or_by_a_star() {
        let cached = Cached::new("body");
        let weak = cached.etag.to_str().unwrap().to_owned();
        assert_eq!(weak.len(), 36);
        let tag = weak.trim_start_matches("W/").to_owned();
        for value in [
            tag.clone(),
            weak.clone(),
            format!("\"other\", {tag}"),
            "*".into(),
        ] {
            assert_eq!(
                cached.answer(&asked(&value), "text/plain", &[]).status(),
                304,
                "{value}"
            );
        }
        for value in ["\"other\"", "", "W/\"other\""] {
            assert_eq!(
                cached.answer(&asked(value), "text/plain", &[]).status(),
                200,
                "{value}"
            );
        }
        assert_eq!(
            cached.answer(&HeaderMap::new(), "text/plain", &[]).status(),
            200
        );
    }
}
