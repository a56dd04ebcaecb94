//! [`ReleasedProducer`]: a task's handle on its producer that lets go of it on the blocking
//! pool. Dropping an rdkafka producer blocks: it joins the client's polling thread (which
//! wakes every 100 ms), purges and flushes, then waits for librdkafka's threads. On an
//! async worker thread that stalls every other task, the herder and the REST API, and a
//! restart of 8 tasks on 2 cores took 100–400 ms, one polling interval per pair of tasks.
//!
//! It only moves the last reference off the loop; sending is the inner producer's, and it
//! must not buffer or acknowledge anything itself.

use std::sync::Arc;

use super::topics::{OutRecord, RecordProducer, SendFuture};

/// A producer whose drop runs on the blocking pool.
pub(super) struct ReleasedProducer(Option<Arc<dyn RecordProducer>>);

impl ReleasedProducer {
    /// Wraps `producer`.
    pub(super) fn wrap(producer: Arc<dyn RecordProducer>) -> Arc<dyn RecordProducer> {
        Arc::new(Self(Some(producer)))
    }
}

impl RecordProducer for ReleasedProducer {
    fn send(&self, records: Vec<OutRecord>) -> SendFuture {
        self.0.as_ref().expect("set until dropped").send(records)
    }
}

impl Drop for ReleasedProducer {
    fn drop(&mut self) {
        let Some(producer) = self.0.take() else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || drop(producer))),
            Err(_) => drop(producer),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::thread::ThreadId;

    use super::*;

    /// Records the thread it was dropped on.
    struct Probe(Arc<Mutex<Option<ThreadId>>>);

    impl RecordProducer for Probe {
        fn send(&self, _: Vec<OutRecord>) -> SendFuture {
            Box::pin(async { Ok(Vec::new()) })
        }
    }

    impl Drop for Probe {
        fn drop(&mut self) {
            *self.0.lock().unwrap() = Some(std::thread::current().id());
        }
    }

    #[test]
    fn the_inner_producer_is_dropped_off_the_async_thread() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let dropped_on = Arc::new(Mutex::new(None));
        runtime.block_on(async {
            let wrapped = ReleasedProducer::wrap(Arc::new(Probe(dropped_on.clone())));
            assert!(wrapped.send(Vec::new()).await.unwrap().is_empty());
            drop(wrapped);
        });
        drop(runtime); // Waits for the blocking pool.
        let dropped_on = dropped_on.lock().unwrap().expect("dropped");
        assert_ne!(dropped_on, std::thread::current().id());
    }
}
