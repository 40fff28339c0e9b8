//! The `linkpath` command: the judge formats on the command line.

use clap::{Parser, Subcommand};
use linkpath::judge::{self, Format};
use std::io::{Read, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(version, about = "Answers tile-connection puzzles")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Reads a judge input on stdin and prints the judge's expected output.
    Judge {
        /// mahjong, poj1101, hdu1175 or poj3009.
        format: Format,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Judge { format } => run_judge(format),
    }
}

fn run_judge(format: Format) -> ExitCode {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut input) {
        eprintln!("linkpath judge: reading stdin: {e}");
        return ExitCode::from(2);
    }
    match judge::run(format, &input) {
        Ok(output) => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(output.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("linkpath judge: writing stdout: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(e) => {
            eprintln!("linkpath judge {}: {e}", format.name());
            ExitCode::from(2)
        }
    }
}
