// Mounting an agent inside an existing express app, or any server that hands node:http's
// (req, res) to a handler (node:http itself, connect, ...). The agent's routes are served by the
// same request listener as the standalone server, task streams included (as text/event-stream,
// the sse transport's answer, unless the mount is asked to be plain http); only the listening
// socket is the app's. Express is on the path of every request there, so the standalone server
// stays the fast choice (bench/http measures both).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TransportBinding } from '../binding.js';
import { Transport, type TransportOptions } from '../transport.js';
import { httpBinding } from './binding.js';
import { sseBinding } from '../sse/binding.js';
import { writeSseStream } from '../sse/server.js';
import { InvalidArgumentError } from '../../core/errors.js';
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

export interface MountOptions extends TransportOptions {
  /**
   * What the mount serves, as the standalone server of that name would: `sse` (the default)
   * answers `POST /tasks/stream` with an event stream; `http` serves the unary routes only, and
   * its stream route answers 404. The card names it, so clients know whether to stream.
   */
  readonly transport?: 'sse' | 'http';
}

/**
 * A transport that serves through your app. `url` is where the agent is reachable from
 * outside (for the card and health), for example `http://localhost:3000/agent`.
 */
export function createMountedTransport(url: string, options: MountOptions = {}): MountedAgentTransport {
  const { transport: name = 'sse', ...transportOptions } = options;
  if (name !== 'sse' && name !== 'http') {
    throw new InvalidArgumentError(
      `createMountedTransport: transport must be 'sse' or 'http', not ${JSON.stringify(name)}`,
      'unknown_transport',
    );
  }
  const streams = name === 'sse';
  let listener: Listener | null = null;
  // The chosen transport in every respect but the listening socket, which is the app's.
  const binding: TransportBinding = {
    ...(streams ? sseBinding : httpBinding),
    createServer: () => ({
      async listen(boundUrl, dispatcher) {
        listener = createRequestListener(dispatcher, streams ? { streamWriter: writeSseStream } : {});
        return boundUrl;
      },
      async close() {
        listener = null;
      },
    }),
  };
  return {
    transport: new Transport(binding, url, transportOptions),
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
