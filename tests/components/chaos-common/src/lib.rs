//! What the `ChaosSource` and `ChaosSink` test fixtures share: the chaos settings
//! (`settings`), the misbehaviours that trap (`misbehave`), the sandbox probes that report
//! what they could reach (`probe`), and the connector half both plugins use
//! (`connector`).
//!
//! This crate exists for host tests only. It must keep each misbehaviour real (a trap is a
//! wasm trap, a loop really spins, memory is really touched) and each probe honest (it
//! reports what the sandbox allowed, never fails the call).

mod connector;
mod misbehave;
mod probe;
mod settings;

pub use connector::ChaosConnector;
pub use misbehave::{chatter, misbehave};
pub use probe::probe;
pub use settings::{Call, Mode, Settings, keys};
