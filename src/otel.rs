//! OpenTelemetry export of the request spans, over OTLP/HTTP with
//! protobuf, when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names a collector. The exporter
//! and the batch processor read the other `OTEL_*` variables themselves
//! (headers, timeout, batch sizes and delay).
//!
//! A span is sent from a thread of the batch processor's own, with a
//! blocking HTTP client: no task of the server waits on the collector.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry::{Key, KeyValue};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::registry::LookupSpan;

/// The spans' way out, to be shut down before the process exits.
pub struct Export {
    provider: SdkTracerProvider,
}

impl Export {
    /// Sends what is still batched and stops the processor's thread.
    pub fn shutdown(self) {
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!(error = %e, "OpenTelemetry: the last spans may not have been sent");
        }
    }
}

/// The layer that turns linkpath's spans into OpenTelemetry spans, and
/// their export.
pub fn layer<S>() -> Result<(impl Layer<S>, Export), String>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|e| format!("OpenTelemetry: building the OTLP exporter: {e}"))?;
    // A name from OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES, which
    // the SDK reads, wins over ours; without one it says
    // `unknown_service`.
    let named = Resource::builder()
        .build()
        .get(&Key::new("service.name"))
        .is_some_and(|name| !name.as_str().starts_with("unknown_service"));
    let mut resource = Resource::builder()
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")));
    if !named {
        resource = resource.with_service_name("linkpath");
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    let tracer = provider.tracer("linkpath");
    // linkpath's own spans and the lines logged in them; not those of the
    // libraries, the exporter's HTTP client among them, which would
    // otherwise trace its own exports at a debug RUST_LOG.
    let ours = Targets::new()
        .with_target("linkpath", tracing::Level::TRACE)
        .with_target("linkpath_server", tracing::Level::TRACE)
        .with_target("linkpath_store", tracing::Level::TRACE);
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_filter(ours);
    Ok((layer, Export { provider }))
}
