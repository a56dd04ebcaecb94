//! `HttpSink`: sends the records of a sink task to an HTTP endpoint, configured like the
//! Confluent HTTP sink connector (`http.api.url`, `request.method`, `headers`,
//! `auth.type`, `batch.max.size`, `retry.on.status.codes`, `max.retries`,
//! `retry.backoff.ms`, `behavior.on.error`, `https.ssl.*`).
//!
//! Each `put` splits its records into requests of at most `batch.max.size` records, in
//! order, and sends them one after the other through `wasi:http`: the worker makes the
//! request, with TLS by its own rustls, and only to the origin of `http.api.url` (the
//! key's `connect` grant). A request that cannot be sent, times out, or is answered with
//! a status of `retry.on.status.codes` makes `put` fail retriably after a back-off; the
//! worker delivers the same records again and the requests already accepted are not sent
//! twice. After `max.retries` such failures, or at once for any other error status, the
//! records of that request are handled as `behavior.on.error` says.
//!
//! Layout: `config` (keys and parsed settings), `status_codes` (the retry ranges), `url`
//! (the parts of `http.api.url`), `body` (request bodies), `transport` (one request, over
//! `wasi:http` in the component), `task` (batching, retries, error handling),
//! `connector` (one identical config per task).

mod body;
mod config;
mod connector;
mod status_codes;
mod task;
mod transport;
mod url;

wasm_connect_sdk::export_sink!(connector::HttpSink, task::HttpSinkTask);

#[cfg(test)]
mod tests;
