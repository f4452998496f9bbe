// Byte limits, measured as the UTF-8 length of the normalized JSON, and the one place that
// encodes a payload so it is serialized once per hop.
import { DeferredJson, measureJson } from '../core/json/encoded.js';
import { measuredCopy, NOT_PLAIN } from '../core/json/measure.js';
import { encodeJson, PreEncoded, type EncodedJson } from '../core/json/encoded.js';
import { normalizeJson } from '../core/json/normalize.js';
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
 * encodeWithin for a payload handed over in-process: the same size and the same check, and the
 * receiver's own copy (core/json/measure.ts), both from one walk of the value; the text is written only
 * if someone reads it, so `value` must not change until then. `copy` is undefined for a value
 * that is not plain JSON: it is normalized and measured, and the receiver parses its text.
 */
export function handOverWithin(
  kind: PayloadKind,
  value: unknown,
  limit: number,
  context: LimitContext = {},
): { readonly encoded: EncodedJson; readonly copy: unknown } {
  let encoded: EncodedJson;
  let copy: unknown;
  if (value instanceof PreEncoded) {
    encoded = value.encoded;
    // Text not written yet is copied and counted in one walk; a text written already (A2A's
    // answers, a task waiting for input) leaves its value to be copied on its own.
    if (encoded instanceof DeferredJson && !encoded.hasText) copy = encoded.copy();
    else {
      const copied = measuredCopy(value.value);
      copy = copied === NOT_PLAIN ? NOT_PLAIN : copied.value;
    }
  } else {
    const plain = new DeferredJson(value);
    copy = plain.copy();
    encoded = copy === NOT_PLAIN ? new DeferredJson(normalizeJson(value)) : plain;
  }
  assertWithin(kind, measureJson(encoded), limit, context);
  return { encoded, copy: copy === NOT_PLAIN ? undefined : copy };
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
