// The component's export: the transform, wrapped by the SDK.

import { exportTransform } from '../../../plugins/sdk-js/src/index.js';

import { Redact } from './redact.js';

export const { transformation } = exportTransform(Redact);
