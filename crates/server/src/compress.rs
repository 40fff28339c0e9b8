//! Compressed answers: gzip, Brotli or zstd, as the request's
//! `Accept-Encoding` prefers, for answers of at least
//! `--compress-min-bytes`. Brotli and zstd come with the `br` and `zstd`
//! features (the image's build has them): their build costs a plain
//! `cargo build` a minute on two cores.
//!
//! Left as they are: smaller answers (compressing them costs more than it
//! saves), event streams (an encoder holds events back until its buffer
//! fills), images other than SVG, and answers with a strong `ETag` (a
//! game's version, which `If-Match` compares strongly: a strong tag
//! promises these exact bytes, and a compressed variant is other bytes).
//!
//! The memory budget counts an answer at its uncompressed size, which is
//! what the handler built and the encoder holds until it has read it all:
//! the compressed body cannot tell its size, so that size is noted on the
//! answer before it is compressed ([`Uncompressed`]).

use axum::http::{Response, header};
use hyper::body::Body;
use std::num::NonZeroU64;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{NotForContentType, Predicate};

/// The size of an answer's body before compression, on an answer that may
/// be compressed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Uncompressed(pub u64);

/// The compression layer, compressing answers of at least `min_bytes`
/// (0: none).
pub(crate) fn layer(min_bytes: u64) -> CompressionLayer<impl Predicate> {
    let worth = Worth {
        min: NonZeroU64::new(min_bytes),
    };
    // tower-http's own size predicate takes at most 64 KiB (a `u16`).
    CompressionLayer::new().compress_when(
        worth
            .and(NotForContentType::SSE)
            .and(NotForContentType::IMAGES),
    )
}

/// Notes the body's size on an answer big enough to be compressed; runs
/// inside [`layer`], before the body is wrapped.
pub(crate) fn note_size(
    min_bytes: u64,
) -> impl Fn(axum::response::Response) -> axum::response::Response + Clone {
    move |mut response| {
        let bytes = response.body().size_hint().lower();
        if min_bytes > 0 && bytes >= min_bytes {
            response.extensions_mut().insert(Uncompressed(bytes));
        }
        response
    }
}

/// Big enough, and with no strong entity tag.
#[derive(Clone, Copy, Debug)]
struct Worth {
    min: Option<NonZeroU64>,
}

impl Predicate for Worth {
    fn should_compress<B: Body>(&self, response: &Response<B>) -> bool {
        let Some(min) = self.min else {
            return false;
        };
        // A body of unknown size (a stream) is compressed unless its type
        // says otherwise.
        let big = response
            .body()
            .size_hint()
            .exact()
            .is_none_or(|bytes| bytes >= min.get());
        let strong_tag = response
            .headers()
            .get(header::ETAG)
            .is_some_and(|tag| !tag.as_bytes().starts_with(b"W/"));
        big && !strong_tag
    }
}
