// The spans of A2A's JSON-RPC, named as OpenTelemetry's conventions for JSON-RPC name them.
// Every method goes over one route (the operation a2aJsonRpc), so the span is named after the
// JSON-RPC method instead: `parley a2a/<Method>` for the methods of A2A 1.0, with rpc.system
// 'jsonrpc', rpc.method, rpc.jsonrpc.version and rpc.jsonrpc.request_id, and
// rpc.jsonrpc.error_code and rpc.jsonrpc.error_message on an error answer. A request whose
// method is not one of them, a batch and a body that is not JSON-RPC keep `parley a2a` and no
// rpc.method: span names stay few whatever a caller sends. Nothing here runs unless a span
// records.
import type { SpanHandle, SpanStart } from '../../transport/endpoint.js';
import type { CallSpans } from '../../transport/outbound.js';
import type { RpcCall, RpcId, RpcResponse } from './envelope.js';

/** The JSON-RPC methods of A2A 1.0, the only ones a span is named after. */
const METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;

/** The name of a span whose method is not known (yet, or at all). */
const BOUNDED_NAME = 'parley a2a';

/** Span names by method, made once. */
const NAMES: ReadonlyMap<string, string> = new Map(METHODS.map((method) => [method, `${BOUNDED_NAME}/${method}`]));

const VERSION = '2.0';

/** How the SERVER span of the JSON-RPC route starts, before the body is read. */
export const A2A_SPAN_START: SpanStart = {
  name: BOUNDED_NAME,
  attributes: { 'rpc.system': 'jsonrpc', 'rpc.jsonrpc.version': VERSION },
};

/** The JSON-RPC id as the conventions record it: a string, '' for null. */
function idAttribute(id: RpcId): string {
  return id === null ? '' : String(id);
}

/**
 * Names the served span after the one call its request holds, once the call is read. `known`:
 * whether the binding serves the method (an unknown one leaves the bounded name).
 */
export function describeServedCall(span: SpanHandle, call: RpcCall, known: boolean): void {
  // A notification has no id, and the conventions leave the attribute out then.
  if (!call.notification) span.setAttribute('rpc.jsonrpc.request_id', idAttribute(call.id));
  const name = known ? NAMES.get(call.method) : undefined;
  if (name === undefined) return;
  span.updateName(name);
  span.setAttribute('rpc.method', call.method);
}

/**
 * What the served span learns from the answer to a request that is not a readable call (bad
 * JSON, not a request object): its id, if it had a usable one.
 */
export function describeUnreadCall(span: SpanHandle, id: RpcId): void {
  if (id !== null) span.setAttribute('rpc.jsonrpc.request_id', idAttribute(id));
}

/**
 * Records a JSON-RPC error answer on the served span, the code as error.type too. Only an
 * internal error is this server's fault and makes the span an error, as an http 5xx does; the
 * others are the caller's mistake.
 */
export function describeServedAnswer(span: SpanHandle, response: RpcResponse): void {
  if (!('error' in response)) return;
  const { code, message } = response.error;
  span.setAttribute('rpc.jsonrpc.error_code', code);
  span.setAttribute('rpc.jsonrpc.error_message', message);
  span.fail(String(code), message, code === INTERNAL_ERROR);
}

const INTERNAL_ERROR = -32603;

/** The CLIENT spans of parley's A2A client: its requests are always one well-formed call. */
export const A2A_CALL_SPANS: CallSpans = {
  name(request) {
    return NAMES.get(fieldOf(request, 'method') as string) ?? BOUNDED_NAME;
  },
  attributes(request) {
    const attributes: Record<string, string | number | boolean> = {
      'rpc.system': 'jsonrpc',
      'rpc.jsonrpc.version': VERSION,
    };
    const method = fieldOf(request, 'method');
    if (typeof method === 'string' && NAMES.has(method)) attributes['rpc.method'] = method;
    const id = fieldOf(request, 'id');
    if (typeof id === 'string' || typeof id === 'number' || id === null) attributes['rpc.jsonrpc.request_id'] = idAttribute(id);
    return attributes;
  },
  answered(span, result) {
    const error = fieldOf(result, 'error') as { code?: unknown; message?: unknown } | undefined;
    if (typeof error !== 'object' || error === null) return;
    const message = typeof error.message === 'string' ? error.message : 'no message';
    const code = typeof error.code === 'number' ? error.code : null;
    if (code !== null) span.setAttribute('rpc.jsonrpc.error_code', code);
    span.setAttribute('rpc.jsonrpc.error_message', message);
    // The caller gets an A2aClientError (a2a_rpc_error): a failed call, whatever the code.
    span.fail(code === null ? 'a2a_rpc_error' : String(code), message, true);
  },
};

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
