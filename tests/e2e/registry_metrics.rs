//! The Schema Registry converters' metrics against a real registry: FileStreamSource →
//! topic → FileStreamSink with an `AvroConverter` for values on both sides; `GET /metrics`
//! then counts each task's registry requests and names the subject the source registered.
//! scripts/schema-registry.sh starts a registry and prints `SCHEMA_REGISTRY_URL`; without
//! it (a bare `cargo test`) the test prints a note and passes.

use wasm_connect::app::App;
use wasm_connect::model::State;

use crate::harness::{Backing, eventually, props, t, wait_state};

/// The worker's Prometheus text.
async fn metrics(app: &App) -> String {
    let url = format!("http://{}/metrics", app.rest_addr);
    reqwest::get(url).await.unwrap().text().await.unwrap()
}

/// The value of `series` (name and labels, as rendered) in `body`.
fn sample(body: &str, series: &str) -> Option<f64> {
    let line = body.lines().find(|l| l.strip_prefix(series).is_some_and(|v| v.starts_with(' ')))?;
    line.rsplit(' ').next()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registry_requests_and_subjects_show_in_metrics() {
    let Some(registry) = std::env::var("SCHEMA_REGISTRY_URL").ok().filter(|u| !u.is_empty()) else {
        eprintln!("SCHEMA_REGISTRY_URL unset (scripts/schema-registry.sh start): skipped");
        return;
    };
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let topic = format!("registry-metrics-{nanos}");
    let (src, snk) = (format!("rm-src-{nanos}"), format!("rm-snk-{nanos}"));
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
    let want = ["first line", "second line"];
    std::fs::write(&input, want.join("\n") + "\n").unwrap();
    let app = Backing::embedded(&dir).start_with(&[("offset.flush.interval.ms", "500")]).await;
    let avro = [
        ("value.converter", "io.confluent.connect.avro.AvroConverter"),
        ("value.converter.schema.registry.url", registry.as_str()),
    ];
    let mut source = props(&[
        ("connector.class", "FileStreamSource"),
        ("file", input.to_str().unwrap()),
        ("topic", &topic),
    ]);
    source.extend(props(&avro));
    let mut sink = props(&[
        ("connector.class", "FileStreamSink"),
        ("file", output.to_str().unwrap()),
        ("topics", &topic),
    ]);
    sink.extend(props(&avro));
    app.herder.put_connector_config(&src, source, None, false).await.unwrap();
    app.herder.put_connector_config(&snk, sink, None, false).await.unwrap();
    wait_state(&app, t(&src, 0), State::Running).await;
    wait_state(&app, t(&snk, 0), State::Running).await;

    // The lines went through Avro (a string schema registered by the source, read back by
    // id by the sink).
    let lines = eventually(60, "the sink's lines", async || {
        let text = std::fs::read_to_string(&output).ok()?;
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        (lines.len() >= want.len()).then_some(lines)
    })
    .await;
    assert_eq!(lines, want);

    let requests = |c: &str| {
        format!(
            "wasm_connect_schema_registry_requests_total{{connector=\"{c}\",task=\"0\",side=\"value\"}}"
        )
    };
    for c in [&src, &snk] {
        let n = eventually(20, "registry requests", async || {
            sample(&metrics(&app).await, &requests(c))
        })
        .await;
        assert!(n >= 1.0, "{c}: {n} requests");
    }
    // The source registered under the topic's value subject (TopicNameStrategy); the sink
    // read the schema by id, which names no subject.
    let subject = format!(
        "wasm_connect_schema_registry_subject{{connector=\"{src}\",task=\"0\",side=\"value\",\
         converter=\"AvroConverter\",subject=\"{topic}-value\"}}"
    );
    let body = metrics(&app).await;
    assert_eq!(sample(&body, &subject), Some(1.0), "{body}");
    let sink_subjects = format!("wasm_connect_schema_registry_subject{{connector=\"{snk}\"");
    assert!(!body.lines().any(|l| l.starts_with(&sink_subjects)), "{body}");
    app.shutdown().await;
}
