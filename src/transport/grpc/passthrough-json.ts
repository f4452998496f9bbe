// Pass-through JSON: the spec's own gRPC wire, where each message is the UTF-8 text of the
// JSON envelope sent under a plain `application/grpc` content type, as @grpc/grpc-js or
// grpcio do with identity (pass-through) serializers. Connect picks its codec from the
// content type alone (`application/grpc` and `+proto` mean binary protobuf, `+json` means
// ProtoJSON), and it has no hook to choose per message: the serialization is fixed when the
// handler is built (protocol/serialization.ts), the request gate and interceptors run only
// after or without the body. So this router sits in front of connect's universal handlers
// for the SvcTransport methods. It reads the request message first (request-message.ts:
// bounded by the receive limit, decompressed within it), then sends a JSON message, whatever
// content type it came under, to the JSON route (json-method.ts), and anything else to the
// binary protobuf handler. The answer goes back under the content type the client sent.
//
// Why one byte is enough: in protobuf's binary encoding a non-empty message starts with a
// field tag, the varint (field_number << 3 | wire_type). `{` is 0x7B: field 15 with wire type
// 3 (start group). InvokeRequest and StreamRequest declare fields 1 to 6 only, all
// length-delimited (tags 0x0A to 0x32), and proto3 has no groups at all, so no encoder of
// these messages ever starts one with 0x7B; JSON.stringify of an envelope always does. (JSON
// with leading whitespace is not recognized under plain `application/grpc`: "\n" is 0x0A, the
// tag of field 1.) A compressed message is looked at once decompressed.
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import type { ConnectModule } from './load.js';
import { bytesValueFrame, unwrapBytesValues } from './json-method.js';
import { readRequestMessage, type RequestMessage } from './request-message.js';

const GRPC_CONTENT_TYPE = /^application\/grpc(?:\+(proto|json))?$/i;
const PREFIX_BYTES = 5;
const OPEN_BRACE = 0x7b;

export interface MessageRoutes {
  readonly connect: ConnectModule;
  /** Connect's handler for the method with the envelope messages of transport.proto. */
  readonly proto: UniversalHandler;
  /** Connect's handler for the same method with BytesValue messages (json-method.ts). */
  readonly json: UniversalHandler;
  /** The server's receive limit, in bytes, after decompression. */
  readonly receiveMaxBytes: number;
}

export function routeByMessage(routes: MessageRoutes): UniversalHandler {
  const { connect, proto, json, receiveMaxBytes } = routes;
  const wrapped = async (request: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const contentType = request.header.get('content-type') ?? '';
    const grpcType = GRPC_CONTENT_TYPE.exec(contentType);
    if (grpcType === null || !isByteStream(request.body)) return proto(request);
    let read: RequestMessage;
    try {
      read = await readRequestMessage(connect, request.body, request.header.get('grpc-encoding'), receiveMaxBytes);
    } catch (error) {
      // Over the limit, not gzip, or the client went away: connect reports it the usual way.
      return proto({ ...request, body: failing(error) });
    }
    const { message, rest } = read;
    if (message === null) return proto({ ...request, body: replay(read.read, rest) });
    const isJson = grpcType[1]?.toLowerCase() === 'json' || message[0] === OPEN_BRACE;
    if (!isJson) {
      // A message decompressed here goes on uncompressed.
      const compressed = read.read[0]![0] !== 0;
      return proto({ ...request, body: replay(compressed ? [plainPrefix(message), message] : read.read, rest) });
    }
    const header = new Headers(request.header);
    header.set('content-type', 'application/grpc+proto');
    // The message is decompressed already, and answers on this route are not compressed.
    header.delete('grpc-encoding');
    header.delete('grpc-accept-encoding');
    const response = await json({ ...request, header, body: replay([bytesValueFrame(message), message], rest) });
    response.header?.set('content-type', contentType);
    return response.body ? { ...response, body: unwrapBytesValues(response.body) } : response;
  };
  return Object.assign(wrapped, proto);
}

/** The prefix of an uncompressed frame holding `message`. */
function plainPrefix(message: Uint8Array): Uint8Array {
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.writeUInt32BE(message.byteLength, 1);
  return prefix;
}

/** `chunks`, then the rest of the body; an early stop ends the body too. */
async function* replay(chunks: readonly Uint8Array[], rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  let finished = false;
  try {
    yield* chunks;
    for (;;) {
      const next = await rest.next();
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) await rest.return?.();
  }
}

// biome-ignore lint/correctness/useYield: a stream whose first read fails with `error`, as connect expects a failed body to be.
async function* failing(error: unknown): AsyncGenerator<Uint8Array> {
  throw error;
}

export function isByteStream(body: UniversalServerRequest['body']): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}
