//! A data topic's records read back, in order, on either backend: the embedded store's
//! data topics, or partition 0 on the real broker.

use std::time::Duration;

use wasm_connect::model::TopicPartitionOffset;

use crate::harness::Backing;

/// One record of a data topic: key and value as text (JsonConverter envelopes), headers.
#[derive(Clone, Debug)]
pub struct Rec {
    pub key: Option<String>,
    pub value: Option<String>,
    pub headers: Vec<(String, Option<String>)>,
}

fn text(bytes: Option<Vec<u8>>) -> Option<String> {
    bytes.map(|b| String::from_utf8(b).unwrap())
}

/// Every record of `topic` (one partition), in order.
pub async fn read_topic(b: &Backing, topic: &str) -> Vec<Rec> {
    match b {
        Backing::Embedded(db) => {
            let backend = wasm_connect::store::EmbeddedBackend::open(db).unwrap();
            let reader = backend.data_reader().await.unwrap();
            let from =
                vec![TopicPartitionOffset { topic: topic.to_owned(), partition: 0, offset: 0 }];
            let entries = reader.read(from, 1_000_000).await.unwrap();
            entries
                .into_iter()
                .map(|e| Rec {
                    key: text(e.key),
                    value: text(e.value),
                    headers: e.headers.into_iter().map(|h| (h.key, text(h.value))).collect(),
                })
                .collect()
        }
        Backing::Kafka(_, bootstrap) => {
            let bootstrap = bootstrap.clone();
            let topic = topic.to_owned();
            tokio::task::spawn_blocking(move || kafka_records(&bootstrap, &topic)).await.unwrap()
        }
    }
}

fn kafka_records(bootstrap: &str, topic: &str) -> Vec<Rec> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::message::Headers;
    use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", format!("topic-records-{}", std::process::id()))
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let Ok((_, high)) = consumer.fetch_watermarks(topic, 0, Duration::from_secs(10)) else {
        return Vec::new();
    };
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, 0, Offset::Beginning).unwrap();
    consumer.assign(&tpl).unwrap();
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while (out.len() as i64) < high && std::time::Instant::now() < deadline {
        let Some(m) = consumer.poll(Duration::from_millis(200)) else { continue };
        let m = m.unwrap();
        let headers = m
            .headers()
            .map(|hs| {
                hs.iter().map(|h| (h.key.to_owned(), text(h.value.map(<[u8]>::to_vec)))).collect()
            })
            .unwrap_or_default();
        out.push(Rec {
            key: text(m.key().map(<[u8]>::to_vec)),
            value: text(m.payload().map(<[u8]>::to_vec)),
            headers,
        });
    }
    out
}
