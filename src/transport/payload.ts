// A payload made ready for its receiver, checked against its byte limit: the one place where
// the in-process wire differs from the others. A network wire gets the JSON text (written once
// per hop). The runtime wire hands values over: the payload is measured from the value, its text
// is written only if someone reads it, and the receiver gets its own copy, made in the walk that
// measures it (core/json/measure.ts) so caller and target never share an object. The dispatcher
// and the outbound client call preparePayload / prepareEvent and pass on what they get; only
// here does `inProcess` choose between the two.
import { DeferredJson, encodeNormalizedJson, measureJson, PreEncoded, type EncodedJson } from '../core/json/encoded.js';
import { measuredCopy, NOT_PLAIN } from '../core/json/measure.js';
import { normalizeJson } from '../core/json/normalize.js';
import type { PayloadKind } from './errors.js';
import { assertWithin, encodeWithin, type LimitContext } from './limits.js';

/** Where a payload goes: the limit error's context, and whether the receiver is in this process. */
export interface PayloadContext extends LimitContext {
  /** Set by the runtime wire (InboundRequest.inProcess, TransportClient.inProcess). */
  readonly inProcess?: boolean;
}

/** A payload ready to go: its encoding, and for an in-process receiver its own copy. */
export interface Payload {
  readonly encoded: EncodedJson;
  /**
   * The receiver's own copy of the value, when the receiver is in this process and the value
   * is plain JSON; otherwise undefined, and the receiver parses `encoded.text`.
   */
  readonly copy: unknown;
}

/** A request or an answer, any value: normalized, encoded or handed over, and checked against `limit`. */
export function preparePayload(kind: PayloadKind, value: unknown, limit: number, context: PayloadContext): Payload {
  if (context.inProcess) return handOverWithin(kind, value, limit, context);
  return { encoded: encodeWithin(kind, value, limit, context), copy: undefined };
}

/** A stream event, normalized already (`value`), with its encoding when the source made one. */
export function prepareEvent(value: unknown, encoded: EncodedJson | undefined, limit: number, context: PayloadContext): Payload {
  // The reader's own copy, made in the walk that measures the event; its text is left unwritten.
  if (context.inProcess)
    return handOverWithin('event', new PreEncoded(value, encoded ?? new DeferredJson(value)), limit, context);
  const written = encoded ?? encodeNormalizedJson(value);
  assertWithin('event', written.bytes, limit, context);
  return { encoded: written, copy: undefined };
}

/**
 * Before a retry, which sends the text: a payload handed over in-process has its text written
 * now, so every attempt sends the same whatever the caller does with its object meanwhile.
 * A network payload's text is written already.
 */
export function writeTextNow(encoded: EncodedJson): void {
  if (encoded instanceof DeferredJson) encoded.writeNow();
}

/**
 * encodeWithin for a payload handed over in-process: the same size and the same check, and the
 * receiver's own copy, both from one walk of the value; the text is written only if someone
 * reads it, so `value` must not change until then. `copy` is undefined for a value that is not
 * plain JSON: it is normalized and measured, and the receiver parses its text.
 */
function handOverWithin(kind: PayloadKind, value: unknown, limit: number, context: LimitContext): Payload {
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
