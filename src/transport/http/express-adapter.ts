// Mounting an agent inside an existing express (or any node:http style) app. The agent's
// routes are served by the same request listener as the standalone http server; only the
// listening socket is the app's. Express is on the path of every request there, so the
// standalone server stays the fast choice (bench/http measures both).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TransportBinding } from '../binding.js';
import { Transport, type TransportOptions } from '../transport.js';
import { httpBinding } from './binding.js';
import { newId } from '../../core/ids.js';
import { EndpointError } from '../endpoint-error.js';
import { headerValue } from '../query-params.js';
import { createRequestListener, writeError } from './request-listener.js';
import { REQUEST_ID_HEADER } from '../wire-names.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface MountedAgentTransport {
  /** Give this to `new AgentServer({ transport })`, then `start()` it. */
  readonly transport: Transport;
  /** Mount with `app.use('/agent', handler)`; answers 503 until the agent has started. */
  readonly handler: (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;
}

/**
 * A transport that serves through your app. `url` is where the agent is reachable from
 * outside (for the card and health), for example `http://localhost:3000/agent`.
 */
export function createMountedTransport(url: string, options?: TransportOptions): MountedAgentTransport {
  let listener: Listener | null = null;
  // The http transport in every respect but the listening socket, which is the app's.
  const binding: TransportBinding = {
    ...httpBinding,
    createServer: () => ({
      async listen(boundUrl, dispatcher) {
        listener = createRequestListener(dispatcher);
        return boundUrl;
      },
      async close() {
        listener = null;
      },
    }),
  };
  return {
    transport: new Transport(binding, url, options),
    handler(req, res) {
      if (!listener) {
        writeError(
          res,
          new EndpointError('unavailable', 'the agent is not started'),
          headerValue(req, REQUEST_ID_HEADER) || newId(),
        );
        return;
      }
      listener(req, res);
    },
  };
}
