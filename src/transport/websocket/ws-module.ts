// The `ws` package is optional: it is loaded on first use, so a missing install fails only
// the websocket transport, with an error that names the package.
import { importOptional } from '../../core/errors.js';

export type WsModule = typeof import('ws');

let loading: Promise<WsModule> | null = null;

export function loadWs(): Promise<WsModule> {
  loading ??= importOptional<WsModule>('ws', 'the websocket transport').catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}
