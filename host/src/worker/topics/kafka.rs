//! [`KafkaTopics`]: data topics in a Kafka cluster. Builds each client's configuration
//! (the worker's `bootstrap.servers` and security settings, then its `producer.*`,
//! `consumer.*` or `admin.*` settings, then the connector's overrides), maps Kafka's
//! security names to librdkafka's on the merged map (so a connector's
//! `producer.override.sasl.jaas.config` counts), and creates topics with the admin client.
//!
//! Producers are shared: every source task (and dead-letter queue) whose producer has the
//! same effective configuration (worker settings, `producer.*`, and its connector's
//! `producer.override.*`) gets the same [`KafkaProducer`], so a worker running thousands of
//! source tasks runs one librdkafka client, with its threads and connections, per distinct
//! configuration. The shared producer's `client.id` is `wasm-connect-producer` for the
//! first configuration and `wasm-connect-producer-<n>` for the n-th (counted from 2), unless
//! the configuration sets `client.id` itself (then that configuration's producer uses it);
//! the per-task id a caller passes only names the task in logs. A producer lives while a
//! task holds it, and one that hit a fatal error is replaced for the tasks that ask next.
//!
//! Consumers hand their member ids to the worker's [`Departures`] when they close, if it
//! was given one ([`KafkaTopics::with_departures`]).
//!
//! It owns client configuration, the producers' sharing and topic creation; the clients
//! themselves live in `kafka_producer.rs` and `kafka_consumer.rs`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use async_trait::async_trait;
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic as KafkaNewTopic, TopicReplication};
use rdkafka::types::RDKafkaErrorCode;
use wasm_connect_group::Departures;

use super::kafka_consumer::KafkaConsumer;
use super::kafka_producer::KafkaProducer;
use super::kafka_transactional::KafkaTransactional;
use super::{
    DataTopics, NewTopic, RecordConsumer, RecordProducer, Subscription, TopicError,
    TransactionalProducer,
};
use crate::config::security::{RedactedProps, librdkafka_props};
use crate::telemetry::client_log::ClientLogContext;

/// How long topic creation and metadata requests may take.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Records per batch handed to a sink task when `consumer.max.poll.records` is not set
/// (Kafka's default).
const DEFAULT_MAX_POLL_RECORDS: usize = 500;

/// The worker's settings for the clients of its tasks. `Debug` hides secrets
/// (`sasl.jaas.config`, passwords, keys).
#[derive(Clone, Default)]
pub struct KafkaClientSettings {
    /// `bootstrap.servers`.
    pub bootstrap_servers: String,
    /// `security.protocol`, `ssl.*`, `sasl.*`: given to every client.
    pub common: BTreeMap<String, String>,
    /// `producer.*`, prefix stripped.
    pub producer: BTreeMap<String, String>,
    /// `consumer.*`, prefix stripped.
    pub consumer: BTreeMap<String, String>,
    /// `admin.*`, prefix stripped.
    pub admin: BTreeMap<String, String>,
}

impl fmt::Debug for KafkaClientSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KafkaClientSettings")
            .field("bootstrap_servers", &self.bootstrap_servers)
            .field("common", &RedactedProps(&self.common))
            .field("producer", &RedactedProps(&self.producer))
            .field("consumer", &RedactedProps(&self.consumer))
            .field("admin", &RedactedProps(&self.admin))
            .finish()
    }
}

/// Data topics in a Kafka cluster.
pub struct KafkaTopics {
    settings: KafkaClientSettings,
    admin: Arc<AdminClient<ClientLogContext>>,
    producers: Mutex<Producers>,
    /// Where closed consumers' member ids go, to be sure they left their groups.
    departures: Option<Departures>,
}

/// The shared producers, by effective configuration (sorted key-value pairs).
#[derive(Default)]
struct Producers {
    by_config: BTreeMap<Vec<(String, String)>, Weak<KafkaProducer>>,
    /// Producers created so far, for the next one's `client.id`.
    created: u64,
}

/// `client.id` of the first shared producer; later ones add `-<n>`.
const SHARED_CLIENT_ID: &str = "wasm-connect-producer";

impl KafkaTopics {
    /// Data topics reached with `settings`.
    pub fn new(settings: KafkaClientSettings) -> Result<Self, TopicError> {
        let mut config = client_config(&settings, &settings.admin, &[])?;
        // Its metadata requests for a missing topic must not create it with broker defaults.
        config.set("allow.auto.create.topics", "false");
        let admin = config.create_with_context(ClientLogContext).map_err(|e| {
            TopicError::Config(format!("cannot create the Kafka admin client: {e}"))
        })?;
        Ok(Self { settings, admin: Arc::new(admin), producers: Mutex::default(), departures: None })
    }

    /// Consumers hand their member ids to `departures` when they close.
    #[must_use]
    pub fn with_departures(mut self, departures: Departures) -> Self {
        self.departures = Some(departures);
        self
    }
}

/// Common settings, then the role's, then the connector's overrides (a later one wins),
/// with Kafka's security names mapped to librdkafka's. Kafka's Java-only keys that
/// librdkafka does not know are dropped with a debug line rather than failing the client.
fn client_config(
    settings: &KafkaClientSettings,
    role: &BTreeMap<String, String>,
    overrides: &[(String, String)],
) -> Result<ClientConfig, TopicError> {
    let mut merged = settings.common.clone();
    merged.extend(role.iter().map(|(k, v)| (k.clone(), v.clone())));
    merged.extend(overrides.iter().cloned());
    let mapped = librdkafka_props(&merged).map_err(|e| TopicError::Config(e.to_string()))?;
    let mut config = ClientConfig::new();
    config.set("reconnect.backoff.max.ms", "1000");
    for (key, value) in mapped {
        if JAVA_ONLY.contains(&key.as_str()) {
            tracing::debug!(key = %key, "Ignored a Java client setting librdkafka does not have");
            continue;
        }
        config.set(key, value);
    }
    config.set("bootstrap.servers", &settings.bootstrap_servers);
    Ok(config)
}

/// Java client keys with no librdkafka equivalent (serializers are the converters' job).
const JAVA_ONLY: &[&str] = &[
    "key.serializer",
    "value.serializer",
    "key.deserializer",
    "value.deserializer",
    "max.poll.records",
    "delivery.timeout.ms",
    "max.block.ms",
    "buffer.memory",
];

#[async_trait]
impl DataTopics for KafkaTopics {
    fn producer(
        &self,
        client_id: &str,
        overrides: &[(String, String)],
    ) -> Result<Arc<dyn RecordProducer>, TopicError> {
        let mut config = client_config(&self.settings, &self.settings.producer, overrides)?;
        let key: Vec<(String, String)> =
            config.config_map().into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
        let mut producers = self.producers.lock().expect("not poisoned");
        if let Some(shared) = producers.by_config.get(&key).and_then(Weak::upgrade)
            && !shared.is_fatal()
        {
            tracing::debug!(producer = client_id, "Sharing the worker's producer");
            return Ok(shared);
        }
        if config.get("client.id").is_none() {
            producers.created += 1;
            let id = match producers.created {
                1 => SHARED_CLIENT_ID.to_owned(),
                n => format!("{SHARED_CLIENT_ID}-{n}"),
            };
            config.set("client.id", id);
        }
        let producer = Arc::new(KafkaProducer::new(config)?);
        producers.by_config.retain(|_, p| p.strong_count() > 0);
        producers.by_config.insert(key, Arc::downgrade(&producer));
        Ok(producer)
    }

    async fn consumer(
        &self,
        group: &str,
        client_id: &str,
        subscription: &Subscription,
        overrides: &[(String, String)],
    ) -> Result<Box<dyn RecordConsumer>, TopicError> {
        let max_records = overrides
            .iter()
            .rev()
            .find(|(k, _)| k == "max.poll.records")
            .map(|(_, v)| v.as_str())
            .or_else(|| self.settings.consumer.get("max.poll.records").map(String::as_str))
            .map(|v| v.trim().parse::<usize>())
            .transpose()
            .map_err(|_| TopicError::Config("max.poll.records: not a positive integer".into()))?
            .unwrap_or(DEFAULT_MAX_POLL_RECORDS);
        let mut config = client_config(&self.settings, &self.settings.consumer, overrides)?;
        config.set("client.id", client_id);
        let departures = self.departures.clone();
        Ok(Box::new(KafkaConsumer::new(config, group, subscription, max_records, departures)?))
    }

    async fn transactional_producer(
        &self,
        transactional_id: &str,
        offsets_topic: &str,
        overrides: &[(String, String)],
    ) -> Result<Arc<dyn TransactionalProducer>, TopicError> {
        let mut config = client_config(&self.settings, &self.settings.producer, overrides)?;
        if config.get("client.id").is_none() {
            config.set("client.id", transactional_id);
        }
        let producer = KafkaProducer::transactional(config, transactional_id)?;
        Ok(Arc::new(KafkaTransactional::start(producer, offsets_topic).await?))
    }

    async fn create_topic(&self, topic: &NewTopic) -> Result<bool, TopicError> {
        let replication = TopicReplication::Fixed(i32::from(topic.replication_factor));
        let mut new = KafkaNewTopic::new(&topic.name, topic.partitions, replication);
        for (k, v) in &topic.configs {
            new = new.set(k, v);
        }
        let options = AdminOptions::new().operation_timeout(Some(ADMIN_TIMEOUT));
        let results = self
            .admin
            .create_topics([&new], &options)
            .await
            .map_err(|e| TopicError::Create { topic: topic.name.clone(), reason: e.to_string() })?;
        match results.into_iter().next() {
            Some(Ok(_)) => Ok(true),
            Some(Err((_, RDKafkaErrorCode::TopicAlreadyExists))) => Ok(false),
            Some(Err((_, code))) => {
                Err(TopicError::Create { topic: topic.name.clone(), reason: code.to_string() })
            }
            None => {
                Err(TopicError::Create { topic: topic.name.clone(), reason: "no answer".into() })
            }
        }
    }

    async fn topic_exists(&self, topic: &str) -> Result<bool, TopicError> {
        // A metadata request blocks in librdkafka: the admin client's, off the async threads.
        let admin = self.admin.clone();
        let topic = topic.to_owned();
        tokio::task::spawn_blocking(move || {
            let metadata = admin
                .inner()
                .fetch_metadata(Some(&topic), ADMIN_TIMEOUT)
                .map_err(|e| TopicError::Create { topic: topic.clone(), reason: e.to_string() })?;
            Ok(metadata.topics().iter().any(|t| t.name() == topic && t.error().is_none()))
        })
        .await
        .map_err(|e| TopicError::Consume(e.to_string()))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn jaas(user: &str, password: &str) -> String {
        format!(
            "org.apache.kafka.common.security.scram.ScramLoginModule required \
             username=\"{user}\" password=\"{password}\";"
        )
    }

    #[test]
    fn security_is_mapped_after_the_connector_overrides() {
        let settings = KafkaClientSettings {
            bootstrap_servers: "b:9092".into(),
            common: map(&[
                ("security.protocol", "SASL_PLAINTEXT"),
                ("sasl.mechanism", "SCRAM-SHA-256"),
                ("sasl.jaas.config", &jaas("worker", "worker-pw")),
            ]),
            producer: map(&[("sasl.mechanism", "SCRAM-SHA-512")]),
            ..Default::default()
        };
        let overrides = [("sasl.jaas.config".to_owned(), jaas("connector", "connector-pw"))];
        let config = client_config(&settings, &settings.producer, &overrides).unwrap();
        assert_eq!(config.get("sasl.mechanisms"), Some("SCRAM-SHA-512"));
        assert_eq!(config.get("sasl.username"), Some("connector"));
        assert_eq!(config.get("sasl.password"), Some("connector-pw"));
        assert_eq!(config.get("sasl.jaas.config"), None);
        let worker = client_config(&settings, &settings.consumer, &[]).unwrap();
        assert_eq!(worker.get("sasl.username"), Some("worker"));

        let bad = [("sasl.jaas.config".to_owned(), "nonsense secret".to_owned())];
        let err = client_config(&settings, &settings.producer, &bad).err().unwrap().to_string();
        assert!(err.contains("sasl.jaas.config") && !err.contains("secret"), "{err}");
        let shown = format!("{settings:?}");
        assert!(!shown.contains("worker-pw"), "{shown}");
    }
}
