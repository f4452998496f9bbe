// sse: the http transport plus task streams. Unary routes are served and called exactly as on
// http; `POST /tasks/stream` answers with a `text/event-stream` of JSON-RPC-style envelopes.
import type { TransportBinding } from '../binding.js';
import { SseClient } from './client.js';
import { SseServer } from './server.js';

export const sseBinding: TransportBinding = {
  name: 'sse',
  schemes: ['http:', 'https:'],
  capabilities: { networked: true, streaming: true, tls: true, bidirectional: false, persistent_connections: true, pages: true },
  createServer: (context) => new SseServer(context),
  createClient: (context) => new SseClient(context),
};
