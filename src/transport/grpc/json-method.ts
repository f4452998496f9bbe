// How a JSON message goes through connect without connect decoding it. Connect has no codec
// that hands a handler the message bytes, so the SvcTransport methods are also registered with
// google.protobuf.BytesValue as input and output, and JSON calls are sent to those as binary
// protobuf: the request message gets the few bytes that make it a BytesValue in front (field 1,
// length-delimited: tag 0x0A, the length as a varint), and each answer has those bytes taken
// off again. The JSON bytes themselves are never copied on the way in and copied once on the
// way out (by connect's writer); json-codec.ts reads and writes the text.
//
// Answers are never compressed on this route (the client's grpc-accept-encoding is not passed
// on), so every answer message is the BytesValue itself.
import type { DescMethod } from '@bufbuild/protobuf';
import { BytesValueSchema } from '@bufbuild/protobuf/wkt';
import { SvcTransport } from '../../../generated/proto/svc/transport/v1/transport_pb.js';

const PREFIX_BYTES = 5;
const BYTES_FIELD_TAG = 0x0a;

/** Invoke and Stream of SvcTransport (same paths) with BytesValue messages. */
export const jsonInvoke = { ...SvcTransport.method.invoke, input: BytesValueSchema, output: BytesValueSchema } as DescMethod;
export const jsonStream = { ...SvcTransport.method.stream, input: BytesValueSchema, output: BytesValueSchema } as DescMethod;

/** The gRPC frame of a BytesValue holding `message`, as the chunks to send before `message`. */
export function bytesValueFrame(message: Uint8Array): Uint8Array {
  const length = message.byteLength;
  const varint = varintBytes(length);
  const head = Buffer.allocUnsafe(PREFIX_BYTES + 1 + varint.length);
  head[0] = 0;
  head.writeUInt32BE(1 + varint.length + length, 1);
  head[PREFIX_BYTES] = BYTES_FIELD_TAG;
  head.set(varint, PREFIX_BYTES + 1);
  return head;
}

/** The answer frames with each BytesValue unwrapped to the bytes it holds. */
export function unwrapBytesValues(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      let pending: Uint8Array | null = null;
      for await (const chunk of body) {
        pending = pending === null ? chunk : Buffer.concat([pending, chunk]);
        // Connect writes one whole frame per chunk; the loop also copes with any other split.
        while (pending !== null && pending.byteLength >= PREFIX_BYTES) {
          const view: Buffer = Buffer.from(pending.buffer, pending.byteOffset, pending.byteLength);
          const end = PREFIX_BYTES + view.readUInt32BE(1);
          if (view.byteLength < end) break;
          yield unwrapFrame(view.subarray(0, end));
          pending = view.byteLength > end ? view.subarray(end) : null;
        }
      }
      // A partial frame cannot be produced by connect; passing it on keeps the fault visible.
      if (pending !== null) yield pending;
    },
  };
}

/**
 * One frame `[flags][length][0x0A][varint n][n bytes]` rewritten in place as
 * `[flags][n][n bytes]`: the new prefix is written over the tail of the old header.
 */
function unwrapFrame(frame: Buffer): Uint8Array {
  if (frame.byteLength === PREFIX_BYTES || frame[PREFIX_BYTES] !== BYTES_FIELD_TAG) return frame;
  let at = PREFIX_BYTES + 1;
  let length = 0;
  let shift = 0;
  for (;;) {
    const byte = frame[at++]!;
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
    shift += 7;
  }
  const start = at - PREFIX_BYTES;
  frame[start] = frame[0]!;
  frame.writeUInt32BE(length, start + 1);
  return frame.subarray(start, at + length);
}

function varintBytes(value: number): number[] {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
  return out;
}
