// `SourceTask`: the base class of a source plugin's task (Kafka Connect's `SourceTask`).
//
// A subclass implements `poll`, returning `SourceRecord`s; the rest is optional. This
// file owns the contract and its defaults; the batch encoding and the bookkeeping of
// record sequences belong to `exports.js`.

export class SourceTask {
  /**
   * Starts the task with its config (string values, as the connector's `taskConfigs`
   * made them; `ConfigDef.parse` turns them into typed values).
   * @param {Record<string, string>} _config
   */
  start(_config) {}

  /**
   * The next records, at most `maxRecords`. Return `[]` when there is nothing now; the
   * worker waits a little before polling again, so never sleep here.
   * @param {number} _maxRecords
   * @returns {import('./records.js').SourceRecord[]}
   */
  poll(_maxRecords) {
    return [];
  }

  /**
   * Called once per record, in order, when it is durably written.
   * @param {import('./records.js').SourceRecord} _record
   * @param {{ partition: number, offset: number }} _metadata where Kafka wrote it
   */
  commitRecord(_record, _metadata) {}

  /** Called after the worker committed source offsets up to the last acknowledged record. */
  commit() {}

  /** Stops the task. */
  stop() {}
}
