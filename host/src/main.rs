//! The `wasm-connect` binary: parses the command line, sets up logging, runs the command.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = wasm_connect::cli::Cli::parse();
    wasm_connect::cli::init_logging(cli.log_format);
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(cli.run()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            // A request still blocked in a client library (a Kafka metadata request waiting
            // for a cluster that refused the credentials) must not hold the exit.
            rt.shutdown_background();
            ExitCode::FAILURE
        }
    }
}
