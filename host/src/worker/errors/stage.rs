//! Where on the data path a failure happened: Kafka Connect's `Stage` names, which appear
//! in traces, log lines and the `__connect.errors.stage` header. Names only; no behaviour.
//! Only the stages this worker reports are here (Kafka Connect also names
//! `HEADER_CONVERTER`, `KAFKA_PRODUCE` and `KAFKA_CONSUME`).

use std::fmt;

/// A step of the data path; [`Display`](fmt::Display) gives Kafka Connect's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The source plugin's `poll`.
    TaskPoll,
    /// The sink plugin's `put`.
    TaskPut,
    /// A transformation of a record.
    Transformation,
    /// Converting a record's key.
    KeyConverter,
    /// Converting a record's value.
    ValueConverter,
}

impl Stage {
    /// Kafka Connect's name, e.g. `VALUE_CONVERTER`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::TaskPoll => "TASK_POLL",
            Self::TaskPut => "TASK_PUT",
            Self::Transformation => "TRANSFORMATION",
            Self::KeyConverter => "KEY_CONVERTER",
            Self::ValueConverter => "VALUE_CONVERTER",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_display_as_kafka_names() {
        let all = [
            Stage::TaskPoll,
            Stage::TaskPut,
            Stage::Transformation,
            Stage::KeyConverter,
            Stage::ValueConverter,
        ];
        let names: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            ["TASK_POLL", "TASK_PUT", "TRANSFORMATION", "KEY_CONVERTER", "VALUE_CONVERTER",]
        );
    }
}
