// runtime: in-process calls between transports started in this process.
import type { TransportBinding } from '../binding.js';
import { RuntimeClient } from './client.js';
import { RuntimeServer } from './server.js';

export const runtimeBinding: TransportBinding = {
  name: 'runtime',
  schemes: ['runtime:'],
  createServer: () => new RuntimeServer(),
  createClient: () => new RuntimeClient(),
};
