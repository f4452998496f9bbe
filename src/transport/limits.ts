// Byte limits, measured as the UTF-8 length of the normalized JSON, and the one place that
// encodes a payload so it is serialized once per hop.
import { DeferredJson, measureJson } from '../core/deferred-json.js';
import { encodeJson, normalizeJson, PreEncoded, type EncodedJson } from '../core/json.js';
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

/**
 * encodeWithin for a payload handed over in-process: the same size and the same check, with
 * the size counted from the value and the text written only if someone reads it. `value`
 * must not change until then.
 */
export function measureWithin(kind: PayloadKind, value: unknown, limit: number, context: LimitContext = {}): EncodedJson {
  const encoded = value instanceof PreEncoded ? value.encoded : new DeferredJson(normalizeJson(value));
  assertWithin(kind, measureJson(encoded), limit, context);
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
