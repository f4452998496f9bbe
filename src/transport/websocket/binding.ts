// websocket: JSON envelopes in text frames over one long-lived connection (ws:// and wss://).
// Nothing here imports `ws` eagerly; the server and client load it when they first need it.
import type { TransportBinding } from '../binding.js';
import { WebSocketClient } from './client.js';
import { WebSocketServer } from './server.js';

export const websocketBinding: TransportBinding = {
  name: 'websocket',
  schemes: ['ws:', 'wss:'],
  capabilities: { networked: true, streaming: true, tls: true, bidirectional: true, persistent_connections: true, pages: false },
  createServer: (context) => new WebSocketServer(context),
  createClient: (context) => new WebSocketClient(context),
};
