// The JSON text frames of the websocket wire. A request frame is a request envelope
// (schemas/native/request-envelope.schema.json); every answer is a response envelope, one
// per unary call or one per stream event, the last with `final` true.
import { validate } from '../../../generated/validators/index.js';
import { describeJsonSyntaxError } from '../../core/json-syntax.js';
import type { OutboundCall } from '../binding.js';
import type { Limits } from '../config.js';
import type { QueryParams } from '../endpoint.js';
import { EndpointError, type ErrorObject } from '../endpoint-error.js';
import { TransportProtocolError } from '../errors.js';
import { paramsFromEnvelope } from '../query-params.js';

/** Send options for a frame handed to ws as a Buffer: still a text frame. */
export const TEXT_FRAME = { binary: false } as const;

/** Room for the envelope around the largest payload (id, method, path, params, key). */
export const ENVELOPE_ROOM = 64 * 1024;

/**
 * The largest frame either side accepts: the largest payload the limits allow, plus room for
 * its envelope. Anything bigger is refused by `ws` itself with close code 1009; payloads
 * under that but over their own limit get an ordinary error answer.
 */
export function maxFrameBytes(limits: Limits): number {
  return Math.max(limits.maxRequestBytes, limits.maxResponseBytes, limits.maxEventBytes) + ENVELOPE_ROOM;
}

/** What `ws` hands a message listener (node buffers, the default binary type). */
export type RawData = Buffer | ArrayBuffer | Buffer[];

export function frameBuffer(raw: RawData): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  if (Array.isArray(raw)) return Buffer.concat(raw);
  return Buffer.from(raw);
}

/** A frame's size, without joining its fragments. */
function byteLengthOf(raw: RawData): number {
  return Array.isArray(raw) ? raw.reduce((sum, fragment) => sum + fragment.length, 0) : raw.byteLength;
}

// ---------------------------------------------------------------------------- server side

export interface RequestFrame {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly data: unknown;
  readonly params: QueryParams;
  readonly idempotencyKey: string | null;
  /** Size for the request limit and the metrics: the frame, or the payload alone when the frame is over the limit. */
  readonly bytes: number;
}

export type DecodedRequest =
  | { readonly ok: true; readonly frame: RequestFrame }
  /** `bytes`: the frame's size, for the metrics of a refused request. */
  | { readonly ok: false; readonly id: string | null; readonly error: EndpointError; readonly bytes: number };

/** Reads a request frame. A frame that cannot be served says why, with its id when it has a readable one. */
export function decodeRequestFrame(raw: RawData, isBinary: boolean, maxRequestBytes: number): DecodedRequest {
  if (isBinary) {
    return {
      ok: false,
      id: null,
      error: new EndpointError('invalid_request', 'binary frames are not accepted; send each request as a JSON text frame'),
      bytes: byteLengthOf(raw),
    };
  }
  const buffer = frameBuffer(raw);
  const text = buffer.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      id: null,
      error: new EndpointError('invalid_json', `request frame is not valid JSON: ${describeJsonSyntaxError(text, error)}`),
      bytes: buffer.length,
    };
  }
  const checked = validate('request-envelope', value);
  if (!checked.valid) {
    const id = value && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
    return {
      ok: false,
      id: typeof id === 'string' && id !== '' ? id : null,
      error: EndpointError.invalidRequest('request envelope', checked.errors),
      bytes: buffer.length,
    };
  }
  const envelope = checked.value;
  const bytes = buffer.length <= maxRequestBytes ? buffer.length : Buffer.byteLength(JSON.stringify(envelope.data ?? null));
  return {
    ok: true,
    frame: {
      id: envelope.id,
      method: envelope.method,
      path: envelope.path,
      data: envelope.data,
      params: paramsFromEnvelope(envelope.params),
      idempotencyKey: envelope.idempotency_key ?? null,
      bytes,
    },
  };
}

/** A success frame around an already encoded result, so the result is serialized once. */
export function okFrame(id: string, resultText: string, final: boolean): string {
  return `{"id":${JSON.stringify(id)},"ok":true,"result":${resultText},"error":null,"final":${final}}`;
}

/** A failure frame; failures always end their call. */
export function errorFrame(id: string | null, error: ErrorObject): string {
  return JSON.stringify({ id, ok: false, result: null, error, final: true });
}

// ---------------------------------------------------------------------------- client side

/** The request envelope of one call; the body is inserted as the text the pipeline encoded. */
export function requestFrame(call: OutboundCall): string {
  return (
    `{"id":${JSON.stringify(call.requestId)},"method":${JSON.stringify(call.spec.method)},` +
    `"path":${JSON.stringify(call.spec.path)},"data":${call.body?.text ?? 'null'},` +
    `"params":${JSON.stringify(call.params)},"idempotency_key":${JSON.stringify(call.idempotencyKey)}}`
  );
}

export interface ResponseFrame {
  readonly id: string | null;
  readonly ok: boolean;
  readonly result: unknown;
  readonly error: unknown;
  readonly final: boolean;
  /** Wire size of the frame. */
  readonly bytes: number;
}

/**
 * Reads a response frame, checking what the client relies on: a JSON object with a string
 * or null `id`, a boolean `ok` and a boolean `final`. The error object of an `ok: false`
 * frame is read leniently, as any remote error is.
 */
export function decodeResponseFrame(raw: RawData, isBinary: boolean, url: string, requestId: string): ResponseFrame {
  const fail = (why: string) => new TransportProtocolError(`frame from ${url} ${why}`, { url, requestId, retryable: false });
  if (isBinary) throw fail('is binary; the websocket wire carries JSON text frames');
  const buffer = frameBuffer(raw);
  let value: unknown;
  try {
    value = JSON.parse(buffer.toString('utf8'));
  } catch {
    throw fail('is not valid JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw fail('is not a JSON object');
  const frame = value as Record<string, unknown>;
  if (frame.id !== null && typeof frame.id !== 'string') throw fail('has no string or null `id`');
  if (typeof frame.ok !== 'boolean') throw fail('has no boolean `ok`');
  if (typeof frame.final !== 'boolean') throw fail('has no boolean `final`');
  return {
    id: frame.id as string | null,
    ok: frame.ok,
    result: frame.result ?? null,
    error: frame.error ?? null,
    final: frame.final,
    bytes: buffer.length,
  };
}
