// `exportSource`, `exportSink` and `exportTransform`: the objects a component exports for
// the WIT interfaces `connector`, `source-task`, `sink-task` and `transformation`, built
// around an author's classes.
//
// This file owns the mapping between the WIT shapes (configs as key/value pairs, BigInt
// s64/u64, `result` as `{ tag, val }`, batches as bytes) and the SDK's classes, and turns
// every exception of a fallible call into an `err` (never a trap). It holds one connector
// and one task per instance: the host gives each its own sandbox.

import { decodeBatchWith } from './batch.js';
import { toWitError } from './errors.js';
import { log } from './host.js';
import { SinkRecord } from './records.js';
import { encodeSources } from './source-batch.js';
import { SourceTask } from './source-task.js';
import { applyBatch, configureTransform, validateConfig } from './transform-glue.js';
import { Transform } from './transform.js';

/** A WIT config (key/value pairs) as an object. */
const fromPairs = (pairs) => Object.fromEntries(pairs);

/** An object of values as a WIT config: values become strings, lists joined by `,`. */
function toPairs(config) {
  return Object.entries(config)
    .filter(([, v]) => v != null)
    .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]);
}

/** Runs a fallible call as a WIT `result`. */
function result(fn) {
  try {
    return { tag: 'ok', val: fn() };
  } catch (e) {
    return { tag: 'err', val: toWitError(e) };
  }
}

/** Runs an infallible call (`stop`), logging what it throws. */
function quietly(what, fn) {
  try {
    fn();
  } catch (e) {
    try {
      log('error', `${what} threw: ${toWitError(e).val}`);
    } catch {
      // Nothing else can report it: stop must not trap.
    }
  }
}

/**
 * The WIT `connector` export for a `Connector` subclass.
 * @param {new () => import('./connector.js').Connector} ConnectorClass
 */
export function connectorExports(ConnectorClass) {
  return connectorExportsOf(lazy(ConnectorClass));
}

/** A getter of one instance of `Class`, created on first use. */
function lazy(Class) {
  let instance = null;
  return () => (instance ??= new Class());
}

/** The WIT `connector` export over `connector`, the getter of the author's connector. */
function connectorExportsOf(connector) {
  return {
    name: () => connector().name,
    version: () => connector().version,
    configDefinition: () => connector().configDef.toWit(),
    validate(config) {
      const c = connector();
      const { values, problems } = c.configDef.check(fromPairs(config));
      if (problems.length > 0) return problems;
      try {
        return (c.validate(values) ?? []).map((p) => ({ key: String(p.key), message: String(p.message) }));
      } catch (e) {
        return [{ key: 'connector.class', message: `${c.name}.validate failed: ${toWitError(e).val}` }];
      }
    },
    start: (config) =>
      result(() => {
        const c = connector();
        c.start(c.configDef.parse(fromPairs(config)));
      }),
    taskConfigs: (maxTasks) => result(() => connector().taskConfigs(maxTasks).map(toPairs)),
    stop: () => quietly('stop', () => connector().stop()),
  };
}

/**
 * The WIT `source-task` export for a `SourceTask` subclass.
 * @param {new () => import('./source-task.js').SourceTask} TaskClass
 */
export function sourceTaskExports(TaskClass) {
  let task = null;
  // Polled records waiting for their ack, only when the task overrides commitRecord.
  let pending = null;
  let nextSequence = 0;
  const started = () => {
    if (!task) throw new Error('the source task was called before start');
    return task;
  };
  return {
    start: (config) =>
      result(() => {
        task = new TaskClass();
        const overridden = typeof task.commitRecord === 'function' && task.commitRecord !== SourceTask.prototype.commitRecord;
        pending = overridden ? [] : null;
        task.start(fromPairs(config));
      }),
    poll: (maxRecords) =>
      result(() => {
        const records = started().poll(maxRecords) ?? [];
        const batch = encodeSources(records, true); // a view, copied out by the bindings on return
        if (pending) for (const r of records) pending.push([nextSequence++, r]);
        else nextSequence += records.length;
        return batch;
      }),
    commitRecords: (acks) =>
      result(() => {
        if (!pending) return;
        for (const ack of acks) {
          const sequence = Number(ack.sequence);
          while (pending.length > 0 && pending[0][0] < sequence) pending.shift();
          if (pending.length === 0 || pending[0][0] !== sequence) continue;
          const [, record] = pending.shift();
          started().commitRecord(record, { partition: ack.partition, offset: Number(ack.offset) });
        }
      }),
    commit: () => result(() => started().commit()),
    stop: () => quietly('stop', () => task?.stop()),
  };
}

/**
 * The WIT `sink-task` export for a `SinkTask` subclass.
 * @param {new () => import('./sink-task.js').SinkTask} TaskClass
 */
export function sinkTaskExports(TaskClass) {
  let task = null;
  const started = () => {
    if (!task) throw new Error('the sink task was called before start');
    return task;
  };
  const partitions = (list) => list.map(({ topic, partition }) => ({ topic, partition }));
  return {
    start: (config) =>
      result(() => {
        task = new TaskClass();
        task.start(fromPairs(config));
      }),
    open: (list) => result(() => started().open(partitions(list))),
    close: (list) => result(() => started().close(partitions(list))),
    put: (batch) =>
      result(() => {
        const records = decodeBatchWith(batch, SinkRecord.fromFields);
        const failures = started().put(records) ?? [];
        return failures.map((f) => ({ index: f.index, reason: String(f.reason) }));
      }),
    preCommit: (offsets) =>
      result(() => {
        const given = offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: Number(o.offset) }));
        const safe = started().preCommit(given) ?? given;
        return safe.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset) }));
      }),
    stop: () => quietly('stop', () => task?.stop()),
  };
}

/**
 * Everything a source plugin exports:
 * `export const { connector, sourceTask } = exportSource(MyConnector, MyTask);`
 */
export function exportSource(ConnectorClass, TaskClass) {
  const connector = lazy(ConnectorClass);
  return {
    connector: connectorExportsOf(connector),
    sourceTask: sourceTaskExports(TaskClass),
    exactlyOnce: exactlyOnceExports(connector),
  };
}

/**
 * The WIT `exactly-once` export (contract 0.1.2) over `connector`, the getter of the
 * author's connector: its optional `exactlyOnceSupport(config)` (`'supported'`,
 * `'unsupported'`, anything else for "cannot say") and `canDefineTransactionBoundaries(config)`
 * (`true` or not), given the raw config. An exception answers "cannot say" and `false`.
 * Without a getter, the defaults: "cannot say" and `false`.
 */
export function exactlyOnceExports(connector = () => ({})) {
  return {
    exactlyOnceSupport(config) {
      try {
        const answer = connector().exactlyOnceSupport?.(fromPairs(config));
        return answer === 'supported' || answer === 'unsupported' ? answer : undefined;
      } catch (e) {
        log('warn', `exactlyOnceSupport failed: ${toWitError(e).val}`);
        return undefined;
      }
    },
    canDefineTransactionBoundaries(config) {
      try {
        return connector().canDefineTransactionBoundaries?.(fromPairs(config)) === true;
      } catch (e) {
        log('warn', `canDefineTransactionBoundaries failed: ${toWitError(e).val}`);
        return false;
      }
    },
  };
}

/**
 * Everything a sink plugin exports:
 * `export const { connector, sinkTask } = exportSink(MyConnector, MyTask);`
 */
export function exportSink(ConnectorClass, TaskClass) {
  return { connector: connectorExports(ConnectorClass), sinkTask: sinkTaskExports(TaskClass) };
}

/**
 * The WIT `transformation` export for a `Transform` subclass.
 * @param {new () => import('./transform.js').Transform} TransformClass
 */
export function transformationExports(TransformClass) {
  if (!(TransformClass?.prototype instanceof Transform)) throw new TypeError('exportTransform needs a subclass of Transform');
  let instance = null;
  const transform = () => (instance ??= new TransformClass());
  return {
    name: () => transform().name,
    version: () => transform().version,
    configDefinition: () => transform().configDef.toWit(),
    validate: (config) => validateConfig(transform(), fromPairs(config)),
    configure: (config) => result(() => configureTransform(transform(), fromPairs(config))),
    apply: (batch) =>
      result(() => {
        const { records, origins, failures } = applyBatch(transform(), batch);
        return { records, origins: Uint32Array.from(origins), failures };
      }),
    close: () => {
      quietly('close', () => instance?.close());
      instance = null;
    },
  };
}

/**
 * Everything a transform plugin exports:
 * `export const { transformation } = exportTransform(MyTransform);`
 */
export function exportTransform(TransformClass) {
  return { transformation: transformationExports(TransformClass) };
}
