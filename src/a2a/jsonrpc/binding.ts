// The JSON-RPC binding's route as an endpoint of an agent's table: `POST /`. The route reads its
// body itself (rawBody), so a bad body or media type is answered as JSON-RPC says; a body the
// transport refuses before the binding sees it (over the size limit, too slow) is answered as a
// JSON-RPC error too, with the transport's HTTP status. Every binding folder has this file: it
// builds the binding's endpoints from the one request handler.
import { agentOperations } from '../../../generated/operations/agent.js';
import type { OperationSpec } from '../../../generated/operations/spec.js';
import { routeKey, type Endpoint } from '../../transport/endpoint.js';
import type { RawHttpBody } from '../../transport/http/raw-body.js';
import { CrossOriginRefusal } from '../../transport/browser-origin.js';
import { A2aError } from '../errors/a2a-error.js';
import type { A2aRequestHandler } from '../handler/request-handler.js';
import { JsonRpcDispatcher, type JsonRpcOptions } from './dispatch.js';
import { rpcErrorObject } from './errors.js';
import { A2A_SPAN_START } from './spans.js';

export function buildJsonRpcEndpoints(handler: A2aRequestHandler, options: JsonRpcOptions = {}): Map<string, Endpoint> {
  const dispatcher = new JsonRpcDispatcher(handler, options);
  const spec = agentOperations.a2aJsonRpc as OperationSpec;
  const endpoint: Endpoint = {
    spec,
    rawBody: true,
    unary: (data, context) => dispatcher.handle(data as RawHttpBody, context),
    errorBody: refusalBody,
    // Named `parley a2a` until the dispatcher has read the JSON-RPC method.
    spanStart: A2A_SPAN_START,
  };
  return new Map([[routeKey(spec.method, spec.path), endpoint]]);
}

/**
 * A refusal from the transport as a JSON-RPC error: a body too large or too slow is an invalid
 * request, a failure on our side an internal error, a browser request from a foreign origin an
 * invalid request (sent with 403). Authentication refusals keep parley's own 401 or 403 body,
 * which A2A clients read as an HTTP authentication failure.
 */
function refusalBody(error: { readonly status: number; readonly message: string }): unknown {
  if ((error.status === 401 || error.status === 403) && !(error instanceof CrossOriginRefusal)) return undefined;
  const kind = error.status >= 500 ? 'internalError' : 'invalidRequest';
  return { jsonrpc: '2.0', id: null, error: rpcErrorObject(new A2aError(kind, error.message)) };
}
