// `Transform`: the base class of a transform plugin (Kafka Connect's single message
// transform; the WIT interface `transformation` of `wit/transform.wit`), and `fail`, what
// `apply` returns for a record it cannot handle.
//
// A subclass sets `name`, `version` and `configDef` and implements `apply`. This file owns
// only the contract and its defaults; running batches through it belongs to
// `transform-glue.js`, the WIT export to `exports.js`.

import { ConfigDef } from './config-def.js';

/** What `apply` returns for a record it cannot handle; build it with `fail(reason)`. */
export class Fail {
  /** @param {string} reason */
  constructor(reason) {
    this.reason = String(reason);
  }
}

/**
 * A record the transform cannot handle: the worker routes it as a failure of the
 * TRANSFORMATION stage (`errors.tolerance=all` skips it, to the dead-letter queue if one
 * is set; `none` fails the task).
 * @param {string} reason @returns {Fail}
 */
export const fail = (reason) => new Fail(reason);

/**
 * A single message transform, named in `transforms.<alias>.type` by `name`.
 *
 * The worker creates one instance per task that uses it, calls `configure` once (typed
 * values, defaults filled in; a throw fails the task), then `apply` once per record in
 * order, then `close` at most once. Short-lived instances answer `name`, `version`,
 * `configDef` and `validate`, which must work without `configure`.
 */
export class Transform {
  /** The transform's name, as users write it in `transforms.<alias>.type`. */
  name = 'UnnamedTransform';
  /** The transform's version. */
  version = '0.0.0';
  /** The configuration definition (the alias's keys, prefix stripped). */
  configDef = new ConfigDef();

  /**
   * The transform's own rules for a config that already passed `configDef`.
   * @param {Record<string, any>} _config typed values, defaults filled in
   * @returns {Array<{ key: string, message: string }> | void}
   */
  validate(_config) {
    return [];
  }

  /**
   * Configures the instance. The default keeps `config` in `this.config`.
   * @param {Record<string, any>} config typed values, defaults filled in
   */
  configure(config) {
    this.config = config;
  }

  /**
   * Transforms one record (a `SinkRecord`: change its `topic`, `partition`, `timestamp`,
   * `headers`, or its key and value with `setKey` / `setValue`). Returns the record that
   * goes on, `null` to drop it, or `fail(reason)`. A throw fails the whole batch: return
   * `fail` for a record that is merely bad. The default passes it unchanged.
   * @param {import('./records.js').SinkRecord} record
   * @returns {import('./records.js').SinkRecord | Fail | null | undefined}
   */
  apply(record) {
    return record;
  }

  /** Releases what the instance holds. */
  close() {}
}
