// The svc.transport.v1 envelope messages on both sides: what an InvokeRequest/StreamRequest
// means to the dispatcher, and how results and errors go back. The JSON payloads (`data`,
// `result`) travel as google.protobuf.Value and the objects (`params`, `error`) as
// google.protobuf.Struct, so their ProtoJSON form is the spec's envelope exactly
// (proto/svc/transport/v1/transport.proto explains the presence rules).
import { fromJson, fromJsonString, toJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { ValueSchema, type Value } from '@bufbuild/protobuf/wkt';
import type { Metadata } from '@grpc/grpc-js';
import type { InvokeRequest, InvokeResponse } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { extractCredentials } from '../../auth/credentials.js';
import { newId } from '../../core/ids.js';
import { jsonByteLength } from '../../core/json/measure.js';
import { normalizeJson } from '../../core/json/normalize.js';
import { Inbound, type SignalSource } from '../endpoint.js';
import { EndpointError, type ErrorObject } from '../endpoint-error.js';
import { readRequestEnvelope } from '../envelope.js';
import { traceHeadersFrom } from '../trace-headers.js';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from '../wire-names.js';

/** The fields InvokeRequest and StreamRequest share (same numbers, same JSON names). */
export type RequestEnvelope = Partial<Omit<InvokeRequest, '$typeName' | '$unknown'>>;

/** The fields InvokeResponse and StreamResponse share. */
export type ResponseEnvelope = Partial<Omit<InvokeResponse, '$typeName' | '$unknown'>>;

/** Lowercase metadata keys the spec names. */
export const METADATA = Object.freeze({
  requestId: REQUEST_ID_HEADER,
  idempotencyKey: IDEMPOTENCY_KEY_HEADER,
});

export type DecodedRequest =
  | { readonly ok: true; readonly requestId: string; readonly inbound: Inbound }
  /** `tooDeep`: refused for nesting, which the service answers INVALID_ARGUMENT like an unparsable message. */
  | { readonly ok: false; readonly requestId: string; readonly error: EndpointError; readonly tooDeep: boolean };

/**
 * Reads a request message by the rules every wire shares (../envelope.ts): the message becomes
 * the plain envelope it stands for (proto3's empty strings are absent fields) and is read as
 * a websocket frame is.
 */
export function decodeRequest(envelope: RequestEnvelope, metadata: Metadata, abort: SignalSource): DecodedRequest {
  let data: unknown;
  try {
    // Bounded: the message parser refuses nesting past protobuf's recursion limit.
    data = envelope.data === undefined ? undefined : toJson(ValueSchema, envelope.data);
  } catch (error) {
    return notJson(envelope, metadata, error);
  }
  return inboundFromMetadata(envelope, data, metadata, abort);
}

/** The fields of a request envelope other than its payload, as both message shapes carry them. */
export interface EnvelopeFields {
  readonly id?: string | undefined;
  readonly method?: string | undefined;
  readonly path?: string | undefined;
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  readonly idempotencyKey?: string | undefined;
}

/**
 * The request an envelope's fields, its payload (already plain JSON, or undefined when the
 * message has none) and the call's metadata make, by the rules every wire shares
 * (../envelope.ts), nesting limit included. Every metadata key the server reads is read here:
 * the `x-svc-request-id` metadata only names an envelope that has no usable id in the error
 * answer; the `idempotency-key` metadata stands in for an envelope without one; credentials
 * come from the `authorization` / `x-api-key` metadata only; `traceparent` and `tracestate`
 * carry the caller's W3C trace context.
 */
export function inboundFromMetadata(
  envelope: EnvelopeFields,
  data: unknown,
  metadata: Metadata,
  abort: SignalSource,
): DecodedRequest {
  const read = readRequestEnvelope({
    id: nonEmpty(envelope.id),
    method: nonEmpty(envelope.method),
    path: nonEmpty(envelope.path),
    data: data === undefined ? null : data,
    params: envelope.params ?? {},
    idempotency_key: nonEmpty(envelope.idempotencyKey) ?? nonEmpty(metadataValue(metadata, METADATA.idempotencyKey)) ?? null,
  });
  if (!read.ok) return { ok: false, requestId: read.id ?? fallbackId(metadata), error: read.error, tooDeep: read.tooDeep };
  const { id, method, path, params, idempotencyKey } = read.envelope;
  const inbound = new Inbound(
    {
      method,
      path,
      data,
      params,
      requestId: id,
      idempotencyKey,
      credentials: extractCredentials(
        (name) => metadataValue(metadata, name),
        () => undefined,
      ),
      // Limits are measured on the JSON text of the payload, whatever the codec on the wire.
      receivedBytes: data === undefined ? 0 : jsonByteLength(data),
      // W3C trace context travels as call metadata (the envelope's `trace` is the websocket's).
      trace: traceHeadersFrom((name) => metadataValue(metadata, name)),
    },
    abort,
  );
  return { ok: true, requestId: id, inbound };
}

/** The first value of a text metadata key (binary `-bin` keys are never read here). */
function metadataValue(metadata: Metadata, name: string): string | undefined {
  const [value] = metadata.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** The id an answer to an unreadable envelope carries: the metadata's, else a fresh one. */
function fallbackId(metadata: Metadata): string {
  return nonEmpty(metadataValue(metadata, METADATA.requestId)) ?? newId();
}

function notJson(envelope: EnvelopeFields, metadata: Metadata, error: unknown): DecodedRequest {
  const reason = error instanceof Error ? error.message : String(error);
  const failure = new EndpointError('invalid_json', `the envelope's data is not JSON: ${reason}`);
  return { ok: false, requestId: nonEmpty(envelope.id) ?? fallbackId(metadata), error: failure, tooDeep: false };
}

/** A success envelope around JSON text the dispatcher already encoded and size-checked. */
export function successEnvelope(requestId: string, jsonText: string, final: boolean): ResponseEnvelope {
  return { id: requestId, ok: true, result: fromJsonString(ValueSchema, jsonText), final };
}

/** A success envelope around an already normalized JSON value (no text to parse back). */
export function valueEnvelope(requestId: string, value: unknown, final: boolean): ResponseEnvelope {
  return { id: requestId, ok: true, result: fromJson(ValueSchema, value as JsonValue), final };
}

/** A success envelope around a string result (text/html operations). */
export function textEnvelope(requestId: string, text: string): ResponseEnvelope {
  return { id: requestId, ok: true, result: fromJson(ValueSchema, text), final: true };
}

/** A failure envelope carrying the wire error object; always final. */
export function failureEnvelope(requestId: string, error: ErrorObject): ResponseEnvelope {
  return { id: requestId, ok: false, error: normalizeJson(error) as JsonObject, final: true };
}

/** The JSON value of an envelope's `data` or `result`; null when the field is absent. */
export function jsonOf(value: Value | undefined): JsonValue {
  return value === undefined ? null : toJson(ValueSchema, value);
}

/** google.protobuf.Value for JSON text (the client's already encoded request body). */
export function valueOfText(text: string): Value {
  return fromJsonString(ValueSchema, text);
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
