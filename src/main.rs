//! The `linkpath` command: parse the command line, start tracing, dispatch.

use clap::{CommandFactory, Parser, Subcommand};
use linkpath_archive::ArchiveSpec;
use linkpath_engine::Stop;
use linkpath_formats::judge::{self, Format};
use linkpath_server::{AppState, Config, RequestLimits};
use linkpath_store::StoreSpec;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[cfg(feature = "otel")]
mod otel;

// jemalloc hands the pages of finished big requests back to the system
// (its background threads purge them, see `serve`), where glibc's malloc
// keeps them in per-thread arenas and the server's memory climbs from
// request to request. The Docker image's static binary keeps it.
// BENCHMARKS.md, target 6.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    version,
    about = "Answers tile-connection puzzles over HTTP and on the command line",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no subcommand, `serve` takes its flags here.
    #[command(flatten)]
    serve: Box<Config>,
}

#[derive(Subcommand)]
enum Command {
    /// Serves the HTTP JSON API (the default).
    Serve(Box<Config>),
    /// Answers one /v1/solve request body from FILE (or stdin) and prints the
    /// response JSON, as the server would.
    Solve {
        /// The request body; stdin when absent or `-`.
        file: Option<PathBuf>,
        #[command(flatten)]
        limits: RequestLimits,
    },
    /// Draws one /v1/solve request body from FILE (or stdin) as an SVG
    /// picture on stdout, as POST /v1/render would.
    Render {
        /// The request body; stdin when absent or `-`.
        file: Option<PathBuf>,
        #[command(flatten)]
        limits: RequestLimits,
        /// Most cells, queries and path segments to draw (a query counts
        /// one, and one a segment, or two for its end marks when it does not
        /// connect): at most 260 bytes of SVG each, and 10 KiB besides; at
        /// least 1.
        #[arg(long, env = "LINKPATH_MAX_RENDER_CELLS", default_value_t = 16_384, value_parser = linkpath_server::at_least_one::<usize>)]
        max_render_cells: usize,
    },
    /// Reads a judge input on stdin and prints the judge's expected output.
    Judge {
        /// mahjong, poj1101, hdu1175 or poj3009.
        format: Format,
    },
    /// Prints the OpenAPI document the server serves at /openapi.yaml:
    /// `linkpath openapi > openapi.yaml` regenerates the committed copy.
    Openapi,
    /// Probes a running server's /healthz; exit 0 when it answers 200.
    Healthcheck {
        /// The URL to probe (http only); by default /healthz on the port of
        /// LINKPATH_ADMIN_LISTEN, or of LINKPATH_LISTEN without one, on
        /// loopback when it listens on all addresses.
        #[arg(long, env = "LINKPATH_HEALTHCHECK_URL")]
        url: Option<String>,
        /// How long to wait for the answer, in milliseconds.
        #[arg(long, default_value_t = 2000)]
        timeout_ms: u64,
    },
}

/// The exit code of a command line or setting that makes no sense, as clap
/// exits on a usage error.
const USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match linkpath_server::invalid_setting(&e, &Cli::command()) {
            Some(message) => {
                eprintln!("linkpath: {message}");
                return ExitCode::from(USAGE);
            }
            None => e.exit(),
        },
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("linkpath: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A failure that ends a command: what went wrong, and the exit code.
type Failure = Box<dyn std::error::Error>;

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        None => serve(*cli.serve),
        Some(Command::Serve(config)) => serve(*config),
        Some(Command::Solve { file, limits }) => solve(file, &limits),
        Some(Command::Render {
            file,
            limits,
            max_render_cells,
        }) => render(file, &limits, max_render_cells),
        Some(Command::Judge { format }) => run_judge(format),
        Some(Command::Openapi) => Ok(print(linkpath_server::openapi_yaml().as_bytes())),
        Some(Command::Healthcheck { url, timeout_ms }) => {
            let url = url.unwrap_or_else(|| {
                // The admin listener, when there is one: the main one may be
                // full.
                let listen = std::env::var("LINKPATH_ADMIN_LISTEN")
                    .or_else(|_| std::env::var("LINKPATH_LISTEN"))
                    .unwrap_or_default();
                linkpath_server::healthcheck_url(&listen)
            });
            match linkpath_server::healthcheck(&url, Duration::from_millis(timeout_ms)) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(e) => {
                    eprintln!("linkpath healthcheck: {e}");
                    Ok(ExitCode::FAILURE)
                }
            }
        }
    }
}

/// What tracing sends beyond the log: the OpenTelemetry export, when the
/// build has it and an endpoint is set. Shut down before the process
/// exits, so the last spans are sent.
struct Telemetry {
    #[cfg(feature = "otel")]
    export: Option<otel::Export>,
}

impl Telemetry {
    /// Outside the runtime: the exporter's client blocks.
    fn shutdown(self) {
        #[cfg(feature = "otel")]
        if let Some(export) = self.export {
            export.shutdown();
        }
    }
}

/// The log on stderr, and with the `otel` feature the span export; the
/// error says why the export could not start.
fn init_tracing(json: bool) -> Result<Telemetry, Failure> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only for a person at a terminal, not in a log file.
    let ansi = std::io::stderr().is_terminal();
    let text = (!json).then(|| {
        tracing_subscriber::fmt::layer()
            .with_ansi(ansi)
            .with_writer(std::io::stderr)
    });
    let json = json.then(|| {
        tracing_subscriber::fmt::layer()
            .with_ansi(ansi)
            .with_writer(std::io::stderr)
            .json()
            .flatten_event(true)
            .with_span_list(false)
    });
    let registry = tracing_subscriber::registry()
        .with(filter)
        .with(text)
        .with(json);
    #[cfg(feature = "otel")]
    {
        let (layer, export) = if otel_wanted() {
            Some(otel::layer()?)
        } else {
            None
        }
        .unzip();
        registry.with(layer).init();
        if export.is_some() {
            tracing::info!("OpenTelemetry: exporting spans over OTLP/HTTP");
        }
        Ok(Telemetry { export })
    }
    #[cfg(not(feature = "otel"))]
    {
        registry.init();
        if otel_wanted() {
            tracing::warn!(
                "OTEL_EXPORTER_OTLP_ENDPOINT is set, but this build of linkpath has no \
                 OpenTelemetry export (built without the `otel` feature): no spans are sent"
            );
        }
        Ok(Telemetry {})
    }
}

/// Whether an OTLP endpoint is set (an empty value counts as unset): it
/// turns the span export on, or in a build without it, a warning.
fn otel_wanted() -> bool {
    [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
}

fn serve(mut config: Config) -> Result<ExitCode, Failure> {
    if let Err(message) = config.validate() {
        eprintln!("linkpath: {message}");
        return Ok(ExitCode::from(USAGE));
    }
    let telemetry = init_tracing(config.log_format == "json")?;
    let background_purge = purge_in_background();
    // A relative store file (the default's) is in the folder the server
    // starts in: opened, and logged, by its absolute path, so an operator
    // can find the games.
    if let StoreSpec::File(path) = &mut config.games.store {
        *path = std::path::absolute(&*path)
            .map_err(|e| format!("finding the store file {}: {e}", path.display()))?;
    }
    let store = config.games.store.to_string();
    // The archive likewise; by default it follows the store (a file
    // beside the store file).
    let mut archive = config.archive.spec(&config.games.store);
    if let Some(ArchiveSpec::File(path)) = &mut archive {
        *path = std::path::absolute(&*path)
            .map_err(|e| format!("finding the archive file {}: {e}", path.display()))?;
    }
    config.archive.archive.clone_from(&archive);
    let archive = archive.map_or_else(|| "none".to_owned(), |spec| spec.to_string());
    let memory_budget = config.memory_budget();
    let workers = config.workers();
    // Opened before serving: a store that cannot open (locked by another
    // process, not a store) stops the start with its reason.
    let state = AppState::open(config).map_err(|e| format!("opening the game store: {e}"))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let result = runtime.block_on(async {
        // A file archive that cannot open stops the start with its
        // reason; a PostgreSQL not reachable yet is tried again while
        // serving.
        state
            .open_archive()
            .await
            .map_err(|e| std::io::Error::other(format!("opening the archive: {e}")))?;
        let config = state.config.clone();
        let listener = linkpath_server::bind(config.listen, config.listen_backlog)?;
        let admin = match config.admin_listen {
            Some(address) => {
                let admin = linkpath_server::bind(address, config.listen_backlog)?;
                tracing::info!(listen = %admin.local_addr()?, "admin listener for /healthz, /readyz and /metrics");
                Some(admin)
            }
            None => None,
        };
        tracing::info!(
            listen = %listener.local_addr()?,
            memory_budget_bytes = memory_budget,
            workers,
            store,
            archive,
            background_purge,
            "linkpath serving"
        );
        linkpath_server::run_with_admin(
            listener,
            admin,
            state,
            linkpath_server::shutdown_signal(),
        )
        .await
    });
    // Blocking solves that outlived the drain are stopped by their deadline.
    runtime.shutdown_timeout(Duration::from_secs(1));
    if let Err(e) = &result {
        tracing::error!(error = %e, "linkpath: serving failed");
    }
    telemetry.shutdown();
    result?;
    Ok(ExitCode::SUCCESS)
}

/// Turns on jemalloc's background threads, so that freed pages go back to
/// the system about ten seconds after the last big request (jemalloc's
/// default decay) even when no request follows to trigger the purge. The
/// judge and solve commands end too soon to need it. Returns whether they
/// run.
#[cfg(not(target_env = "msvc"))]
fn purge_in_background() -> bool {
    tikv_jemalloc_ctl::background_thread::write(true)
        .inspect_err(|e| {
            tracing::warn!(error = %e, "jemalloc's background purge is off: memory may stay high after big requests");
        })
        .is_ok()
}

#[cfg(target_env = "msvc")]
fn purge_in_background() -> bool {
    false
}

fn read_input(file: Option<&PathBuf>) -> std::io::Result<Vec<u8>> {
    match file {
        Some(path) if path.as_os_str() != "-" => std::fs::read(path),
        _ => read_stdin(),
    }
}

/// Reads all of standard input. A redirected file is read through a `File`
/// on the same descriptor, which allocates what is left of the file at
/// once instead of doubling a buffer (every copy touches fresh pages);
/// anything else (a pipe, a terminal) reads as `Stdin` does.
fn read_stdin() -> std::io::Result<Vec<u8>> {
    let mut input = Vec::new();
    #[cfg(unix)]
    if let Ok(fd) = std::os::fd::AsFd::as_fd(&std::io::stdin()).try_clone_to_owned() {
        let mut file = std::fs::File::from(fd);
        if file.metadata().is_ok_and(|m| m.is_file()) {
            file.read_to_end(&mut input)?;
            return Ok(input);
        }
    }
    std::io::stdin().lock().read_to_end(&mut input)?;
    Ok(input)
}

/// Writes to stdout; a closed pipe is not an error.
fn print(bytes: &[u8]) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("linkpath: writing stdout: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Reads a request body for `solve` or `render` within its size limit;
/// the error is the command's message.
fn read_body(file: Option<&PathBuf>, limits: &RequestLimits) -> Result<Vec<u8>, String> {
    let body = read_input(file).map_err(|e| format!("reading the request: {e}"))?;
    if body.len() > limits.max_body_bytes {
        return Err(format!(
            "the body is {} bytes, over the limit of {} (--max-body-bytes)",
            body.len(),
            limits.max_body_bytes
        ));
    }
    Ok(body)
}

fn solve(file: Option<PathBuf>, limits: &RequestLimits) -> Result<ExitCode, Failure> {
    let body = match read_body(file.as_ref(), limits) {
        Ok(body) => body,
        Err(e) => {
            eprintln!("linkpath solve: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let stop = Stop::never().with_deadline(Instant::now() + limits.solve_timeout());
    // `max_moves` and `max_render_cells` do not apply to a solve.
    let wire = limits.limits(1, 0);
    match linkpath_api::solve_body(&body, &wire, &stop) {
        Ok(mut json) => {
            json.push(b'\n');
            Ok(print(&json))
        }
        Err(e) => {
            let mut json = serde_json::to_vec(&e.body()).unwrap_or_default();
            json.push(b'\n');
            let _ = print(&json);
            eprintln!("linkpath solve: {e}");
            Ok(ExitCode::from(2))
        }
    }
}

fn render(
    file: Option<PathBuf>,
    limits: &RequestLimits,
    max_render_cells: usize,
) -> Result<ExitCode, Failure> {
    let body = match read_body(file.as_ref(), limits) {
        Ok(body) => body,
        Err(e) => {
            eprintln!("linkpath render: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let stop = Stop::never().with_deadline(Instant::now() + limits.solve_timeout());
    let wire = limits.limits(1, max_render_cells);
    match linkpath_api::render_body(&body, &wire, &stop) {
        Ok(svg) => Ok(print(svg.as_bytes())),
        Err(e) => {
            eprintln!("linkpath render: {e}");
            Ok(ExitCode::from(2))
        }
    }
}

fn run_judge(format: Format) -> Result<ExitCode, Failure> {
    let input = match read_input(None) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("linkpath judge: reading stdin: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    match judge::run(format, &input) {
        Ok(output) => Ok(print(output.as_bytes())),
        Err(e) => {
            eprintln!("linkpath judge {}: {e}", format.name());
            Ok(ExitCode::from(2))
        }
    }
}
