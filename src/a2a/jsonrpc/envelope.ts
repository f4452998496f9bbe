// The JSON-RPC 2.0 envelope: reading a request object (or each member of a batch) and writing
// responses. What is a valid request is JSON-RPC's rule: an object with `jsonrpc` "2.0", a
// string `method`, `params` (if any) an object or array, and `id` (if any) a string, a number
// or null. A request without `id` is a notification, which gets no response.
import { encodeNormalizedJson, PreEncoded } from '../../core/json/encoded.js';
import type { JsonDecodeResult } from '../../core/off-thread-json.js';
import { A2aError } from '../errors/a2a-error.js';
import { rpcErrorObject, type RpcErrorObject } from './errors.js';

export type RpcId = string | number | null;

export interface RpcCall {
  readonly id: RpcId;
  readonly notification: boolean;
  readonly method: string;
  readonly params: unknown;
}

export type RpcResponse =
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly error: RpcErrorObject };

const EMPTY_BODY = 'the request body is empty; a JSON-RPC request object was expected';

/** Parses the body text; anything that is not JSON is a parse error (-32700). */
export function parseRpcBody(text: string): unknown {
  if (text.trim() === '') throw new A2aError('parseError', EMPTY_BODY);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new A2aError('parseError', `the request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * parseRpcBody for a large body decoded and parsed on a worker (RawHttpBody.decoded): the same
 * value, or the same parse error.
 */
export function parsedRpcBody(decoded: JsonDecodeResult): unknown {
  if (decoded.kind === 'invalid_json') {
    throw new A2aError('parseError', `the request body is not valid JSON: ${decoded.parserMessage}`);
  }
  const value = decoded.kind === 'value' ? decoded.value : undefined;
  if (value === undefined) throw new A2aError('parseError', EMPTY_BODY);
  return value;
}

/** The id to answer an invalid request with: its own when that is usable, else null. */
export function usableId(value: unknown): RpcId {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return isValidId(id) ? (id as RpcId) : null;
}

/** Reads one request object; a malformed one is an invalid request (-32600). */
export function readRpcCall(value: unknown): RpcCall {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new A2aError('invalidRequest', 'a JSON-RPC request must be an object');
  }
  const object = value as Record<string, unknown>;
  if (object.jsonrpc !== '2.0') throw new A2aError('invalidRequest', 'a JSON-RPC request needs "jsonrpc": "2.0"');
  if (typeof object.method !== 'string' || object.method === '') {
    throw new A2aError('invalidRequest', 'a JSON-RPC request needs "method", a non-empty string');
  }
  const hasId = Object.hasOwn(object, 'id');
  if (hasId && !isValidId(object.id)) throw new A2aError('invalidRequest', '"id" must be a string, a number or null');
  const params = object.params;
  if (params !== undefined && (typeof params !== 'object' || params === null)) {
    throw new A2aError('invalidRequest', '"params" must be an object or an array');
  }
  return { id: hasId ? (object.id as RpcId) : null, notification: !hasId, method: object.method, params };
}

function isValidId(id: unknown): boolean {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

export function rpcResult(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function rpcFailure(id: RpcId, error: A2aError): RpcResponse {
  return { jsonrpc: '2.0', id, error: rpcErrorObject(error) };
}

/** A response (or a batch of them) as the text the transport sends. */
export function encodeRpc(value: RpcResponse | readonly RpcResponse[]): PreEncoded {
  return new PreEncoded(value, encodeNormalizedJson(value));
}

/** The answer when there is nothing to answer (only notifications): an empty body. */
export const NO_RESPONSE = new PreEncoded(null, { text: '', bytes: 0 });
