// The `ws` package is optional: it is loaded on first use, so a missing install fails only
// the websocket transport, with an error that names the package.
import { importOptional } from '../../core/errors.js';
import { lazyLoader } from '../../core/lazy-import.js';

export type WsModule = typeof import('ws');

export const loadWs = lazyLoader(() => importOptional<WsModule>('ws', 'the websocket transport'));
