// JSON whose text is written only when someone reads it. An in-process call hands values over
// (each side copies what it receives) and needs only their size, for the same limits and byte
// counts as a network wire: writing a 3.5 KB task as text just to count its bytes costs more
// than the rest of the call. So the size can be counted from the value, and the text is left
// unwritten unless a reader asks for it (a network transport, a replay that parses it).
import { copyJson, NOT_PLAIN } from './json-copy.js';
import { plainJsonByteLength, type EncodedJson } from './json.js';

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
   * A copy of the value for a receiver in this process (json-copy.ts), with the size counted in
   * the same walk; NOT_PLAIN when the text is written already or the value is not plain JSON
   * (the receiver then parses the text).
   */
  copy(): unknown {
    if (this.written !== null) return NOT_PLAIN;
    const copied = copyJson(this.value);
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
