// The JSON text frames of the websocket wire. A request frame is a request envelope
// (schemas/native/request-envelope.schema.json); every answer is a response envelope, one
// per unary call or one per stream event, the last with `final` true.
import type { WebSocket } from 'ws';
import { describeJsonSyntaxError } from '../../core/json/syntax.js';
import { isLargePayload } from '../../core/large-payload-turns.js';
import { decodeJsonOffThread } from '../../core/off-thread-json.js';
import type { InboundEvent, OutboundCall } from '../binding.js';
import type { Limits } from '../config.js';
import { EndpointError, type ErrorObject } from '../endpoint-error.js';
import {
  ENVELOPE_ROOM,
  envelopeHead,
  errorEnvelope,
  okEnvelope,
  readRequestEnvelope,
  readResponseEnvelope,
  type RequestEnvelopeFields,
} from '../envelope.js';
import { TransportProtocolError } from '../errors.js';

/** Send options for a text frame (ws would send a Buffer as a binary one). */
export const TEXT_FRAME = { binary: false } as const;

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

function frameBuffer(raw: RawData): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  if (Array.isArray(raw)) return Buffer.concat(raw);
  return Buffer.from(raw);
}

/** A frame's size, without joining its fragments. */
export function frameBytes(raw: RawData): number {
  return Array.isArray(raw) ? raw.reduce((sum, fragment) => sum + fragment.length, 0) : raw.byteLength;
}

// ---------------------------------------------------------------------------- server side

interface RequestFrame extends RequestEnvelopeFields {
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
      bytes: frameBytes(raw),
    };
  }
  const buffer = frameBuffer(raw);
  const text = buffer.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return notJson(describeJsonSyntaxError(text, error), buffer.length);
  }
  return requestFromValue(value, buffer.length, maxRequestBytes);
}

/**
 * decodeRequestFrame for a large frame: the text is decoded and parsed on a worker thread
 * (../../core/off-thread-json.ts), with the same outcomes. The frame's bytes are handed over.
 */
export async function decodeLargeRequestFrame(raw: RawData, isBinary: boolean, maxRequestBytes: number): Promise<DecodedRequest> {
  if (isBinary) return decodeRequestFrame(raw, isBinary, maxRequestBytes);
  const buffer = frameBuffer(raw);
  const frameSize = buffer.length;
  // The envelope's data and params are checked for depth below, as for any frame.
  const decoded = await decodeJsonOffThread(buffer, { checkDepth: false });
  if (decoded.kind === 'invalid_json') return notJson(decoded.located, frameSize);
  return requestFromValue(decoded.kind === 'value' ? decoded.value : undefined, frameSize, maxRequestBytes);
}

function notJson(located: string, frameSize: number): DecodedRequest {
  return {
    ok: false,
    id: null,
    error: new EndpointError('invalid_json', `request frame is not valid JSON: ${located}`),
    bytes: frameSize,
  };
}

function requestFromValue(value: unknown, frameSize: number, maxRequestBytes: number): DecodedRequest {
  const read = readRequestEnvelope(value);
  if (!read.ok) return { ok: false, id: read.id, error: read.error, bytes: frameSize };
  const envelope = read.envelope;
  // Nesting is bounded by now, so measuring the payload alone cannot exhaust the stack.
  const bytes = frameSize <= maxRequestBytes ? frameSize : Buffer.byteLength(JSON.stringify(envelope.data ?? null));
  // Fields listed out: a spread here costs more than the rest of the decoding.
  const { id, method, path, data, params, idempotencyKey, trace } = envelope;
  return { ok: true, frame: { id, method, path, data, params, idempotencyKey, trace, bytes } };
}

/** A success frame around an already encoded result, so the result is serialized once. */
export function okFrame(id: string, resultText: string, final: boolean): string {
  return okEnvelope(envelopeHead(id), resultText, final);
}

/** A failure frame; failures always end their call. */
export function errorFrame(id: string | null, error: ErrorObject): string {
  return errorEnvelope(envelopeHead(id), error);
}

// ---------------------------------------------------------------------------- client side

/**
 * The largest frame a large request message is cut into. A ws server without the optional
 * bufferutil package unmasks a client's frame in JavaScript, all of it at once when its last
 * byte arrives: about 100 ms for one 16 MiB frame, during which it serves nobody else. In
 * frames of this size the unmasking is spread over the reads that bring them.
 */
export const REQUEST_FRAGMENT_BYTES = 1024 * 1024;

/** Sends a request message as one text frame, or, when large, as fragments of one text message. */
export function sendRequestMessage(socket: WebSocket, message: Buffer): void {
  if (!isLargePayload(message.length)) {
    socket.send(message, TEXT_FRAME);
    return;
  }
  // Sent in one go: nothing else can be written between the fragments of the message.
  for (let at = 0; at < message.length; at += REQUEST_FRAGMENT_BYTES) {
    const end = Math.min(at + REQUEST_FRAGMENT_BYTES, message.length);
    socket.send(message.subarray(at, end), { binary: false, fin: end === message.length });
  }
}

/**
 * The request envelope of one call; the body is inserted as the text the pipeline encoded. The
 * trace context goes in the frame, not the handshake: one connection carries many requests.
 */
export function requestFrame(call: OutboundCall): string {
  return (
    `{"id":${JSON.stringify(call.requestId)},"method":${JSON.stringify(call.spec.method)},` +
    `"path":${JSON.stringify(call.spec.path)},"data":${call.body?.text ?? 'null'},` +
    `"params":${JSON.stringify(call.params)},"idempotency_key":${JSON.stringify(call.idempotencyKey)}` +
    `${call.trace ? `,"trace":${JSON.stringify(call.trace)}` : ''}}`
  );
}

/**
 * Reads a response frame: JSON text holding a response envelope for this request (see
 * ../envelope.ts for the rules). Anything else is a protocol error.
 */
export function decodeResponseFrame(raw: RawData, isBinary: boolean, url: string, requestId: string): InboundEvent {
  const fail = (why: string) => new TransportProtocolError(`frame from ${url} ${why}`, { url, requestId, retryable: false });
  if (isBinary) throw fail('is binary; the websocket wire carries JSON text frames');
  const buffer = frameBuffer(raw);
  let value: unknown;
  try {
    value = JSON.parse(buffer.toString('utf8'));
  } catch {
    throw fail('is not valid JSON');
  }
  return readResponseEnvelope(value, buffer.length, { url, requestId });
}
