//! `wasm-connect plugins list|inspect|test|new|keygen|sign|verify`: what the worker would
//! load from a plugin path, everything one component says about itself, the conformance
//! checks of one component (in `plugin_test`), new plugin projects (in `scaffold`), and
//! plugin signatures (in `signing`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use super::table;
use crate::model::PluginKind;
use crate::runtime::{CONTRACT, CacheOutcome, Plugin, Runtime, Trust};

/// `plugins` subcommands.
#[derive(Debug, Subcommand)]
pub enum PluginsCommand {
    /// List the plugins found under a plugin path.
    List {
        /// Directories (or files) to search for `.wasm` plugins.
        #[arg(long = "plugin-path", required = true, value_delimiter = ',')]
        plugin_path: Vec<PathBuf>,
        /// List only plugins signed by one of these keys (a PEM file or a base64 key), as
        /// a worker with `plugin.signature.required=true` loads them; repeatable.
        #[arg(long = "trusted-key")]
        trusted_keys: Vec<String>,
    },
    /// Show one plugin's world, config definition and imports.
    Inspect {
        /// The `.wasm` file.
        file: PathBuf,
    },
    /// Write a new plugin project: WIT, SDK, a working connector, a test and a README.
    New(super::scaffold::NewArgs),
    /// Write a new Ed25519 key pair for signing plugins: `<OUT>.key` and `<OUT>.pub`.
    Keygen(super::signing::KeygenArgs),
    /// Sign plugins: write `<file>.sig` beside each `.wasm` file.
    Sign(super::signing::SignArgs),
    /// Check plugins' signatures against trusted keys, one line per file. Exits 1 if any
    /// file is unsigned, wrongly signed or signed by an untrusted key.
    Verify(super::signing::VerifyArgs),
    /// Run conformance checks against one plugin and print a pass/fail table. Exits 1
    /// if a check failed, 2 if the file or config cannot be used.
    Test {
        /// The `.wasm` file.
        file: PathBuf,
        /// A connector config (`.json` or `.properties`, as `standalone` reads them) with
        /// values for the plugin's required keys. Without it the definition's defaults
        /// are used.
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

impl PluginsCommand {
    /// The keys the runtime must require signatures by: `list --trusted-key`'s, if any.
    pub fn trust(&self) -> anyhow::Result<Option<Trust>> {
        match self {
            Self::List { trusted_keys, .. } if !trusted_keys.is_empty() => {
                Trust::from_entries(trusted_keys).map(Some).map_err(anyhow::Error::msg)
            }
            _ => Ok(None),
        }
    }

    /// Runs the subcommand.
    pub async fn run(self, runtime: &Runtime) -> anyhow::Result<ExitCode> {
        match self {
            Self::List { plugin_path, .. } => {
                let found = runtime.discover(&plugin_path).await;
                let rows: Vec<Vec<String>> = found
                    .plugins
                    .iter()
                    .map(|p| {
                        let i = p.info();
                        vec![
                            i.name.clone(),
                            i.version.clone(),
                            i.kind.to_string(),
                            i.language.to_string(),
                            i.file.display().to_string(),
                            join_or_none(&i.capabilities()),
                        ]
                    })
                    .collect();
                print!(
                    "{}",
                    table::render(
                        &["NAME", "VERSION", "KIND", "LANGUAGE", "FILE", "CAPABILITIES"],
                        &rows
                    )
                );
                for f in &found.failures {
                    eprintln!("skipped {f}");
                }
                for r in &found.repeats {
                    eprintln!("skipped {r}");
                }
                Ok(if found.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) })
            }
            Self::New(args) => args.run(),
            Self::Keygen(args) => args.run(),
            Self::Sign(args) => args.run(),
            Self::Verify(args) => args.run(),
            Self::Inspect { file } => match runtime.load(&file).await {
                Ok(plugin) => {
                    print!("{}", inspect(&plugin));
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(ExitCode::FAILURE)
                }
            },
            Self::Test { file, config } => {
                Ok(super::plugin_test::run(runtime, &file, config.as_deref()).await)
            }
        }
    }
}

fn join_or_none(items: &[String]) -> String {
    if items.is_empty() { "none".into() } else { items.join(", ") }
}

/// The text `plugins inspect` prints.
fn inspect(plugin: &Plugin) -> String {
    let i = plugin.info();
    let (package, version) = CONTRACT.split_once('@').unwrap_or((CONTRACT, ""));
    let world = match i.kind {
        PluginKind::Source => "source-connector",
        PluginKind::Sink => "sink-connector",
        PluginKind::Transform => "transform",
    };
    let mut out = String::new();
    out.push_str(&format!("file:         {}\n", i.file.display()));
    out.push_str(&format!("sha256:       {}\n", i.digest));
    out.push_str(&format!("world:        {package}/{world}@{version}\n"));
    out.push_str(&format!("name:         {}\n", i.name));
    out.push_str(&format!("version:      {}\n", i.version));
    out.push_str(&format!("kind:         {}\n", i.kind));
    out.push_str(&format!("language:     {}\n", i.language));
    out.push_str(&format!(
        "compiled:     {}\n",
        match plugin.cache_outcome() {
            CacheOutcome::Hit => "loaded from the cache",
            CacheOutcome::Compiled => "compiled now",
        }
    ));
    out.push_str(&format!(
        "capabilities: {}\n\nconfig definition:\n",
        join_or_none(&i.capabilities())
    ));
    let rows: Vec<Vec<String>> = i
        .config_def
        .keys
        .iter()
        .map(|k| {
            vec![
                k.name.clone(),
                k.ty.to_string(),
                k.default_value.clone().unwrap_or_else(|| "-".into()),
                if k.required { "yes" } else { "no" }.into(),
                k.importance.to_string(),
                k.grant.map(|g| g.to_string()).unwrap_or_else(|| "-".into()),
                k.documentation.clone(),
            ]
        })
        .collect();
    out.push_str(&table::render(
        &["NAME", "TYPE", "DEFAULT", "REQUIRED", "IMPORTANCE", "GRANT", "DOCUMENTATION"],
        &rows,
    ));
    out.push_str("\nimports:\n");
    for name in &i.imports {
        out.push_str(&format!("  {name}\n"));
    }
    out
}
