//! Checks on the request head before any route sees it: the request id a
//! client may choose, and the transfer codings this server can decode.

use super::error::{ErrorCode, HttpError};
use axum::extract::Request;
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use linkpath_api::excerpt;

/// The request id header, echoed on every answer and logged.
pub const REQUEST_ID: &str = "x-request-id";

/// The longest request id a client may choose.
pub const MAX_REQUEST_ID: usize = 128;

/// Removes a client's request id that is empty, longer than
/// [`MAX_REQUEST_ID`] or not all visible ASCII (`!` to `~`), so that a
/// fresh one is generated in its place: an id goes into every log line and
/// back to the client, where it must be short and printable.
pub fn drop_unfit_request_id(mut request: Request) -> Request {
    let fit = request.headers().get(REQUEST_ID).is_none_or(|id| {
        let id = id.as_bytes();
        !id.is_empty() && id.len() <= MAX_REQUEST_ID && id.iter().all(|b| (0x21..=0x7e).contains(b))
    });
    if !fit {
        request.headers_mut().remove(REQUEST_ID);
    }
    request
}

/// 501 for a transfer coding other than `chunked` alone: hyper decodes the
/// chunks and would pass the rest (gzip, say) through undecoded, so the
/// JSON parser would see compressed bytes. RFC 9112 section 6.1 asks for
/// 501 there.
pub async fn refuse_transfer_codings(request: Request, next: Next) -> Response {
    let codings: Vec<String> = request
        .headers()
        .get_all(header::TRANSFER_ENCODING)
        .iter()
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .collect();
    let plain = match codings.as_slice() {
        [] => true,
        [only] => only.trim().eq_ignore_ascii_case("chunked"),
        _ => false,
    };
    if plain {
        return next.run(request).await;
    }
    HttpError::new(
        ErrorCode::NotImplemented,
        format!(
            "Transfer-Encoding {:?} is not supported, only chunked",
            excerpt(&codings.join(", "))
        ),
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_after(value: &[u8]) -> Option<Vec<u8>> {
        let request = Request::builder()
            .header(
                REQUEST_ID,
                axum::http::HeaderValue::from_bytes(value).unwrap(),
            )
            .body(axum::body::Body::empty())
            .unwrap();
        drop_unfit_request_id(request)
            .headers()
            .get(REQUEST_ID)
            .map(|v| v.as_bytes().to_vec())
    }

    #[test]
    fn request_ids_of_visible_ascii_up_to_128_are_kept_and_others_dropped() {
        let longest = "~".repeat(128);
        for kept in [&b"trace-7f3a"[..], b"!", longest.as_bytes()] {
            assert_eq!(id_after(kept).as_deref(), Some(kept));
        }
        let long = "a".repeat(129);
        for dropped in [long.as_bytes(), b"", b"a b", b"a\tb", b"caf\xc3\xa9"] {
            assert_eq!(id_after(dropped), None, "{dropped:?}");
        }
    }
}
