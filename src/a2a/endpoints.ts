// The A2A 1.0 boundary as endpoints of an agent's table: the public card, and each binding's
// routes built from the one request handler. A new binding adds its `binding.ts` call here.
// Which bindings an agent serves follows its transport: JSON-RPC and HTTP+JSON on http, the gRPC
// binding (lf.a2a.v1.A2AService) on grpc; the card's route is in the table either way (on grpc it is
// reached through SvcTransport, as every native route is).
import type { Endpoint } from '../transport/endpoint.js';
import { buildCardEndpoint, type CardEndpointOptions } from './card/card-endpoint.js';
import { buildGrpcEndpoints } from './grpc/binding.js';
import type { A2aRequestHandler } from './handler/request-handler.js';
import { buildJsonRpcEndpoints } from './jsonrpc/binding.js';
import type { JsonRpcOptions } from './jsonrpc/dispatch.js';
import { buildRestEndpoints } from './rest/binding.js';

/** The transports the A2A boundary is served on. */
export const A2A_TRANSPORTS = ['http', 'grpc'] as const;

export interface A2aEndpointOptions extends CardEndpointOptions {
  readonly handler: A2aRequestHandler;
  readonly jsonRpc?: JsonRpcOptions;
  /** The agent's transport: which bindings are served. Default http. */
  readonly transport?: (typeof A2A_TRANSPORTS)[number];
}

export function buildA2aEndpoints(options: A2aEndpointOptions): Map<string, Endpoint> {
  const endpoints =
    options.transport === 'grpc' ? buildGrpcEndpoints(options.handler) : buildJsonRpcEndpoints(options.handler, options.jsonRpc);
  // HTTP+JSON beside JSON-RPC on an http agent.
  if (options.transport !== 'grpc')
    for (const [key, endpoint] of buildRestEndpoints(options.handler)) endpoints.set(key, endpoint);
  const [key, card] = buildCardEndpoint(options);
  endpoints.set(key, card);
  return endpoints;
}
