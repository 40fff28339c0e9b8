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

/// The longest path or user agent a span keeps, in characters.
#[cfg(feature = "otel")]
const ATTRIBUTE_CHARS: usize = 256;

/// What OpenTelemetry's HTTP server conventions record of a request, read
/// before it is served (the handler takes the request).
/// <https://opentelemetry.io/docs/specs/semconv/http/http-spans/>
#[cfg(feature = "otel")]
pub struct ServerRequest {
    /// A standard method, or `_OTHER`.
    method: &'static str,
    path: String,
    version: &'static str,
    user_agent: Option<String>,
    peer: Option<std::net::SocketAddr>,
}

#[cfg(feature = "otel")]
impl ServerRequest {
    /// `method` is the bounded label the metrics use.
    pub fn read(request: &axum::extract::Request, method: &'static str) -> ServerRequest {
        use axum::http::{Version, header};
        let version = match request.version() {
            Version::HTTP_09 => "0.9",
            Version::HTTP_10 => "1.0",
            Version::HTTP_2 => "2",
            Version::HTTP_3 => "3",
            _ => "1.1",
        };
        ServerRequest {
            method,
            // Both are the client's choice: a span keeps at most
            // `ATTRIBUTE_CHARS` of each.
            path: request.uri().path().chars().take(ATTRIBUTE_CHARS).collect(),
            version,
            user_agent: request
                .headers()
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .map(|agent| agent.chars().take(ATTRIBUTE_CHARS).collect()),
            peer: request
                .extensions()
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|c| c.0),
        }
    }
}

/// Names `span` as the conventions do (`POST /v1/games/{id}/moves`; the
/// method alone when no route matched, `HTTP` for a method of no standard)
/// and gives it their attributes; a 5xx is an error, its `error.type` the
/// status.
#[cfg(feature = "otel")]
pub fn describe(
    span: &tracing::Span,
    request: &ServerRequest,
    route: Option<&'static str>,
    status: u16,
) {
    use opentelemetry::trace::TraceContextExt;
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let name = match (request.method, route) {
        ("_OTHER", _) => "HTTP".to_owned(),
        (method, Some(route)) => format!("{method} {route}"),
        (method, None) => method.to_owned(),
    };
    // The span was started when the request entered it, before routing:
    // the started span is renamed, as `otel.name` no longer would.
    span.context().span().update_name(name);
    span.set_attribute("http.request.method", request.method);
    span.set_attribute("url.scheme", "http");
    span.set_attribute("url.path", request.path.clone());
    span.set_attribute("network.protocol.name", "http");
    span.set_attribute("network.protocol.version", request.version);
    if let Some(agent) = &request.user_agent {
        span.set_attribute("user_agent.original", agent.clone());
    }
    if let Some(peer) = request.peer {
        span.set_attribute("network.peer.address", peer.ip().to_canonical().to_string());
        span.set_attribute("network.peer.port", i64::from(peer.port()));
    }
    if let Some(route) = route {
        span.set_attribute("http.route", route);
    }
    span.set_attribute("http.response.status_code", i64::from(status));
    if status >= 500 {
        span.set_attribute("error.type", status.to_string());
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
