// The batch side of a transform, free of WIT types: decode a `record-batch`, call
// `Transform.apply` once per record, encode the records that go on with their origins
// (input indexes, strictly increasing by construction) and collect the failures.
//
// `exports.js` wraps this in the WIT export and `testing.js`'s `TransformHarness` calls it
// directly, so a node test runs the code a component runs. Exceptions propagate.

import { decodeBatch, encodeBatch } from './batch.js';
import { FatalError } from './errors.js';
import { SinkRecord } from './records.js';
import { Fail } from './transform.js';

/**
 * Runs one batch through `transform`.
 * @param {import('./transform.js').Transform} transform
 * @param {Uint8Array} batch
 * @returns {{ records: Uint8Array, origins: number[], failures: Array<{ index: number, reason: string }> }}
 */
export function applyBatch(transform, batch) {
  const kept = [];
  const origins = [];
  const failures = [];
  decodeBatch(batch).forEach((raw, index) => {
    const out = transform.apply(new SinkRecord(raw));
    if (out == null) return;
    if (out instanceof Fail) {
      failures.push({ index, reason: out.reason });
      return;
    }
    if (!(out instanceof SinkRecord)) {
      throw new FatalError(`${transform.name}.apply returned ${typeof out}, not a SinkRecord, null or fail(reason)`);
    }
    kept.push(out.toRaw());
    origins.push(index);
  });
  return { records: encodeBatch(kept), origins, failures };
}

/**
 * The problems of a string config: the definition's, then (when there are none) the
 * transform's own.
 * @param {import('./transform.js').Transform} transform
 * @param {Record<string, string>} config
 */
export function validateConfig(transform, config) {
  const { values, problems } = transform.configDef.check(config);
  if (problems.length > 0) return problems;
  try {
    return (transform.validate(values) ?? []).map((p) => ({ key: String(p.key), message: String(p.message) }));
  } catch (e) {
    return [{ key: '', message: `${transform.name}.validate failed: ${e instanceof Error ? e.message : String(e)}` }];
  }
}

/**
 * Parses a string config (defaults filled in; a `ConfigError` on problems) and configures.
 * @param {import('./transform.js').Transform} transform
 * @param {Record<string, string>} config
 */
export function configureTransform(transform, config) {
  transform.configure(transform.configDef.parse(config));
}
