// The svc.transport.v1 envelope messages on both sides: what an InvokeRequest/StreamRequest
// means to the dispatcher, and how results and errors go back. The JSON payloads (`data`,
// `result`) travel as google.protobuf.Value and the objects (`params`, `error`) as
// google.protobuf.Struct, so their ProtoJSON form is the spec's envelope exactly
// (proto/svc/transport/v1/transport.proto explains the presence rules).
import { fromJson, fromJsonString, toJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { ValueSchema, type Value } from '@bufbuild/protobuf/wkt';
import type { InvokeRequest, InvokeResponse } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { extractCredentials } from '../../auth/credentials.js';
import { paramsFromEnvelope, paramsFromSearch } from '../query-params.js';
import { newId } from '../../core/ids.js';
import { normalizeJson } from '../../core/json.js';
import type { InboundRequest } from '../endpoint.js';
import { EndpointError, type ErrorObject } from '../endpoint-error.js';

/** The fields InvokeRequest and StreamRequest share (same numbers, same JSON names). */
export type RequestEnvelope = Partial<Omit<InvokeRequest, '$typeName' | '$unknown'>>;

/** The fields InvokeResponse and StreamResponse share. */
export type ResponseEnvelope = Partial<Omit<InvokeResponse, '$typeName' | '$unknown'>>;

/** Lowercase metadata keys the spec names. */
export const METADATA = Object.freeze({
  requestId: 'x-svc-request-id',
  idempotencyKey: 'idempotency-key',
});

export type DecodedRequest =
  | { readonly ok: true; readonly requestId: string; readonly inbound: InboundRequest }
  | { readonly ok: false; readonly requestId: string; readonly error: EndpointError };

/**
 * Reads a request envelope plus its metadata. The envelope's `id` and `idempotency_key` win
 * over the `x-svc-request-id` and `idempotency-key` metadata; credentials come from the
 * `authorization` / `x-api-key` metadata only.
 */
export function decodeRequest(envelope: RequestEnvelope, metadata: Headers, signal: AbortSignal): DecodedRequest {
  let data: unknown;
  try {
    data = envelope.data === undefined ? undefined : toJson(ValueSchema, envelope.data);
  } catch (error) {
    return notJson(envelope, metadata, error);
  }
  return inboundFrom(envelope, data, metadata, signal);
}

/** The fields of a request envelope other than its payload, as both message shapes carry them. */
export interface EnvelopeFields {
  readonly id?: string | undefined;
  readonly method?: string | undefined;
  readonly path?: string | undefined;
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  readonly idempotencyKey?: string | undefined;
}

/** The request an envelope's fields and its payload (already plain JSON, or undefined) make. */
export function inboundFrom(envelope: EnvelopeFields, data: unknown, metadata: Headers, signal: AbortSignal): DecodedRequest {
  const requestId = requestIdOf(envelope, metadata);
  const method = nonEmpty(envelope.method);
  const rawPath = nonEmpty(envelope.path);
  if (!method || !rawPath) {
    const missing = [method ? null : 'method', rawPath ? null : 'path'].filter(Boolean).join(' and ');
    return { ok: false, requestId, error: new EndpointError('invalid_request', `the request envelope has no ${missing}`) };
  }
  let receivedBytes = 0;
  try {
    // Limits are measured on the JSON text of the payload, whatever the codec on the wire.
    if (data !== undefined) receivedBytes = Buffer.byteLength(JSON.stringify(data), 'utf8');
  } catch (error) {
    return notJson(envelope, metadata, error);
  }
  // A query string left in the path is read too; explicit params win over it.
  const queryAt = rawPath.indexOf('?');
  const path = queryAt < 0 ? rawPath : rawPath.slice(0, queryAt);
  const params =
    queryAt < 0
      ? paramsFromEnvelope(envelope.params)
      : { ...paramsFromSearch(new URLSearchParams(rawPath.slice(queryAt + 1))), ...paramsFromEnvelope(envelope.params) };
  const inbound: InboundRequest = {
    method: method.toUpperCase(),
    path,
    data,
    params,
    requestId,
    idempotencyKey: nonEmpty(envelope.idempotencyKey) ?? nonEmpty(metadata.get(METADATA.idempotencyKey)) ?? null,
    credentials: extractCredentials(
      (name) => metadata.get(name) ?? undefined,
      () => undefined,
    ),
    signal,
    receivedBytes,
  };
  return { ok: true, requestId, inbound };
}

function requestIdOf(envelope: EnvelopeFields, metadata: Headers): string {
  return nonEmpty(envelope.id) ?? nonEmpty(metadata.get(METADATA.requestId)) ?? newId();
}

function notJson(envelope: EnvelopeFields, metadata: Headers, error: unknown): DecodedRequest {
  const reason = error instanceof Error ? error.message : String(error);
  const failure = new EndpointError('invalid_json', `the envelope's data is not JSON: ${reason}`);
  return { ok: false, requestId: requestIdOf(envelope, metadata), error: failure };
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
