//! Errors of the runtime: [`LoadError`] when a `.wasm` file cannot become a plugin, and
//! [`InstanceError`] when a call into a running instance fails.
//!
//! Both render as one readable line (`Display`); [`InstanceError::trace`] adds what an
//! operator needs to find the cause: the trap kind, the guest backtrace and the last lines
//! the guest wrote to stderr. That text becomes the `trace` of a FAILED status.
//!
//! A trace is the guest's, whatever the environment says: [`guest_detail`] renders a
//! wasmtime error as its chain (the wasm backtrace is one of its links), never with the
//! host backtrace `anyhow` captures when `RUST_BACKTRACE` or `RUST_LIB_BACKTRACE` is set.
//! Rendering that one would put the worker's own frames and build paths into REST
//! statuses, and resolving its symbols loads the binary's debug info for good (hundreds
//! of MB of memory from the first trap on).

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::model::ConnectorError;

/// Why a file could not be loaded as a plugin.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The path leads (links followed) to something other than a regular file: a
    /// device, a FIFO, a socket. It is never opened for reading.
    #[error("{}: {kind}, not a regular file: a plugin must be a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
    /// The file is larger than the worker accepts.
    #[error("{}: {size} bytes is over the limit of {limit} bytes for a plugin", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The bytes are not a valid WebAssembly component.
    #[error("{}: not a WebAssembly component: {reason}", path.display())]
    NotAComponent {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A second file with a plugin name and version another file already has (KIP-891:
    /// versions of one plugin live side by side, but a version is one file): the first
    /// file (in path order) keeps it.
    #[error("{}: plugin {name} version {version} is already installed from {}", path.display(), first.display())]
    DuplicateName {
        /// The file skipped.
        path: PathBuf,
        /// The name both files declare.
        name: String,
        /// The version both files declare.
        version: String,
        /// The file that keeps the name.
        first: PathBuf,
    },
    /// Signatures are required and the file has no signature file beside it.
    #[error("{}: refused: not signed (no {})", path.display(), signature.display())]
    Unsigned {
        /// The file.
        path: PathBuf,
        /// Where its signature was looked for.
        signature: PathBuf,
    },
    /// The signature file cannot be read or is not one.
    #[error("{}: refused: its signature file cannot be used: {reason}", path.display())]
    MalformedSignature {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file is signed by a key that `plugin.trusted.keys` does not list.
    #[error("{}: refused: signed by key {key}, which is not in plugin.trusted.keys", path.display())]
    UntrustedSigner {
        /// The file.
        path: PathBuf,
        /// The signer's public key (base64).
        key: String,
    },
    /// The signature is not a valid signature of its digest by its key: forged, or made
    /// with another key.
    #[error("{}: refused: the signature is not valid for key {key}", path.display())]
    BadSignature {
        /// The file.
        path: PathBuf,
        /// The key the signature file names (base64).
        key: String,
    },
    /// The signature is valid, but for other bytes: the file changed after it was signed.
    #[error("{}: refused: the file changed after it was signed (its SHA-256 is {actual}, the signature is for {signed})", path.display())]
    Modified {
        /// The file.
        path: PathBuf,
        /// The digest that was signed (hex).
        signed: String,
        /// The file's digest (hex).
        actual: String,
    },
    /// A component, but not one implementing a wasm-connect world.
    #[error("{}: not a wasm-connect plugin: {reason}", path.display())]
    WrongWorld {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The plugin failed while describing itself (name, version, config definition).
    #[error("{}: the plugin failed to describe itself: {source}", path.display())]
    Describe {
        /// The file.
        path: PathBuf,
        /// The instance failure.
        source: InstanceError,
    },
}

impl LoadError {
    /// The refusal of `path`, which is a `file_type` and not a regular file.
    pub(super) fn not_a_file(path: &std::path::Path, file_type: std::fs::FileType) -> Self {
        use std::os::unix::fs::FileTypeExt;
        let kind = if file_type.is_char_device() {
            "a character device"
        } else if file_type.is_block_device() {
            "a block device"
        } else if file_type.is_fifo() {
            "a FIFO"
        } else if file_type.is_socket() {
            "a socket"
        } else if file_type.is_dir() {
            "a directory"
        } else {
            "something else"
        };
        Self::NotAFile { path: path.to_path_buf(), kind }
    }
}

/// The kind of a trap, as an operator reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrapKind {
    /// `unreachable` executed: a Rust panic or abort, an uncaught Python or JS exception.
    Unreachable,
    /// The call ran past its CPU deadline.
    Deadline,
    /// The wasm stack overflowed.
    StackOverflow,
    /// A memory or table grow was refused by the instance's cap, and the guest trapped.
    LimitExceeded(String),
    /// Any other trap (out-of-bounds access, division by zero, …).
    Other(String),
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unreachable => f.write_str("guest panicked (wasm `unreachable`)"),
            Self::Deadline => f.write_str("CPU deadline exceeded"),
            Self::StackOverflow => f.write_str("stack overflow"),
            Self::LimitExceeded(what) => write!(f, "{what}"),
            Self::Other(what) => write!(f, "{what}"),
        }
    }
}

/// Why a call into an instance failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum InstanceError {
    /// The guest returned an error value. The instance is still usable.
    #[error(transparent)]
    Connector(#[from] ConnectorError),
    /// The guest trapped. The instance is discarded.
    #[error("{call} trapped: {kind}")]
    Trap {
        /// The WIT function.
        call: &'static str,
        /// The trap kind.
        kind: TrapKind,
        /// wasmtime's error with the guest backtrace.
        detail: String,
        /// The last lines of the guest's stderr.
        stderr: Vec<String>,
    },
    /// The call did not return in time (a host-side wait). The instance is discarded.
    #[error("{call} did not return within {after:?}")]
    Timeout {
        /// The WIT function.
        call: &'static str,
        /// The wall-clock bound.
        after: Duration,
        /// The last lines of the guest's stderr.
        stderr: Vec<String>,
    },
    /// The guest returned more than the instance is allowed to. It is discarded.
    #[error("{call} returned {what}")]
    Oversized {
        /// The WIT function.
        call: &'static str,
        /// What was too much.
        what: String,
    },
    /// The guest returned a malformed record batch. The instance is discarded.
    #[error("{call} returned a malformed record batch: {reason}")]
    Malformed {
        /// The WIT function.
        call: &'static str,
        /// The decoder's reason.
        reason: String,
    },
    /// The instance failed before and was discarded; no call reaches it any more.
    #[error("the instance was discarded after an earlier failure: {0}")]
    Discarded(String),
    /// The instance could not be created (grants, instantiation, start-up trap).
    #[error("cannot create the instance: {0}")]
    Instantiate(String),
}

impl InstanceError {
    /// Whether the instance is gone after this error (everything but a guest error value).
    pub fn is_fatal_to_instance(&self) -> bool {
        !matches!(self, Self::Connector(_))
    }

    /// A multi-line trace for a FAILED status: the error, the guest backtrace and the
    /// tail of the guest's stderr.
    pub fn trace(&self) -> String {
        match self {
            Self::Trap { detail, stderr, .. } => with_stderr(format!("{self}\n{detail}"), stderr),
            Self::Timeout { stderr, .. } => with_stderr(self.to_string(), stderr),
            other => other.to_string(),
        }
    }
}

/// `e` as its chain of causes, each on its lines (the wasm backtrace is one of them), the
/// way `anyhow` prints an error without its backtrace: the top error, then `Caused by:`
/// and the numbered causes. The host backtrace is never rendered, so never resolved.
pub(super) fn guest_detail(e: &wasmtime::Error) -> String {
    let mut out = e.to_string();
    let causes: Vec<String> = e.chain().skip(1).map(ToString::to_string).collect();
    if !causes.is_empty() {
        out.push_str("\n\nCaused by:");
        for (i, cause) in causes.iter().enumerate() {
            let mut lines = cause.lines();
            out.push_str(&format!("\n    {i}: {}", lines.next().unwrap_or_default()));
            for line in lines {
                out.push_str("\n       ");
                out.push_str(line);
            }
        }
    }
    out
}

/// `trace` followed by the tail of the guest's stderr, if it wrote any.
fn with_stderr(mut trace: String, stderr: &[String]) -> String {
    if !stderr.is_empty() {
        trace.push_str("\nguest stderr (last lines):\n");
        for line in stderr {
            trace.push_str("  ");
            trace.push_str(line);
            trace.push('\n');
        }
    }
    trace
}
