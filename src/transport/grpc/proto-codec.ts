// The request and response envelopes as the binary protobuf messages of transport.proto, for
// clients generated from it. Payloads travel as google.protobuf.Value (codec.ts). A message
// that does not parse as the method's request message is INTERNAL, as gRPC servers answer a
// message they cannot unmarshal.
import { create, fromBinary, toBinary, type DescMessage } from '@bufbuild/protobuf';
import {
  InvokeRequestSchema,
  InvokeResponseSchema,
  StreamRequestSchema,
  StreamResponseSchema,
} from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import {
  decodeRequest,
  failureEnvelope,
  successEnvelope,
  textEnvelope,
  valueEnvelope,
  type RequestEnvelope,
  type ResponseEnvelope,
} from './codec.js';
import { largePayloadTurn } from '../../core/large-payload-turns.js';
import { CallStatus, GrpcStatus } from './errors.js';
import type { EnvelopeCodec, TransportMethod } from './message-encoding.js';

function protoCodec(requestSchema: DescMessage, responseSchema: DescMessage): EnvelopeCodec {
  const encode = (envelope: ResponseEnvelope): Buffer => {
    const bytes = toBinary(responseSchema, create(responseSchema, envelope as never));
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  const codec: EnvelopeCodec = {
    contentType: null,
    // protobuf-es decodes a message in one go: the large-message steps each take a turn.
    decodeLarge: (message, metadata, abort) => largePayloadTurn().then(() => codec.decode(message, metadata, abort)),
    successLarge: (requestId, encoded) => largePayloadTurn().then(() => codec.success(requestId, encoded)),
    decode(message, metadata, abort) {
      let envelope: RequestEnvelope;
      try {
        envelope = fromBinary(requestSchema, message) as RequestEnvelope;
      } catch (error) {
        throw new CallStatus(
          GrpcStatus.INTERNAL,
          `the message is not a ${requestSchema.typeName}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      return decodeRequest(envelope, metadata, abort);
    },
    success: (requestId, encoded) => encode(successEnvelope(requestId, encoded.text, true)),
    text: (requestId, html) => encode(textEnvelope(requestId, html)),
    event: (requestId, _encoded, value, final) => encode(valueEnvelope(requestId, value, final)),
    failure: (requestId, error) => encode(failureEnvelope(requestId, error)),
  };
  return codec;
}

export const protoEnvelopes: Readonly<Record<TransportMethod, EnvelopeCodec>> = {
  invoke: protoCodec(InvokeRequestSchema, InvokeResponseSchema),
  stream: protoCodec(StreamRequestSchema, StreamResponseSchema),
};
