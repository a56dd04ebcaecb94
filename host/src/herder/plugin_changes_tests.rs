//! A connector whose plugin the loading plugin path might still hold waits for it, and
//! starts (here: fails, the fake registry having no plugin) once the scan is done.

use super::super::harness::{Harness, connector};
use super::super::runner::fake::Call;
use crate::model::State;
use crate::worker::{PluginRegistry, PluginsScanned, RescanReport};

fn started(calls: &[Call]) -> Vec<String> {
    calls
        .iter()
        .filter_map(|c| if let Call::Start(id) = c { Some(id.to_string()) } else { None })
        .collect()
}

fn scanned(registry: PluginRegistry) -> PluginsScanned {
    PluginsScanned {
        registry: Some(registry),
        report: RescanReport::default(),
        waiters: Vec::new(),
    }
}

#[tokio::test(start_paused = true)]
async fn a_connector_waits_while_the_plugin_path_loads_and_starts_when_it_is_loaded() {
    let (h, scans) = Harness::start_loading().await;
    h.put("c", 1, &[]).await.unwrap();
    h.settle().await;
    assert_eq!(started(&h.take_calls()), Vec::<String>::new(), "nothing starts while loading");
    assert_eq!(h.state(&connector("c")), None, "and nothing is shown FAILED");

    // A file done, the plugin path still loading another: still waiting.
    let still = PluginRegistry::default().with_loading(Some(vec!["other.wasm".into()]));
    scans.send(scanned(still)).unwrap();
    h.settle().await;
    assert_eq!(started(&h.take_calls()), Vec::<String>::new());

    // The scan is done: the connector starts (the fake registry has no plugin, so a real
    // worker would fail it naming the installed plugins).
    scans.send(scanned(PluginRegistry::default())).unwrap();
    h.settle().await;
    let calls = started(&h.take_calls());
    assert_eq!(calls.first(), Some(&connector("c").to_string()), "{calls:?}");
    assert_eq!(h.state(&connector("c")), Some(State::Running));
}
