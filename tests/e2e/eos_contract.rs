//! The exactly-once part of the contract (KIP-618, WIT 0.1.2) driven through the runtime:
//! a component built against 0.1.1 still loads and cannot say (Kafka Connect's `null`),
//! the first-party sources answer `supported`, and a task's transaction requests come
//! back after `poll`, checked as Kafka Connect's `WorkerTransactionContext` checks them.

use std::sync::Arc;

use wasm_connect::model::{
    ConnectorError, ConnectorSupport, TransactionAction::Abort, TransactionAction::Commit,
};
use wasm_connect::runtime::{Identity, InstanceError, InstanceHost};

use crate::support::{cfg, component, connector, fixture, no_host, root, runtime, task};

/// A worker that honours transaction requests (exactly-once on, `transaction.boundary=
/// connector`).
struct Transactional;

impl InstanceHost for Transactional {
    fn transaction_context_active(&self, _ident: &Identity) -> bool {
        true
    }
}

#[tokio::test]
async fn a_component_built_against_contract_0_1_1_loads_and_cannot_say() {
    // Built before 0.1.2 added the exactly-once interfaces; checked in, never rebuilt.
    let old = root().join("tests/fixtures/file-source-contract-0.1.1.wasm");
    let plugin = runtime().load(&old).await.expect("a 0.1.1 component loads");
    let imports = &plugin.info().imports;
    assert!(imports.iter().any(|i| i == "wasm-connect:connector/host@0.1.1"), "{imports:?}");
    assert!(!imports.iter().any(|i| i.contains("transaction-context")), "{imports:?}");
    let config = cfg(&[("file", "in.txt"), ("topic", "t")]);
    let validator = plugin.validator().await.unwrap();
    assert_eq!(
        validator.exactly_once_support(config.clone()).await.unwrap(),
        ConnectorSupport::Unknown
    );
    assert!(!validator.can_define_transaction_boundaries(config.clone()).await.unwrap());
    // The same connector built against 0.1.2 answers.
    let new = runtime().load(component("plugins", "file-source")).await.unwrap();
    let validator = new.validator().await.unwrap();
    assert_eq!(validator.exactly_once_support(config).await.unwrap(), ConnectorSupport::Supported);
}

#[tokio::test]
async fn first_party_sources_and_the_test_plugin_answer() {
    let datagen = connector("datagen").await.validator().await.unwrap();
    let config = cfg(&[("topic", "t")]);
    assert_eq!(
        datagen.exactly_once_support(config.clone()).await.unwrap(),
        ConnectorSupport::Supported
    );
    assert!(!datagen.can_define_transaction_boundaries(config).await.unwrap());

    let chaos = fixture("chaos-source").await.validator().await.unwrap();
    let ask = async |support: &str, boundaries: &str| {
        let config = cfg(&[
            ("chaos.exactly.once.support", support),
            ("chaos.transaction.boundaries", boundaries),
        ]);
        let support = chaos.exactly_once_support(config.clone()).await.unwrap();
        (support, chaos.can_define_transaction_boundaries(config).await.unwrap())
    };
    assert_eq!(ask("supported", "true").await, (ConnectorSupport::Supported, true));
    assert_eq!(ask("unsupported", "false").await, (ConnectorSupport::Unsupported, false));
    assert_eq!(ask("", "no").await, (ConnectorSupport::Unknown, false));
}

#[tokio::test]
async fn transaction_requests_come_back_after_the_poll_they_were_made_in() {
    let plugin = fixture("chaos-source").await;
    let config = cfg(&[("batch.size", "3"), ("chaos.transaction.requests", "commit,abort@1")]);
    let host: Arc<dyn InstanceHost> = Arc::new(Transactional);
    let t = plugin.source_task(task("tx"), &config, host).await.unwrap();
    t.start(config.clone()).await.unwrap();
    let records = t.poll(10).await.unwrap();
    assert_eq!(records.len(), 3);
    let requests = t.take_transaction_requests(records.len()).await.unwrap();
    assert_eq!(requests.batch, Some(Commit));
    assert_eq!(requests.records, vec![(1, Abort)]);
    assert!(t.take_transaction_requests(0).await.unwrap().is_empty(), "taking clears them");

    // Without an active context the task gets none (`transaction_context()` is `None`).
    let quiet = plugin.source_task(task("quiet"), &config, no_host()).await.unwrap();
    quiet.start(config).await.unwrap();
    let records = quiet.poll(10).await.unwrap();
    assert!(quiet.take_transaction_requests(records.len()).await.unwrap().is_empty());
}

#[tokio::test]
async fn commit_and_abort_of_one_batch_or_record_fail_the_task() {
    let plugin = fixture("chaos-source").await;
    let cases = [
        ("commit,abort", "Connector requested both commit and abort of same transaction"),
        (
            "commit@2,abort@2",
            "Connector requested both commit and abort of same record (record 2 of the batch)",
        ),
        (
            "abort@3",
            "Connector requested a transaction boundary after record 3 of a batch of 3 records",
        ),
    ];
    for (requests, message) in cases {
        let config = cfg(&[("batch.size", "3"), ("chaos.transaction.requests", requests)]);
        let t = plugin.source_task(task("tx"), &config, Arc::new(Transactional)).await.unwrap();
        t.start(config).await.unwrap();
        let records = t.poll(10).await.unwrap();
        match t.take_transaction_requests(records.len()).await {
            Err(InstanceError::Connector(ConnectorError::Fatal(m))) => assert_eq!(m, message),
            other => panic!("{requests}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn python_and_javascript_sources_export_the_answers_and_default_to_cannot_say() {
    // The examples do not answer, so the SDKs' defaults do: Kafka Connect's `null` and
    // `UNSUPPORTED`. Built against 0.1.2 (their host import says so), whose
    // source-connector world makes componentize-py and componentize-js require the export.
    for dir in ["examples/python", "examples/js"] {
        let plugin = runtime().load(component(dir, "sequence-source")).await.unwrap();
        let validator = plugin.validator().await.unwrap();
        let config = cfg(&[("topic", "t")]);
        let support = validator.exactly_once_support(config.clone()).await.unwrap();
        assert_eq!(support, ConnectorSupport::Unknown, "{dir}");
        assert!(!validator.can_define_transaction_boundaries(config).await.unwrap(), "{dir}");
        let imports = &plugin.info().imports;
        assert!(imports.iter().any(|i| i.ends_with("host@0.1.2")), "{dir}: {imports:?}");
    }
}
