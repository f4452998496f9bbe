// The request and response envelopes every framed wire shares (websocket frames, gRPC
// messages, SSE `data:` lines), read and written in one place so the rules of
// schemas/native/request-envelope.schema.json and response-envelope.schema.json hold the same
// on each. Servers read requests and write responses as text with the result spliced in as
// the dispatcher encoded it (never serialized twice); clients read responses. gRPC carries
// protobuf messages: its binding turns them into plain values and hands them to these readers.
import { validate } from '../../generated/validators/index.js';
import { jsonValueTooDeep, MAX_JSON_DEPTH } from '../core/json/depth.js';
import type { InboundEvent } from './binding.js';
import type { QueryParams } from './endpoint.js';
import { EndpointError, type ErrorObject } from './endpoint-error.js';
import { TransportProtocolError } from './errors.js';
import { paramsFromEnvelope } from './query-params.js';
import type { TraceHeaders } from './trace-headers.js';

/**
 * Room for the envelope around the largest payload (id, method, path, params, key, the SSE
 * `jsonrpc`): a frame may be this much larger than the payload limit before it is refused
 * unread; the payload itself is then held to the exact limit.
 */
export const ENVELOPE_ROOM = 64 * 1024;

// ---------------------------------------------------------------------------- requests

/** A request envelope that passed the schema, with its `params` as handlers see them. */
export interface RequestEnvelopeFields {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly data: unknown;
  readonly params: QueryParams;
  readonly idempotencyKey: string | null;
  /** The caller's W3C trace context (`trace`), when it sent a traceparent. */
  readonly trace: TraceHeaders | undefined;
}

export type ReadRequest =
  | { readonly ok: true; readonly envelope: RequestEnvelopeFields }
  | {
      readonly ok: false;
      /** The envelope's id when it has a usable one, for the error answer. */
      readonly id: string | null;
      readonly error: EndpointError;
      /** True when `data` or `params` nests past MAX_JSON_DEPTH (gRPC answers INVALID_ARGUMENT). */
      readonly tooDeep: boolean;
    };

/**
 * Test seam: when set, runs before every request envelope is read, so a test can make reading
 * fail in a way no input can and check that the failure stays inside its connection.
 */
let readHook: ((value: unknown) => void) | null = null;

export function setRequestReadHook(hook: ((value: unknown) => void) | null): void {
  readHook = hook;
}

/**
 * Reads a parsed request envelope. Nesting is checked first, without recursion, since the
 * schema check and everything after it walk `data` and `params` recursively.
 */
export function readRequestEnvelope(value: unknown): ReadRequest {
  if (readHook) readHook(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as { data?: unknown; params?: unknown };
    const tooDeep = jsonValueTooDeep(fields.data) ? 'data' : jsonValueTooDeep(fields.params) ? 'params' : null;
    if (tooDeep)
      return {
        ok: false,
        id: usableId(value),
        error: EndpointError.tooDeep(`the envelope's ${tooDeep}`, MAX_JSON_DEPTH),
        tooDeep: true,
      };
  }
  const checked = validate('request-envelope', value);
  if (!checked.valid) {
    return {
      ok: false,
      id: usableId(value),
      error: EndpointError.invalidRequest('request envelope', checked.errors),
      tooDeep: false,
    };
  }
  const envelope = checked.value;
  return {
    ok: true,
    envelope: {
      id: envelope.id,
      method: envelope.method,
      path: envelope.path,
      data: envelope.data,
      params: paramsFromEnvelope(envelope.params),
      idempotencyKey: envelope.idempotency_key ?? null,
      trace: envelope.trace?.traceparent ? (envelope.trace as TraceHeaders) : undefined,
    },
  };
}

function usableId(value: unknown): string | null {
  const id = value !== null && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id !== '' ? id : null;
}

// ---------------------------------------------------------------------------- responses

export interface EnvelopeContext {
  readonly url: string;
  readonly requestId: string;
}

/**
 * Reads a parsed response envelope (`bytes`: its size on the wire). `id`, `ok` and `final`
 * are required; `ok: false` needs an `error` object and `ok: true` allows only a null one;
 * only a non-null id other than the request's is someone else's answer. The error object
 * itself is read leniently later, as any remote error is. Anything else is a protocol error.
 */
export function readResponseEnvelope(value: unknown, bytes: number, context: EnvelopeContext): InboundEvent {
  const fail = (why: string) =>
    new TransportProtocolError(`response envelope from ${context.url} ${why}`, {
      url: context.url,
      requestId: context.requestId,
      retryable: false,
    });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('is not a JSON object');
  const frame = value as { id?: unknown; ok?: unknown; result?: unknown; error?: unknown; final?: unknown };
  const { id, ok, final } = frame;
  if (id === undefined) throw fail('has no `id`');
  if (id !== null && typeof id !== 'string') throw fail('has an `id` that is neither a string nor null');
  if (typeof ok !== 'boolean') throw fail('has no boolean `ok`');
  if (typeof final !== 'boolean') throw fail('has no boolean `final`');
  const error = frame.error ?? null;
  if (!ok && (error === null || typeof error !== 'object' || Array.isArray(error)))
    throw fail('has `ok` false but no `error` object');
  if (ok && error !== null) throw fail('has `ok` true and an `error`');
  if (id !== null && id !== context.requestId) {
    throw fail(`answers request ${id}, not request ${context.requestId}`);
  }
  return { id, ok, result: frame.result ?? null, error, final, bytes };
}

/**
 * The size a payload limit is held to: the frame's, which is a little more than its result's,
 * or, only when the frame alone is over the limit, the result's own.
 */
export function resultBytes(event: { readonly bytes: number; readonly result?: unknown }, limit: number): number {
  return event.bytes <= limit ? event.bytes : Buffer.byteLength(JSON.stringify(event.result ?? null) ?? 'null');
}

// ---------------------------------------------------------------------------- writing

/** The opening of every envelope answering one request: `{"id":...,` (SSE: with `jsonrpc`). */
export function envelopeHead(id: string | null, jsonrpc = false): string {
  return jsonrpc ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},` : `{"id":${JSON.stringify(id)},`;
}

/** A success envelope around a result already encoded as JSON text. */
export function okEnvelope(head: string, resultText: string, final: boolean): string {
  return `${head}"ok":true,"result":${resultText},"error":null,"final":${final}}`;
}

/** A failure envelope; failures always end their call. */
export function errorEnvelope(head: string, error: ErrorObject): string {
  return `${head}"ok":false,"result":null,"error":${JSON.stringify(error)},"final":true}`;
}
