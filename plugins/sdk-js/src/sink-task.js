// `SinkTask`: the base class of a sink plugin's task (Kafka Connect's `SinkTask`).
//
// A subclass implements `put`; the rest is optional. This file owns the contract and its
// defaults; decoding batches and converting offsets belong to `exports.js`.

/** @typedef {{ topic: string, partition: number }} TopicPartition */
/** @typedef {{ topic: string, partition: number, offset: number }} TopicPartitionOffset */

export class SinkTask {
  /**
   * Starts the task with its config (string values).
   * @param {Record<string, string>} _config
   */
  start(_config) {}

  /** Partitions newly assigned to this task. @param {TopicPartition[]} _partitions */
  open(_partitions) {}

  /** Partitions taken away; flush what is held for them. @param {TopicPartition[]} _partitions */
  close(_partitions) {}

  /**
   * Handles a batch. Returns the records it could not handle as `{ index, reason }`
   * (index into `records`); nothing or `[]` means all were handled. Throw a
   * `RetriableError` to have the same batch delivered again after a back-off.
   * @param {import('./records.js').SinkRecord[]} _records
   * @returns {Array<{ index: number, reason: string }> | void}
   */
  put(_records) {
    return [];
  }

  /**
   * Flushes and returns the offsets safe to commit; by default all of them.
   * @param {TopicPartitionOffset[]} offsets
   * @returns {TopicPartitionOffset[]}
   */
  preCommit(offsets) {
    return offsets;
  }

  /** Stops the task. */
  stop() {}
}
