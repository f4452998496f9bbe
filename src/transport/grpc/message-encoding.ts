// The three encodings SvcTransport is served in, told apart by the message itself: binary
// protobuf (the envelope messages of transport.proto), ProtoJSON (`application/grpc+json`)
// and the spec's pass-through JSON (the envelope's UTF-8 JSON text under plain
// `application/grpc`, as @grpc/grpc-js or grpcio peers send it with identity serializers).
// The last two are the same bytes: JSON text whose field names and rules are those of
// ProtoJSON for the envelope messages (json-codec.ts).
//
// grpc-js hands a handler the call's metadata without its content type, so the message is
// what decides, and one byte is enough: in protobuf's binary encoding a non-empty message
// starts with a field tag, the varint (field_number << 3 | wire_type). `{` is 0x7B: field 15
// with wire type 3 (start group). InvokeRequest and StreamRequest declare fields 1 to 6 only,
// all length-delimited (tags 0x0A to 0x32), and proto3 has no groups at all, so no encoder of
// these messages ever starts one with 0x7B; JSON.stringify of an envelope always does. (JSON
// with leading whitespace is read as binary and refused: "\n" is 0x0A, the tag of field 1.)
// grpc-js has already decompressed the message.
//
// Answers go back in the encoding of the request, JSON ones under `application/grpc+json`
// (set through the response metadata, which grpc-js lays over its default headers) and binary
// ones under grpc-js's `application/grpc+proto`; gRPC clients accept either subtype.
import type { Metadata } from '@grpc/grpc-js';
import type { EncodedJson } from '../../core/json/encoded.js';
import type { SignalSource } from '../endpoint.js';
import type { ErrorObject } from '../endpoint-error.js';
import type { DecodedRequest } from './codec.js';
import { jsonEnvelopes } from './json-codec.js';
import { protoEnvelopes } from './proto-codec.js';

const OPEN_BRACE = 0x7b;

/** How one encoding carries request and response envelopes. */
export interface EnvelopeCodec {
  /** The content type of answers in this encoding; null keeps grpc-js's default. */
  readonly contentType: string | null;
  /** Throws a CallStatus when the message is not an envelope in this encoding. */
  decode(message: Buffer, metadata: Metadata, abort: SignalSource): DecodedRequest;
  /** decode for a large message, which it hands over: in turns or off the main thread. */
  decodeLarge(message: Buffer, metadata: Metadata, abort: SignalSource): Promise<DecodedRequest>;
  /** A unary JSON result, as the text the dispatcher encoded and size-checked. */
  success(requestId: string, encoded: EncodedJson): Buffer;
  /** success for a large result, encoded in turns. */
  successLarge(requestId: string, encoded: EncodedJson): Promise<Buffer>;
  /** A text/html result. */
  text(requestId: string, html: string): Buffer;
  /** A stream event: its encoded text and the normalized value it was made from. */
  event(requestId: string, encoded: EncodedJson, value: unknown, final: boolean): Buffer;
  failure(requestId: string, error: ErrorObject): Buffer;
}

/** Which SvcTransport method a message is for: the binary messages differ by name only. */
export type TransportMethod = 'invoke' | 'stream';

/** The codec that reads `message` and writes the answers to it. */
export function codecFor(message: Buffer, method: TransportMethod): EnvelopeCodec {
  return message[0] === OPEN_BRACE ? jsonEnvelopes : protoEnvelopes[method];
}
