//! The `linkpath` command: parse the command line, start tracing, dispatch.

use clap::{Parser, Subcommand};
use linkpath::http::{self, Config};
use linkpath::judge::{self, Format};
use linkpath::solver::Stop;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

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
        config: Box<Config>,
    },
    /// Draws one /v1/solve request body from FILE (or stdin) as an SVG
    /// picture on stdout, as POST /v1/render would.
    Render {
        /// The request body; stdin when absent or `-`.
        file: Option<PathBuf>,
        #[command(flatten)]
        config: Box<Config>,
    },
    /// Reads a judge input on stdin and prints the judge's expected output.
    Judge {
        /// mahjong, poj1101, hdu1175 or poj3009.
        format: Format,
    },
    /// Probes a running server's /healthz; exit 0 when it answers 200.
    Healthcheck {
        /// The URL to probe (http only); by default /healthz on the port of
        /// LINKPATH_LISTEN, on loopback when it listens on all addresses.
        #[arg(long, env = "LINKPATH_HEALTHCHECK_URL")]
        url: Option<String>,
        /// How long to wait for the answer, in milliseconds.
        #[arg(long, default_value_t = 2000)]
        timeout_ms: u64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => serve(*cli.serve),
        Some(Command::Serve(config)) => serve(*config),
        Some(Command::Solve { file, config }) => solve(file, &config),
        Some(Command::Render { file, config }) => render(file, &config),
        Some(Command::Judge { format }) => run_judge(format),
        Some(Command::Healthcheck { url, timeout_ms }) => {
            let url = url.unwrap_or_else(|| {
                let listen = std::env::var("LINKPATH_LISTEN").unwrap_or_default();
                linkpath::healthcheck::default_url(&listen)
            });
            match linkpath::healthcheck::probe(&url, Duration::from_millis(timeout_ms)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("linkpath healthcheck: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

fn init_tracing(json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only for a person at a terminal, not in a log file.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    if json {
        builder.json().flatten_event(true).init();
    } else {
        builder.init();
    }
}

fn serve(config: Config) -> ExitCode {
    init_tracing(config.log_format == "json");
    let background_purge = purge_in_background();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("linkpath: starting the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.listen).await?;
        tracing::info!(
            listen = %listener.local_addr()?,
            workers = config.workers(),
            background_purge,
            "linkpath serving"
        );
        let state = http::AppState::new(config);
        http::server::run(listener, state, http::server::shutdown_signal()).await
    });
    // Blocking solves that outlived the drain are stopped by their deadline.
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "linkpath: serving failed");
            eprintln!("linkpath: {e}");
            ExitCode::FAILURE
        }
    }
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

fn solve(file: Option<PathBuf>, config: &Config) -> ExitCode {
    let body = match read_input(file.as_ref()) {
        Ok(body) => body,
        Err(e) => {
            eprintln!("linkpath solve: reading the request: {e}");
            return ExitCode::from(2);
        }
    };
    if body.len() > config.max_body_bytes {
        eprintln!(
            "linkpath solve: the body is {} bytes, over the limit of {} (--max-body-bytes)",
            body.len(),
            config.max_body_bytes
        );
        return ExitCode::from(2);
    }
    let stop = Stop::never().with_deadline(Instant::now() + config.solve_timeout());
    match http::solve::solve_body(&body, &config.limits(), &stop) {
        Ok(mut json) => {
            json.push(b'\n');
            print(&json)
        }
        Err(e) => {
            let mut json = serde_json::to_vec(&e.body()).unwrap_or_default();
            json.push(b'\n');
            let _ = print(&json);
            eprintln!("linkpath solve: {e}");
            ExitCode::from(2)
        }
    }
}

fn render(file: Option<PathBuf>, config: &Config) -> ExitCode {
    let body = match read_input(file.as_ref()) {
        Ok(body) => body,
        Err(e) => {
            eprintln!("linkpath render: reading the request: {e}");
            return ExitCode::from(2);
        }
    };
    if body.len() > config.max_body_bytes {
        eprintln!(
            "linkpath render: the body is {} bytes, over the limit of {} (--max-body-bytes)",
            body.len(),
            config.max_body_bytes
        );
        return ExitCode::from(2);
    }
    let stop = Stop::never().with_deadline(Instant::now() + config.solve_timeout());
    match http::render::render_body(&body, &config.limits(), &stop) {
        Ok(svg) => print(svg.as_bytes()),
        Err(e) => {
            eprintln!("linkpath render: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_judge(format: Format) -> ExitCode {
    let input = match read_input(None) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("linkpath judge: reading stdin: {e}");
            return ExitCode::from(2);
        }
    };
    match judge::run(format, &input) {
        Ok(output) => print(output.as_bytes()),
        Err(e) => {
            eprintln!("linkpath judge {}: {e}", format.name());
            ExitCode::from(2)
        }
    }
}
