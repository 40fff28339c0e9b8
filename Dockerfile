# syntax=docker/dockerfile:1
# Build one static binary, then ship it alone in an empty image.
#
# The build stage is the official Rust image on Debian 12 (bookworm), the
# Debian release and Rust version (1.95) of the CI machine, so the binary
# built here and the one .ci/run builds and tests come from the same
# toolchain, C compiler and libc. It already has gcc, make and glibc's
# static libraries (libc6-dev), which the static link and jemalloc's C build
# need. For a build that cannot change under you, pin it by digest
# (FROM docker.io/library/rust:1.95-bookworm@sha256:...), as
# `docker buildx imagetools inspect` prints it.
FROM docker.io/library/rust:1.95-bookworm AS build
WORKDIR /src
# The folder the games' store lives in, empty, for the final stage: FROM
# scratch has no shell to make it.
RUN mkdir -p /data
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY crates ./crates
COPY assets ./assets
# Static glibc, not musl: the machines here (CI's among them) have only the
# x86_64-unknown-linux-gnu toolchain and cannot download another target,
# and one command must build both CI's binary and the image's. crt-static
# with an explicit --target links the binary statically (static-pie, no
# interpreter, no libc in the image) while build scripts and proc-macros
# stay ordinary host code. jemalloc stays the allocator, linked in as C.
# Serving resolves no host names; `linkpath healthcheck` probes an IP
# address by default. A static glibc still reads /etc/hosts and DNS itself
# (a URL naming localhost worked in the container), but cannot load other
# NSS modules.
# The symbol table is stripped (cargo already drops debug info in
# release): about a fifth of the binary. Here and not in
# Cargo.toml's release profile, so that local release builds keep their
# symbols for profilers. A panic in the image still logs its message and
# location; only a backtrace's function names are gone.
# .ci/run runs this exact command, and scripts/container-test.sh puts the
# binary it builds into the stage below.
# `--features otel,br,zstd` builds in the OpenTelemetry span export, which
# OTEL_EXPORTER_OTLP_ENDPOINT turns on (docs/operations.md, "Logs and
# metrics"), and Brotli and zstd answers besides gzip; a plain `cargo
# build` leaves them out, to build faster.
# The commit for linkpath_build_info: the build context has no .git, so
# `--build-arg LINKPATH_COMMIT=$(git rev-parse --short HEAD)`; else unknown.
ARG LINKPATH_COMMIT
RUN RUSTFLAGS='-C target-feature=+crt-static' CARGO_PROFILE_RELEASE_STRIP=symbols cargo build --release --locked --features otel,br,zstd --target x86_64-unknown-linux-gnu --bin linkpath

# The image that ships: the binary and nothing else. scripts/container-test.sh
# builds exactly this stage (--target runtime) around CI's binary and checks
# each line below on the running container.
FROM scratch AS runtime
COPY --from=build /src/target/x86_64-unknown-linux-gnu/release/linkpath /linkpath
# Games are kept in /data/games.redb (LINKPATH_STORE below), every change
# on disk before it is answered: mount a volume there (the root stays
# read-only). Without one, the runtime makes an anonymous volume.
COPY --from=build --chown=65532:65532 /data /data
VOLUME ["/data"]
# A fixed non-root uid/gid (the "nonroot" of distroless images), so
# Kubernetes' runAsNonRoot can check it.
USER 65532:65532
# The probes and the metrics on a port of their own, which application
# traffic cannot fill.
ENV LINKPATH_LISTEN=0.0.0.0:8080 \
    LINKPATH_ADMIN_LISTEN=0.0.0.0:9090 \
    LINKPATH_STORE=file:/data/games.redb \
    LINKPATH_LOG_FORMAT=json
EXPOSE 8080 9090
HEALTHCHECK --interval=10s --timeout=3s --start-period=2s --retries=3 \
    CMD ["/linkpath", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/linkpath"]
CMD ["serve"]
