# syntax=docker/dockerfile:1
# Build a static (musl) binary, then ship it alone in an empty image.
FROM rust:1.95-alpine AS build
# jemalloc (tikv-jemalloc-sys) is C, built with make against musl's headers
# (musl-dev comes with the rust image; named so the build does not rely on
# it). The image follows Alpine's releases, so versions are not pinned.
# hadolint ignore=DL3018
RUN apk add --no-cache make musl-dev
WORKDIR /src
COPY Cargo.toml Cargo.lock openapi.yaml ./
COPY src ./src
COPY assets ./assets
COPY benches ./benches
# The same command .ci/run runs, so a broken build is caught without Docker.
RUN cargo build --release --locked --bin linkpath

FROM scratch
COPY --from=build /src/target/release/linkpath /linkpath
USER 65532:65532
ENV LINKPATH_LISTEN=0.0.0.0:8080 \
    LINKPATH_LOG_FORMAT=json
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=2s --retries=3 \
    CMD ["/linkpath", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/linkpath"]
CMD ["serve"]
