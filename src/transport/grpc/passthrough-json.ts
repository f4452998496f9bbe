// Pass-through JSON: the spec's own gRPC wire, where each message is the UTF-8 text of the
// JSON envelope sent under a plain `application/grpc` content type, as @grpc/grpc-js or
// grpcio do with identity (pass-through) serializers. Connect picks its codec from the
// content type alone (`application/grpc` and `+proto` mean binary protobuf, `+json` means
// ProtoJSON), and it has no hook to choose per message: the serialization is fixed when the
// handler is built (protocol/serialization.ts), the request gate and interceptors run only
// after or without the body. So this wrapper sits in front of connect's universal handler
// for the SvcTransport methods, peeks at the first message, and when it is JSON relabels the
// request as `application/grpc+json` (ProtoJSON of the envelope messages is exactly the spec's
// envelope) and the response back as `application/grpc`, so the peer gets JSON bytes under
// the content type it sent. Nothing else about the framing is touched: the peeked bytes are
// replayed in front of the rest of the body and connect parses the frames as usual.
//
// Why one byte is enough: after the 5-byte frame prefix (compressed flag, 4-byte length)
// comes the message. In protobuf's binary encoding a non-empty message starts with a field
// tag, the varint (field_number << 3 | wire_type). `{` is 0x7B: field 15 with wire type 3
// (start group). InvokeRequest and StreamRequest declare fields 1 to 6 only, all
// length-delimited (tags 0x0A to 0x32), and proto3 has no groups at all, so no encoder of
// these messages ever starts one with 0x7B; JSON.stringify of an envelope always does. (JSON
// with leading whitespace is not recognized: "\n" is 0x0A, the tag of field 1.) A compressed
// message is not inspected and stays binary.
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';

const PLAIN_GRPC = /^application\/grpc(\+proto)?$/i;
const JSON_CONTENT_TYPE = 'application/grpc+json';
const PREFIX_BYTES = 5;
const OPEN_BRACE = 0x7b;

export function acceptPassThroughJson(handler: UniversalHandler): UniversalHandler {
  const wrapped = async (request: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const contentType = request.header.get('content-type') ?? '';
    if (!PLAIN_GRPC.test(contentType) || !isByteStream(request.body)) return handler(request);
    let peeked: Peeked;
    try {
      peeked = await peek(request.body, PREFIX_BYTES + 1);
    } catch (error) {
      // The body failed (the client went away); let connect report it the usual way.
      return handler({ ...request, body: failing(error) });
    }
    const { head, body } = peeked;
    const isJson = head.byteLength > PREFIX_BYTES && head[0] === 0 && head[PREFIX_BYTES] === OPEN_BRACE;
    if (!isJson) return handler({ ...request, body });
    const header = new Headers(request.header);
    header.set('content-type', JSON_CONTENT_TYPE);
    const response = await handler({ ...request, header, body });
    response.header?.set('content-type', contentType);
    return response;
  };
  return Object.assign(wrapped, handler);
}

interface Peeked {
  /** At least `want` bytes (fewer only if the body ended first). */
  readonly head: Uint8Array;
  /** The whole body again, peeked bytes first. */
  readonly body: AsyncIterable<Uint8Array>;
}

async function peek(source: AsyncIterable<Uint8Array>, want: number): Promise<Peeked> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  while (length < want) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.byteLength;
  }
  const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  async function* replay(): AsyncGenerator<Uint8Array> {
    let finished = ended;
    try {
      yield* chunks;
      while (!finished) {
        const next = await iterator.next();
        if (next.done) {
          finished = true;
          return;
        }
        yield next.value;
      }
    } finally {
      if (!finished) await iterator.return?.();
    }
  }
  return { head, body: replay() };
}

// eslint-disable-next-line require-yield
async function* failing(error: unknown): AsyncGenerator<Uint8Array> {
  throw error;
}

export function isByteStream(body: UniversalServerRequest['body']): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}
