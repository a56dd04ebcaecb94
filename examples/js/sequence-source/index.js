// The component's exports: the connector and its task, wrapped by the SDK.

import { exportSource } from 'wasm-connect-sdk';

import { SequenceSource } from './connector.js';
import { SequenceTask } from './task.js';

export const { connector, sourceTask } = exportSource(SequenceSource, SequenceTask);
