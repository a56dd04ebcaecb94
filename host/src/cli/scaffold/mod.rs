//! `wasm-connect plugins new NAME --lang rust|python|js --kind source|sink|transform`: writes a
//! ready-to-build plugin project (the WIT contract, the SDK dependency, a working
//! connector, a unit test and a README) into a new directory.
//!
//! This module owns the command's arguments and the writing of files. It never overwrites:
//! a directory that exists and is not empty is refused before anything is written.
//!
//! Layout: this file (the command), `template` (the templates and their rules), `names`
//! (the name rules).

mod names;
mod template;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};

pub use names::ProjectNames;

/// The language of a new plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// Rust, with the `wasm-connect-sdk` crate (`wasm32-wasip2`).
    Rust,
    /// Python, with the `wasm_connect` package, built by componentize-py.
    Python,
    /// JavaScript (ES modules), with the `wasm-connect-sdk` package, built by
    /// componentize-js.
    Js,
}

impl Lang {
    fn dir(self) -> &'static str {
        match self {
            Self::Rust => "rust",
            Self::Python => "python",
            Self::Js => "js",
        }
    }

    /// The commands that test, build and check a new project, for the closing message.
    fn next_steps(self, names: &ProjectNames) -> Vec<String> {
        match self {
            Self::Rust => vec![
                "cargo test".into(),
                "cargo build --release --target wasm32-wasip2".into(),
                format!(
                    "mkdir -p plugins && cp target/wasm32-wasip2/release/{}.wasm plugins/",
                    names.snake
                ),
                check(names),
            ],
            Self::Python => vec![
                "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt".into(),
                ".venv/bin/python -m pytest -q".into(),
                "PATH=.venv/bin:$PATH sh build.sh".into(),
                check(names),
            ],
            Self::Js => {
                vec!["npm install".into(), "npm test".into(), "npm run build".into(), check(names)]
            }
        }
    }
}

/// The conformance check of a project's component.
fn check(names: &ProjectNames) -> String {
    format!("wasm-connect plugins test plugins/{}.wasm --config connector.properties", names.snake)
}

/// The kind of a new plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// Reads an outside system and produces to Kafka.
    Source,
    /// Consumes from Kafka and writes to an outside system.
    Sink,
    /// Changes, routes or drops records on their way (a single message transform).
    Transform,
}

impl Kind {
    fn dir(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Sink => "sink",
            Self::Transform => "transform",
        }
    }
}

/// `plugins new` arguments.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The project name: lowercase words joined by `-` (e.g. `orders-source`). The
    /// plugin's `connector.class` is its capitalised form (`OrdersSource`).
    name: String,
    /// The language to write the plugin in.
    #[arg(long, value_enum)]
    lang: Lang,
    /// Whether the plugin is a source or a sink connector, or a transform.
    #[arg(long, value_enum)]
    kind: Kind,
    /// Where to write the project; defaults to `./NAME`. Must not exist or be empty.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The Rust SDK crate (`plugins/sdk` of a wasm-connect checkout) that a Rust project
    /// depends on by path. Defaults to the checkout this binary was built from.
    #[arg(long, env = "WASM_CONNECT_SDK")]
    sdk: Option<PathBuf>,
}

/// The Rust SDK of the checkout this binary was built from.
const BUILT_FROM_SDK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../plugins/sdk");

impl NewArgs {
    /// Writes the project; one line on stderr and a failure status when it cannot.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self.write() {
            Ok(message) => {
                print!("{message}");
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                eprintln!("error: {e:#}");
                Ok(ExitCode::FAILURE)
            }
        }
    }

    fn write(self) -> anyhow::Result<String> {
        let names = ProjectNames::parse(&self.name)?;
        let dir = self.dir.unwrap_or_else(|| PathBuf::from(&names.name));
        refuse_non_empty(&dir)?;
        let sdk_path = match self.lang {
            Lang::Rust => rust_sdk(self.sdk)?,
            // The SDK is copied into the project.
            Lang::Python | Lang::Js => PathBuf::new(),
        };
        let values = template::Values { names: &names, sdk_path: &sdk_path };
        let files = template::render(self.lang, self.kind, &values);
        for file in &files {
            let path = dir.join(&file.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::write(&path, &file.contents)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let mut message = format!(
            "Wrote {} {} plugin `{}` ({} files) to {}. Next:\n  cd {}\n",
            self.lang.dir(),
            self.kind.dir(),
            names.class,
            files.len(),
            dir.display(),
            dir.display(),
        );
        for step in self.lang.next_steps(&names) {
            message.push_str(&format!("  {step}\n"));
        }
        message.push_str("README.md tells how to run it in a worker.\n");
        Ok(message)
    }
}

/// Fails unless `dir` is missing or an empty directory.
fn refuse_non_empty(dir: &Path) -> anyhow::Result<()> {
    match std::fs::read_dir(dir) {
        Ok(entries) => match entries.count() {
            0 => Ok(()),
            _ => anyhow::bail!("{} exists and is not empty; choose another --dir", dir.display()),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            anyhow::bail!("{} exists and is not a directory", dir.display())
        }
        Err(e) => Err(e).with_context(|| format!("cannot read {}", dir.display())),
    }
}

/// The Rust SDK directory a project depends on, made absolute.
fn rust_sdk(given: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let sdk = given.unwrap_or_else(|| PathBuf::from(BUILT_FROM_SDK));
    let manifest = sdk.join("Cargo.toml");
    let is_sdk = std::fs::read_to_string(&manifest)
        .map(|m| m.contains("name = \"wasm-connect-sdk\""))
        .unwrap_or(false);
    if !is_sdk {
        anyhow::bail!(
            "{} is not the wasm-connect Rust SDK (plugins/sdk of a wasm-connect checkout); \
             pass --sdk PATH",
            sdk.display()
        );
    }
    Ok(std::fs::canonicalize(&sdk)?)
}
