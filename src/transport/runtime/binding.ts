// runtime: in-process calls between transports started in this process.
import type { TransportBinding } from '../binding.js';
import { RuntimeClient } from './client.js';
import { RuntimeServer } from './server.js';

export const runtimeBinding: TransportBinding = {
  name: 'runtime',
  schemes: ['runtime:'],
  capabilities: {
    networked: false,
    streaming: true,
    tls: false,
    bidirectional: false,
    persistent_connections: false,
    pages: false,
  },
  createServer: () => new RuntimeServer(),
  createClient: () => new RuntimeClient(),
};
