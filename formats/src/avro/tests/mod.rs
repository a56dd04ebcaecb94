//! Unit tests of the Avro format.
