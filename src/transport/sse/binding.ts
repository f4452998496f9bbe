// sse: the http transport plus task streams. Unary routes are served and called exactly as on
// http; `POST /tasks/stream` answers with a `text/event-stream` of JSON-RPC-style envelopes.
import type { TransportBinding } from '../binding.js';
import { HttpServer } from '../http/server.js';
import { SseClient } from './client.js';
import { writeSseStream } from './stream-writer.js';

export const sseBinding: TransportBinding = {
  name: 'sse',
  schemes: ['http:', 'https:'],
  capabilities: { networked: true, streaming: true, tls: true, bidirectional: false, persistent_connections: true, pages: true },
  createServer: (context) => new HttpServer(context, { streamWriter: writeSseStream }),
  createClient: (context) => new SseClient(context),
};
