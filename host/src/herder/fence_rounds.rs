//! [`FenceRounds`]: the zombie fencing rounds (KIP-618) this worker asked for, per
//! connector, so that the tasks it holds back ask once per task-config generation, and wait
//! for the task-count record after a round succeeded instead of asking again. Pure
//! bookkeeping: it sends nothing and decides nothing about who fences (`fence_gate`).

use std::collections::BTreeMap;

/// Where one connector's round stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Round {
    /// Asked for, not answered yet.
    Asked { generation: u64 },
    /// Succeeded: the task-count record is written, not read here yet.
    Done { generation: u64 },
}

/// Why a round failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum RoundError {
    /// Task configs of a newer generation came first: that generation asks its own round.
    NewGeneration,
    /// The fencing or the task-count record failed: why.
    Failed(String),
}

/// The rounds asked for, by connector.
#[derive(Debug, Default)]
pub(super) struct FenceRounds {
    rounds: BTreeMap<String, Round>,
}

impl FenceRounds {
    /// Whether a round must be asked for `connector`'s task-config `generation`: none was
    /// for this generation, or the last one failed.
    pub fn wanted(&self, connector: &str, generation: u64) -> bool {
        match self.rounds.get(connector) {
            None => true,
            Some(Round::Asked { generation: g } | Round::Done { generation: g }) => {
                *g != generation
            }
        }
    }

    /// A round was asked for `generation`.
    pub fn asked(&mut self, connector: &str, generation: u64) {
        self.rounds.insert(connector.to_owned(), Round::Asked { generation });
    }

    /// The round for `generation` succeeded; an answer to an older round is ignored.
    pub fn done(&mut self, connector: &str, generation: u64) {
        if let Some(round) = self.rounds.get_mut(connector)
            && *round == (Round::Asked { generation })
        {
            *round = Round::Done { generation };
        }
    }

    /// Forgets `connector`'s round: it failed, or the task-count record was read.
    pub fn forget(&mut self, connector: &str) {
        self.rounds.remove(connector);
    }

    /// Whether the round for `generation` is the one asked for (its answer is current).
    pub fn is_current(&self, connector: &str, generation: u64) -> bool {
        self.rounds.get(connector) == Some(&Round::Asked { generation })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_round_per_generation_and_none_after_success_until_forgotten() {
        let mut r = FenceRounds::default();
        assert!(r.wanted("c", 1));
        r.asked("c", 1);
        assert!(!r.wanted("c", 1), "asked already");
        assert!(r.is_current("c", 1));
        r.done("c", 1);
        assert!(!r.wanted("c", 1), "done: the record is on its way");
        assert!(!r.is_current("c", 1));
        assert!(r.wanted("c", 2), "a new generation asks again");
        r.forget("c");
        assert!(r.wanted("c", 1));
        assert!(r.wanted("other", 1));
    }

    #[test]
    fn an_answer_for_an_older_round_is_not_current() {
        let mut r = FenceRounds::default();
        r.asked("c", 1);
        r.asked("c", 2);
        assert!(!r.is_current("c", 1));
        r.done("c", 1);
        assert!(r.wanted("c", 3) && !r.wanted("c", 2), "still asked for 2");
        assert!(r.is_current("c", 2));
    }
}
