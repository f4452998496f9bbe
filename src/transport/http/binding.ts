// http: JSON over plain HTTP routes; no task streams.
import type { TransportBinding } from '../binding.js';
import { HttpClient } from './client.js';
import { HttpServer } from './server.js';

export const httpBinding: TransportBinding = {
  name: 'http',
  schemes: ['http:', 'https:'],
  createServer: (context) => new HttpServer(context),
  createClient: (context) => new HttpClient(context),
};
