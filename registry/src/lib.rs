//! A client of Confluent's Schema Registry REST API (being built).
