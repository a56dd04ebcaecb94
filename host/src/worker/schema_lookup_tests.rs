//! `converted` with an Avro converter in front of a registry stand-in (a TCP listener
//! answering HTTP/1.1 by hand): the lookup runs, the record converts, and the task's
//! registry metrics show in the Prometheus text.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use metrics_exporter_prometheus::PrometheusBuilder;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::{Lookups, converted};
use crate::worker::convert::{Kind, Side, worker_default};
use crate::worker::errors::ErrorPolicy;

/// A registry that answers its first request `503` and every later one `{"id":5}`;
/// returns its URL and the requests it has read.
async fn registry() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let n = count.fetch_add(1, Ordering::SeqCst);
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            // Headers, then the body their Content-Length announces.
            loop {
                let read = socket.read(&mut buf).await.unwrap();
                request.extend_from_slice(&buf[..read]);
                let text = String::from_utf8_lossy(&request);
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap())
                        })
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length || read == 0 {
                        break;
                    }
                }
            }
            let (status, body) =
                if n == 0 { ("503 Service Unavailable", "{}") } else { ("200 OK", r#"{"id":5}"#) };
            let answer = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(answer.as_bytes()).await.unwrap();
        }
    });
    (url, seen)
}

#[tokio::test]
async fn a_lookup_is_counted_with_its_subject_and_the_record_converts() {
    let (url, seen) = registry().await;
    let props = BTreeMap::from([
        ("schema.registry.url".to_owned(), url),
        ("retries.wait.ms".to_owned(), "1".to_owned()),
    ]);
    let avro =
        worker_default(Side::Value, "io.confluent.connect.avro.AvroConverter", &props).unwrap();
    let recorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    let _local = metrics::set_default_local_recorder(&recorder);
    let policy = ErrorPolicy::default();
    let lookups = Lookups { connector: "c", task: 0, policy: &policy };

    let convert = || avro.from_plugin("orders", Kind::String, Some(b"hello"));
    let bytes = converted(&*avro, Side::Value, &lookups, convert).await.unwrap();
    // The wire format: magic byte 0, the id as 4 big-endian bytes, then the Avro string:
    // its length 5 as a zig-zag varint (10), then its UTF-8 bytes.
    assert_eq!(bytes.as_deref(), Some(&b"\0\0\0\0\x05\x0ahello"[..]));
    // The 503 was retried: two requests, both counted.
    assert_eq!(seen.load(Ordering::SeqCst), 2);

    // The next record of the same schema needs no lookup and sends nothing.
    let again = converted(&*avro, Side::Value, &lookups, convert).await.unwrap();
    assert_eq!(again, bytes);
    assert_eq!(seen.load(Ordering::SeqCst), 2);

    let text = handle.render();
    let has = |line: &str| text.lines().any(|l| l == line);
    assert!(
        has(
            r#"wasm_connect_schema_registry_requests_total{connector="c",task="0",side="value"} 2"#
        ),
        "{text}"
    );
    assert!(
        has(
            r#"wasm_connect_schema_registry_subject{connector="c",task="0",side="value",converter="AvroConverter",subject="orders-value"} 1"#
        ),
        "{text}"
    );
}
