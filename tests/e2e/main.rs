//! End-to-end tests of the worker against real guest components.
//!
//! The components come from `scripts/build-guests.sh` (connectors in `build/plugins/`,
//! misbehaving fixtures in `build/fixtures/`), `scripts/build-python-guests.sh` (the
//! Python SDK's examples in `build/examples/python/`) and `scripts/build-js-guests.sh` (the
//! JavaScript SDK's examples in `build/examples/js/`); a missing file fails the test with
//! the command to run, never skips it.

#[macro_use]
mod harness;

mod backoff;
mod bounds;
mod broker;
mod cdc;
mod cli;
mod cluster;
mod cold_start;
mod compat;
mod connectors;
mod containment;
mod damaged_store;
mod data_path;
mod delivery;
mod distributed;
mod eos_boundaries;
mod eos_contract;
mod eos_fencing;
mod eos_validate;
mod exactly_once;
mod failover;
mod flow;
mod fuzz;
mod herder;
mod http_sink;
mod https;
mod js_plugins;
mod loggers;
mod offsets;
mod offsets_topic;
mod panics;
mod plugin_path;
mod plugin_signatures;
mod plugin_upgrade;
mod plugin_version_keys;
mod plugin_versions;
mod postgres;
mod providers;
mod python_plugins;
mod registry_metrics;
mod rest;
mod restart_early;
mod sandbox;
mod scaffold;
mod schema_registry;
mod secured;
mod shutdown;
mod source_path;
mod spawned;
mod standalone;
mod storm;
mod support;
mod topic_records;
mod transactional_leader;
mod transforms;
mod trap_traces;
