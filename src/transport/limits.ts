// Byte limits, measured as the UTF-8 length of the normalized JSON, and the encoding of a
// payload for a network wire, so it is serialized once per hop (payload.ts chooses between
// this and the in-process hand-over).
import { encodeJson, type EncodedJson } from '../core/json/encoded.js';
import { TransportLimitError, type PayloadKind } from './errors.js';

export type { PayloadKind } from './errors.js';

export interface LimitContext {
  readonly url?: string | null;
  readonly requestId?: string | null;
}

/** Encodes `value` and throws TransportLimitError when it is over `limit` bytes. */
export function encodeWithin(kind: PayloadKind, value: unknown, limit: number, context: LimitContext = {}): EncodedJson {
  const encoded = encodeJson(value);
  assertWithin(kind, encoded.bytes, limit, context);
  return encoded;
}

export function assertWithin(kind: PayloadKind, bytes: number, limit: number, context: LimitContext = {}): void {
  if (bytes > limit) {
    throw new TransportLimitError(`${kind} of ${bytes} bytes exceeds the ${limit}-byte limit`, {
      kind,
      limit,
      size: bytes,
      url: context.url,
      requestId: context.requestId,
    });
  }
}
