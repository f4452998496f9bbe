// A large text encoded as UTF-8 a slice at a time. Encoding a 16 MiB answer in one go (node
// does it inside the socket write when handed a string) holds the event loop for tens of
// milliseconds; here each slice of about a million characters is encoded in a turn of its own
// (large-payload-turns.ts) into one buffer of the known size, which then goes to the socket
// or to grpc-js whole, as one write, with no copy and no second encoding.
import { largePayloadTurn } from './large-payload-turns.js';

/** The characters (UTF-16 code units) encoded in one turn. */
export const UTF8_SLICE_CHARS = 1024 * 1024;

/**
 * `text` as UTF-8 bytes, encoded a slice per turn. `byteLength` is Buffer.byteLength(text)
 * when the caller knows it; otherwise it is measured, in a turn of its own.
 */
export async function utf8InTurns(text: string, byteLength?: number): Promise<Buffer> {
  if (byteLength === undefined) {
    await largePayloadTurn();
    byteLength = Buffer.byteLength(text, 'utf8');
  }
  const bytes = Buffer.allocUnsafe(byteLength);
  let written = 0;
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + UTF8_SLICE_CHARS, text.length);
    // A slice never ends between the two halves of a surrogate pair: each half alone would
    // be written as U+FFFD.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    await largePayloadTurn();
    written += bytes.write(text.slice(at, end), written, 'utf8');
    at = end;
  }
  if (written !== byteLength) throw new Error(`encoded ${written} bytes of text measured as ${byteLength}`);
  return bytes;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
