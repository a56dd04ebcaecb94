//! Why a worker config could not be built: the file could not be read, or one or more keys
//! are missing, unknown or invalid. Every problem names its key.

use std::fmt;
use std::path::PathBuf;

use crate::config::properties::PropertiesError;
use crate::model::ConfigProblem;

/// Why [`WorkerConfig`](super::WorkerConfig) could not be built.
#[derive(Debug, thiserror::Error)]
pub enum WorkerConfigError {
    /// The properties file could not be read or parsed.
    #[error(transparent)]
    Read(#[from] PropertiesError),
    /// The keys are wrong: every problem found, not only the first.
    #[error("{}", InvalidDisplay { file: file.as_ref(), problems })]
    Invalid {
        /// The file the keys came from, when there was one.
        file: Option<PathBuf>,
        /// One entry per missing, unknown or invalid key, in the order found.
        problems: Vec<ConfigProblem>,
    },
}

impl WorkerConfigError {
    /// The key problems (empty for a read error).
    pub fn problems(&self) -> &[ConfigProblem] {
        match self {
            Self::Read(_) => &[],
            Self::Invalid { problems, .. } => problems,
        }
    }
}

/// Renders `file: invalid worker config:` and one indented `key: message` line per
/// problem, so the CLI can print the error as is.
struct InvalidDisplay<'a> {
    file: Option<&'a PathBuf>,
    problems: &'a [ConfigProblem],
}

impl fmt::Display for InvalidDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = self.file {
            write!(f, "{}: ", file.display())?;
        }
        f.write_str("invalid worker config:")?;
        for p in self.problems {
            write!(f, "\n  {}: {}", p.key, p.message)?;
        }
        Ok(())
    }
}
