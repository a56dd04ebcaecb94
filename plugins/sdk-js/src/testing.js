// `TransformHarness`: drives a `Transform` subclass as the worker does, in plain node
// tests: configs as strings (parsed, defaults filled in), each batch encoded as a
// `record-batch` and run through the same code a component runs (`transform-glue.js`),
// the answer decoded and checked against the contract. Test-only; a component that does
// not import it never bundles it.

import { decodeBatch, encodeBatch } from './batch.js';
import { SinkRecord } from './records.js';
import { Fail } from './transform.js';
import { applyBatch, configureTransform, validateConfig } from './transform-glue.js';

export class TransformHarness {
  /** @param {new () => import('./transform.js').Transform} TransformClass */
  constructor(TransformClass) {
    this.TransformClass = TransformClass;
    this.instance = null;
  }

  /** The transform object, created on first use. */
  get transform() {
    return (this.instance ??= new this.TransformClass());
  }

  get name() {
    return this.transform.name;
  }

  get version() {
    return this.transform.version;
  }

  /** The problems the `validate` export reports. @param {Record<string, string>} config */
  validate(config) {
    return validateConfig(this.transform, config);
  }

  /** Configures with a string config, as the worker does. @param {Record<string, string>} config */
  configure(config) {
    configureTransform(this.transform, config);
  }

  /**
   * Runs one batch. Returns `{ records, origins, failures, outcomes }`: the records that go
   * on (decoded `SinkRecord`s), the input index of each, the failures as
   * `{ index, reason }`, and per input record what became of it (the kept record, `null`
   * for dropped, or a `Fail`).
   * @param {SinkRecord[]} records
   */
  apply(records) {
    const out = applyBatch(this.transform, encodeBatch(records.map((r) => r.toRaw())));
    const kept = decodeBatch(out.records).map((raw) => new SinkRecord(raw));
    if (kept.length !== out.origins.length) throw new Error('one origin per record that goes on');
    if (out.origins.some((o, i) => i > 0 && o <= out.origins[i - 1])) throw new Error('origins must strictly increase');
    const outcomes = records.map(() => null);
    kept.forEach((r, i) => (outcomes[out.origins[i]] = r));
    for (const f of out.failures) outcomes[f.index] = new Fail(f.reason);
    return { records: kept, origins: out.origins, failures: out.failures, outcomes };
  }

  /** Runs a batch of one record and says what became of it. @param {SinkRecord} record */
  applyOne(record) {
    return this.apply([record]).outcomes[0];
  }

  /** Closes and drops the instance. */
  close() {
    this.instance?.close();
    this.instance = null;
  }
}
