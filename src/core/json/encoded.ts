// JSON with its size: the forms a payload takes once it is normalized. Three remain, each for a
// reason the others cannot serve:
// - EncodedJson, the contract: text and its UTF-8 size, travelling together so nothing is
//   serialized or measured twice. What every wire reads.
// - PreEncoded, a value handed over together with its encoding, so the pipeline takes that
//   encoding as it is instead of writing the value again (finished tasks, A2A answers), while
//   the in-process wire can still copy the value.
// - DeferredJson, an EncodedJson whose text is written only when someone reads it: an
//   in-process call needs only the size (measure.ts counts it from the value), and writing a
//   3.5 KB task as text just to count its bytes costs more than the rest of the call.
// (The review counted two more: a plain `{text, bytes}` is an EncodedJson, and NOT_PLAIN is
// measure.ts's "gave up" answer, not a form of JSON.)
import { measuredCopy, NOT_PLAIN, plainJsonByteLength } from './measure.js';
import { normalizeJson } from './normalize.js';

/** Serializes normalized JSON once; the text and its UTF-8 size travel together from here. */
export interface EncodedJson {
  readonly text: string;
  readonly bytes: number;
}

/**
 * A value handed over together with its encoding (the task engine's finished tasks, whose text
 * is written when first read, and A2A answers): encodeJson takes that encoding as it is. Once
 * its text is written, `encoded` holds no reference to `value`, so it can be kept without the
 * object graph.
 */
export class PreEncoded {
  constructor(
    readonly value: unknown,
    readonly encoded: EncodedJson,
  ) {}
}

export function encodeJson(value: unknown): EncodedJson {
  if (value instanceof PreEncoded) return value.encoded;
  return encodeNormalizedJson(normalizeJson(value));
}

/** encodeJson for a value normalizeJson has already been through. */
export function encodeNormalizedJson(value: unknown): EncodedJson {
  const text = JSON.stringify(value) ?? 'null';
  return { text, bytes: Buffer.byteLength(text, 'utf8') };
}

export class DeferredJson implements EncodedJson {
  private value: unknown;
  private written: string | null = null;
  private size = -1;

  /**
   * `value`: normalized JSON, which must not change until the text is written (a finished task,
   * a request the caller handed over). `write`: how the text is made, with its UTF-8 size when
   * that comes cheaply; the default is JSON.stringify. Once written, the value is let go and
   * only the text is kept.
   */
  constructor(
    value: unknown,
    private readonly write: (value: unknown) => string | EncodedJson = stringify,
  ) {
    this.value = value;
  }

  get text(): string {
    if (this.written === null) {
      const written = this.write(this.value);
      if (typeof written === 'string') {
        this.written = written;
      } else {
        this.written = written.text;
        this.size = written.bytes;
      }
      this.value = undefined;
    }
    return this.written;
  }

  /** Writes the text now, from the value as it is now. */
  writeNow(): void {
    void this.text;
  }

  /** The UTF-8 size of the text; writes it, unless measure() counted it first. */
  get bytes(): number {
    if (this.size < 0) this.size = this.writtenSize();
    return this.size;
  }

  /**
   * The UTF-8 size of the text, counted from the value while it is plain JSON; otherwise the
   * text is written (`write` may repair the value first) and measured.
   */
  measure(): number {
    if (this.size < 0) {
      const counted = this.written === null ? plainJsonByteLength(this.value) : -1;
      this.size = counted >= 0 ? counted : this.writtenSize();
    }
    return this.size;
  }

  /** The size of the text, writing it first; the writer may have told it. */
  private writtenSize(): number {
    const text = this.text;
    return this.size >= 0 ? this.size : Buffer.byteLength(text, 'utf8');
  }

  /** Whether the text is written (the value is let go then). */
  get hasText(): boolean {
    return this.written !== null;
  }

  /**
   * A copy of the value for a receiver in this process (measure.ts), with the size counted in
   * the same walk; NOT_PLAIN when the text is written already or the value is not plain JSON
   * (the receiver then parses the text).
   */
  copy(): unknown {
    if (this.written !== null) return NOT_PLAIN;
    const copied = measuredCopy(this.value);
    if (copied === NOT_PLAIN) return NOT_PLAIN;
    this.size = copied.bytes;
    return copied.value;
  }
}

/** The size of `encoded`, counted without writing its text where it is deferred. */
export function measureJson(encoded: EncodedJson): number {
  return encoded instanceof DeferredJson ? encoded.measure() : encoded.bytes;
}

function stringify(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
