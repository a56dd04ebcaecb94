// The wasm-connect JavaScript SDK: write a connector and its task (or a transform) as
// classes, export them with one line, and `tools/build.mjs` turns the module into a component of the
// `wasm-connect:connector` WIT package.
//
// This file only gathers the public names; each lives in the file named for it.

export { Connector } from './connector.js';
export { SourceTask } from './source-task.js';
export { SinkTask } from './sink-task.js';
export { SourceRecord, SinkRecord, encodeData, decodeData } from './records.js';
export { ConfigDef, ConfigKey } from './config-def.js';
export { range, oneOf, nonEmpty } from './validators.js';
export { ConnectError, RetriableError, ConfigError, FatalError, toWitError } from './errors.js';
export { encodeBatch, decodeBatch, BatchError, KINDS, VERSION } from './batch.js';
export { bindHost, log, requestTaskReconfiguration, raiseError, offsets, transactionContext, TransactionContext } from './host.js';
export { FileAppender } from './files.js';
export { exportSource, exportSink, exportTransform, connectorExports, sourceTaskExports, sinkTaskExports, transformationExports } from './exports.js';
export { Transform, Fail, fail } from './transform.js';
export { applyBatch } from './transform-glue.js';
export { TransformHarness } from './testing.js';
