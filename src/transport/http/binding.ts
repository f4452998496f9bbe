// http: JSON over plain HTTP routes; no task streams.
import type { TransportBinding } from '../binding.js';
import { HttpClient } from './client.js';
import { HttpServer } from './server.js';

export const httpBinding: TransportBinding = {
  name: 'http',
  schemes: ['http:', 'https:'],
  capabilities: { networked: true, streaming: false, tls: true, bidirectional: false, persistent_connections: true, pages: true },
  createServer: (context) => new HttpServer(context),
  createClient: (context) => new HttpClient(context),
};
