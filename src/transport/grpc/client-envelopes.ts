// The messages of the client's calls: the request envelope in the client's codec, and the
// answer read by its first byte, as the server reads requests (message-encoding.ts): JSON text
// starts with `{`, and no binary InvokeResponse or StreamResponse does (their fields 1 to 5
// have tags 0x0A to 0x2A), so a parley server's answer in either encoding is read, and so is
// that of a server that only speaks one of them.
import { create, fromBinary, toBinary, type DescMessage, type JsonObject } from '@bufbuild/protobuf';
import {
  InvokeRequestSchema,
  InvokeResponseSchema,
  StreamRequestSchema,
  StreamResponseSchema,
} from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { jsonByteLength } from '../../core/json/measure.js';
import type { InboundEvent, OutboundCall } from '../binding.js';
import { readResponseEnvelope } from '../envelope.js';
import { TransportProtocolError } from '../errors.js';
import { jsonOf, type RequestEnvelope, type ResponseEnvelope, valueOfText } from './codec.js';
import type { TransportMethod } from './message-encoding.js';

/** `json`: the spec's wire, each message the envelope's UTF-8 JSON text; `proto`: binary protobuf. */
export type GrpcCodec = 'json' | 'proto';

const OPEN_BRACE = 0x7b;

const REQUESTS: Readonly<Record<TransportMethod, DescMessage>> = { invoke: InvokeRequestSchema, stream: StreamRequestSchema };
const RESPONSES: Readonly<Record<TransportMethod, DescMessage>> = { invoke: InvokeResponseSchema, stream: StreamResponseSchema };

/**
 * The request message: `data` only for operations with a body, `params` always, the
 * idempotency key when there is one. The JSON text is written around the body the pipeline
 * already encoded, as the websocket frame is.
 */
export function requestMessage(call: OutboundCall, codec: GrpcCodec, method: TransportMethod): Buffer {
  if (codec === 'json') {
    const text =
      `{"id":${JSON.stringify(call.requestId)},"method":${JSON.stringify(call.spec.method)},` +
      `"path":${JSON.stringify(call.spec.path)},"params":${JSON.stringify(call.params)}` +
      `${call.body ? `,"data":${call.body.text}` : ''}` +
      `${call.idempotencyKey ? `,"idempotency_key":${JSON.stringify(call.idempotencyKey)}` : ''}}`;
    return Buffer.from(text, 'utf8');
  }
  const schema = REQUESTS[method];
  const bytes = toBinary(schema, create(schema, binaryEnvelope(call) as never));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function binaryEnvelope(call: OutboundCall): RequestEnvelope {
  const params: JsonObject = {};
  for (const [key, value] of Object.entries(call.params)) params[key] = typeof value === 'string' ? value : [...value];
  const envelope: RequestEnvelope = { id: call.requestId, method: call.spec.method, path: call.spec.path, params };
  if (call.body) envelope.data = valueOfText(call.body.text);
  if (call.idempotencyKey) envelope.idempotencyKey = call.idempotencyKey;
  return envelope;
}

/**
 * An answer message read by the rules every wire shares (../envelope.ts). A JSON answer's size
 * is the message's, as a websocket frame's is; a binary one's is its payload's JSON size, as
 * the other wires measure it. A message that is neither (text that is not JSON, bytes that are
 * not the response message) is the peer breaking the protocol.
 */
export function readAnswer(message: Buffer, method: TransportMethod, call: OutboundCall): InboundEvent {
  if (message[0] === OPEN_BRACE) {
    let value: unknown;
    try {
      value = JSON.parse(message.toString('utf8'));
    } catch (error) {
      throw unreadable(error, call);
    }
    return readResponseEnvelope(value, message.length, call);
  }
  let plain: { id: string | null; ok?: boolean; result: unknown; error: unknown; final?: boolean };
  try {
    const envelope = fromBinary(RESPONSES[method], message) as ResponseEnvelope;
    // Fields with explicit presence: an absent `ok` or `final` stays absent and is refused as
    // on the other wires; proto3 has no null, so an absent id counts as a null one.
    plain = {
      id: envelope.id ?? null,
      ok: envelope.ok,
      result: jsonOf(envelope.result),
      error: envelope.error ?? null,
      final: envelope.final,
    };
  } catch (error) {
    throw unreadable(error, call);
  }
  return readResponseEnvelope(plain, jsonByteLength(plain.ok ? plain.result : plain.error), call);
}

function unreadable(error: unknown, call: OutboundCall): TransportProtocolError {
  const reason = error instanceof Error ? error.message : String(error);
  return new TransportProtocolError(`response envelope from ${call.url} is not readable: ${reason}`, {
    url: call.url,
    requestId: call.requestId,
    retryable: false,
    cause: error,
  });
}
