// The host calls a connector or task may make: `log`, `requestTaskReconfiguration`,
// `raiseError`, `offsets`, a source task's `transactionContext` and the sandbox's
// preopened directories, over whatever `bindHost` was given.
//
// In a component the build's generated entry binds the WIT imports
// (`wasm-connect:connector/host@0.1.2`, `offset-reader`, `transaction-context`,
// `wasi:filesystem/preopens`);
// in node tests a test binds fakes. This file owns the JSON and type conversions
// between the two and must not import any WIT module itself, so it runs in plain node.

import { toWitError } from './errors.js';

/**
 * @typedef {object} HostImports
 * @property {(level: string, message: string, fields: Array<[string, string]>) => void} log
 * @property {() => void} requestTaskReconfiguration
 * @property {(err: { tag: string, val: string }) => void} raiseError
 * @property {(partitions: string[]) => Array<string | undefined | null>} [offsets]  source plugins only
 * @property {TransactionImports} [transactionContext]  source plugins only
 * @property {() => Array<[any, string]>} [preopens]  `wasi:filesystem/preopens.get-directories`
 */

/**
 * The WIT `transaction-context` import (contract 0.1.2).
 * @typedef {object} TransactionImports
 * @property {() => boolean} isActive
 * @property {() => void} commitTransaction
 * @property {(index: number) => void} commitTransactionAfter
 * @property {() => void} abortTransaction
 * @property {(index: number) => void} abortTransactionAfter
 */

const missing = (what) => () => {
  throw new Error(`the host call ${what} is not bound: in a component the build binds it; in a test call bindHost()`);
};

/** @type {HostImports} */
let host = {
  log: missing('log'),
  requestTaskReconfiguration: missing('requestTaskReconfiguration'),
  raiseError: missing('raiseError'),
};

/**
 * Binds the host imports (the build does this in a component; tests bind fakes).
 * @param {HostImports} imports
 */
export function bindHost(imports) {
  host = imports;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'];

/**
 * Writes one structured line to the worker's log.
 * @param {'trace' | 'debug' | 'info' | 'warn' | 'error'} level
 * @param {string} message
 * @param {Record<string, unknown>} [fields] extra key/value pairs (values become strings)
 */
export function log(level, message, fields = {}) {
  if (!LEVELS.includes(level)) throw new TypeError(`unknown log level ${JSON.stringify(level)}`);
  host.log(level, String(message), Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/** Asks the worker to call the connector's `taskConfigs` again. */
export function requestTaskReconfiguration() {
  host.requestTaskReconfiguration();
}

/**
 * Reports that the connector failed in the background; the worker marks it FAILED.
 * @param {unknown} err a `ConnectError`, any `Error`, or a message
 */
export function raiseError(err) {
  host.raiseError(toWitError(err));
}

/**
 * The committed source offsets of source partitions, one per partition in order: an
 * object, or null when none was committed. Source plugins only.
 * @param {object[]} partitions JSON objects, as the task put them in its records
 * @returns {Array<object | null>}
 */
export function offsets(partitions) {
  if (!host.offsets) throw new Error('offsets() is only available to source plugins');
  return host.offsets(partitions.map((p) => JSON.stringify(p))).map((o) => (o == null ? null : JSON.parse(o)));
}

/** The sandbox's preopened directories as `[descriptor, path]` pairs (`files.js`). */
export function preopens() {
  if (!host.preopens) throw new Error('this plugin was built without file system access');
  return host.preopens();
}

/** The largest index the contract carries (a `u32`): past any batch, refused by the worker. */
const MAX_INDEX = 0xffffffff;

/** A record's index in the batch, checked: a whole number from 0. */
function recordIndex(index) {
  if (!Number.isInteger(index) || index < 0) {
    throw new RangeError(`a record index is a whole number from 0, got ${JSON.stringify(index)}`);
  }
  return Math.min(index, MAX_INDEX);
}

/**
 * A source task's control of its transactions (Kafka Connect's `TransactionContext`),
 * returned by `transactionContext()` when the worker honours it.
 *
 * Requests apply to the batch the current `poll` returns; a record is named by its index
 * in that batch, from 0. The `…After` forms end the transaction right after that record
 * and win over a whole-batch request. An aborted transaction's records are discarded,
 * their source offsets still committed. Asking to commit and to abort the same batch or
 * record, or naming an index past the end of the batch, fails the task.
 */
export class TransactionContext {
  #imports;

  /** @param {TransactionImports} imports */
  constructor(imports) {
    this.#imports = imports;
  }

  /** Commits the transaction after the current batch. */
  commitTransaction() {
    this.#imports.commitTransaction();
  }

  /**
   * Commits the transaction right after record `index` of the current batch.
   * @param {number} index
   */
  commitTransactionAfter(index) {
    this.#imports.commitTransactionAfter(recordIndex(index));
  }

  /** Aborts the transaction after the current batch: its records are discarded. */
  abortTransaction() {
    this.#imports.abortTransaction();
  }

  /**
   * Aborts the transaction right after record `index` of the current batch.
   * @param {number} index
   */
  abortTransactionAfter(index) {
    this.#imports.abortTransactionAfter(recordIndex(index));
  }
}

/**
 * The task's transaction context when the worker honours it (it runs exactly-once source
 * and the connector's `transaction.boundary` is `connector`; Kafka Connect's
 * `SourceTaskContext.transactionContext()`), else null: also in a sink plugin, in a
 * component built against an older contract, and in a test that bound none.
 * @returns {TransactionContext | null}
 */
export function transactionContext() {
  const imports = host.transactionContext;
  return imports?.isActive() ? new TransactionContext(imports) : null;
}
