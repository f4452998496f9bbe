// The two routes of the A2A 1.0 boundary as endpoints of an agent's table: the public card at
// GET /.well-known/agent-card.json and JSON-RPC at POST /. The JSON-RPC route reads its body
// itself (rawBody), so a bad body or media type is answered as JSON-RPC says; a body the
// transport refuses before the adapter sees it (over the size limit, too slow) is answered as
// a JSON-RPC error too, with the transport's HTTP status.
import { agentOperations } from '../../generated/operations/agent.js';
import type { OperationSpec } from '../../generated/operations/spec.js';
import { encodeNormalizedJson, PreEncoded } from '../core/json/encoded.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { CardIdentity } from '../core/card-identity.js';
import { routeKey, type Endpoint } from '../transport/endpoint.js';
import type { RawHttpBody } from '../transport/http/raw-body.js';
import { A2A_SPAN_START } from './a2a-spans.js';
import { buildA2aCard } from './agent-card.js';
import { A2aRpcError } from './errors.js';
import type { A2aAdapter } from './json-rpc-adapter.js';

export interface A2aEndpointOptions {
  readonly adapter: A2aAdapter;
  readonly identity: CardIdentity;
  readonly authenticator: Authenticator | null;
  /** The agent's address once it listens. */
  readonly url: () => string;
}

export function buildA2aEndpoints(options: A2aEndpointOptions): Map<string, Endpoint> {
  const cardSpec = agentOperations.getA2ACard as OperationSpec;
  const rpcSpec = agentOperations.a2aJsonRpc as OperationSpec;
  let card: PreEncoded | null = null;
  const cardEndpoint: Endpoint = {
    spec: cardSpec,
    unary: () => {
      if (!card) {
        const value = buildA2aCard(options.identity, options.url(), options.authenticator);
        card = new PreEncoded(value, encodeNormalizedJson(value));
      }
      return Promise.resolve(card);
    },
  };
  const rpcEndpoint: Endpoint = {
    spec: rpcSpec,
    rawBody: true,
    unary: (data, context) => options.adapter.handle(data as RawHttpBody, context),
    errorBody: refusalBody,
    // Named `parley a2a` until the adapter has read the JSON-RPC method.
    spanStart: A2A_SPAN_START,
  };
  return new Map([
    [routeKey(cardSpec.method, cardSpec.path), cardEndpoint],
    [routeKey(rpcSpec.method, rpcSpec.path), rpcEndpoint],
  ]);
}

/**
 * A refusal from the transport as a JSON-RPC error: a body too large or too slow is an invalid
 * request, a failure on our side an internal error. Authentication refusals keep parley's own
 * 401 body, which A2A clients read as an HTTP authentication failure.
 */
function refusalBody(error: { readonly status: number; readonly message: string }): unknown {
  if (error.status === 401 || error.status === 403) return undefined;
  const kind = error.status >= 500 ? 'internalError' : 'invalidRequest';
  return { jsonrpc: '2.0', id: null, error: new A2aRpcError(kind, error.message).toObject() };
}
