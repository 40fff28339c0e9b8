//! W3C Trace Context: the `traceparent` header a mesh, an ingress or an
//! instrumented client sends, read so that a request's log lines carry the
//! trace they belong to and an operator can find them from the trace.
//! <https://www.w3.org/TR/trace-context/#traceparent-header>

use axum::http::HeaderMap;

/// The header's name.
pub const TRACEPARENT: &str = "traceparent";

/// A valid `traceparent`: the trace's id and the caller's span id, as the
/// lowercase hex the header carries, and its flags (bit 0: sampled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceParent {
    pub trace_id: String,
    pub span_id: String,
    pub flags: u8,
}

impl TraceParent {
    /// The request's trace context, if it has exactly one valid
    /// `traceparent`; the specification says to ignore any other.
    pub fn from_headers(headers: &HeaderMap) -> Option<TraceParent> {
        let mut values = headers.get_all(TRACEPARENT).iter();
        let value = values.next()?;
        if values.next().is_some() {
            return None;
        }
        TraceParent::parse(value.to_str().ok()?)
    }

    /// `version-traceid-parentid-flags`: version `00` is exactly that; a
    /// later version may add fields after a dash, and `ff` is invalid. An
    /// all-zero trace or span id is invalid, and hex is lowercase only.
    pub fn parse(value: &str) -> Option<TraceParent> {
        let bytes = value.as_bytes();
        // ASCII first, so that slicing by bytes stays on char boundaries.
        if bytes.len() < 55 || !value.is_ascii() {
            return None;
        }
        let (version, trace_id, span_id, flags) =
            (&value[..2], &value[3..35], &value[36..52], &value[53..55]);
        let dashes = bytes[2] == b'-' && bytes[35] == b'-' && bytes[52] == b'-';
        let rest_fits = match version {
            "00" => bytes.len() == 55,
            "ff" => false,
            _ => bytes.len() == 55 || bytes[55] == b'-',
        };
        let hex = |part: &str| part.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        let nonzero = |part: &str| part.bytes().any(|b| b != b'0');
        (dashes
            && rest_fits
            && [version, trace_id, span_id, flags].into_iter().all(hex)
            && nonzero(trace_id)
            && nonzero(span_id))
        .then(|| TraceParent {
            trace_id: trace_id.to_owned(),
            span_id: span_id.to_owned(),
            flags: u8::from_str_radix(flags, 16).unwrap_or(0),
        })
    }

    /// Makes the caller's span the parent of `span` in OpenTelemetry, so
    /// that the exported span is in the caller's trace. Without the
    /// OpenTelemetry layer (no endpoint set) this does nothing.
    #[cfg(feature = "otel")]
    pub fn adopt(&self, span: &tracing::Span) {
        use opentelemetry::trace::{
            SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
        };
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        let (Ok(trace_id), Ok(span_id)) = (
            TraceId::from_hex(&self.trace_id),
            SpanId::from_hex(&self.span_id),
        ) else {
            return;
        };
        let caller = SpanContext::new(
            trace_id,
            span_id,
            TraceFlags::new(self.flags),
            true,
            TraceState::default(),
        );
        let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(caller));
    }
}

/// The request's method, route and status as OpenTelemetry's HTTP server
/// attributes (the bounded labels of the metrics), and an error status
/// for a 5xx.
#[cfg(feature = "otel")]
pub fn describe(span: &tracing::Span, method: &'static str, route: &'static str, status: u16) {
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    span.set_attribute("http.request.method", method);
    span.set_attribute("http.route", route);
    span.set_attribute("http.response.status_code", i64::from(status));
    if status >= 500 {
        span.set_status(opentelemetry::trace::Status::error(""));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn the_specification_example_is_read() {
        assert_eq!(
            TraceParent::parse(VALID),
            Some(TraceParent {
                trace_id: "4bf92f3577b34da6a3ce929d0e0e4736".into(),
                span_id: "00f067aa0ba902b7".into(),
                flags: 1,
            })
        );
    }

    #[test]
    fn invalid_values_are_ignored() {
        for value in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473é-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceParent::parse(value), None, "{value}");
        }
    }

    #[test]
    fn a_later_version_may_add_fields() {
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes";
        assert_eq!(
            TraceParent::parse(later).map(|t| t.trace_id),
            Some("4bf92f3577b34da6a3ce929d0e0e4736".into())
        );
        assert_eq!(
            TraceParent::parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"),
            None
        );
    }
}
