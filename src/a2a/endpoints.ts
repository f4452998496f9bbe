// The A2A 1.0 boundary as endpoints of an agent's table: the public card, and each binding's
// routes built from the one request handler. A new binding adds its `binding.ts` call here.
import type { Endpoint } from '../transport/endpoint.js';
import { buildCardEndpoint, type CardEndpointOptions } from './card/card-endpoint.js';
import type { A2aRequestHandler } from './handler/request-handler.js';
import { buildJsonRpcEndpoints } from './jsonrpc/binding.js';
import type { JsonRpcOptions } from './jsonrpc/dispatch.js';

export interface A2aEndpointOptions extends CardEndpointOptions {
  readonly handler: A2aRequestHandler;
  readonly jsonRpc?: JsonRpcOptions;
}

export function buildA2aEndpoints(options: A2aEndpointOptions): Map<string, Endpoint> {
  const endpoints = buildJsonRpcEndpoints(options.handler, options.jsonRpc);
  const [key, card] = buildCardEndpoint(options);
  endpoints.set(key, card);
  return endpoints;
}
