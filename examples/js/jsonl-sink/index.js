// The component's exports: the connector and its task, wrapped by the SDK.

import { exportSink } from 'wasm-connect-sdk';

import { JsonlSink } from './connector.js';
import { JsonlTask } from './task.js';

export const { connector, sinkTask } = exportSink(JsonlSink, JsonlTask);
