// Reading the `text/event-stream` format of the sse wire: an incremental parser of
// the bytes; chunks can split a frame anywhere (in the middle of a line, between CR and LF, inside
// a multi-byte character), so the parser keeps the unfinished line as bytes and decodes a line
// only once it is complete, and holds every frame to a byte cap so a peer cannot make the reader
// buffer without bound. Writing is http's (../http/event-stream.ts), which a unary http route
// answering with a stream shares.
import { assertWithin, type LimitContext } from '../limits.js';

/** One dispatched frame: its `data:` lines joined with `\n`, and their UTF-8 size. */
export interface SseFrame {
  readonly data: string;
  readonly bytes: number;
}

const LF = 0x0a;
const CR = 0x0d;
const BOM = '\ufeff';

export class SseParser {
  /** Bytes of the line not yet terminated, in arrival order. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** `data:` values of the frame being read. */
  private data: string[] = [];
  /** Bytes of the lines that belong to the frame being read (its cost against the cap). */
  private frameBytes = 0;
  /** The previous chunk ended with CR: a LF at the start of the next one ends nothing. */
  private afterCR = false;
  private started = false;

  /**
   * @param maxFrameBytes the most bytes one frame may occupy on the wire (its lines, without
   *   the line terminators); more raises TransportLimitError.
   * @param context url and request id for the error.
   */
  constructor(
    readonly maxFrameBytes: number,
    private readonly context: LimitContext = {},
  ) {}

  /** Feeds the next chunk and returns the frames it completed, in order. */
  push(chunk: Uint8Array): SseFrame[] {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const frames: SseFrame[] = [];
    let start = 0;
    if (this.afterCR && bytes.length > 0) {
      this.afterCR = false;
      if (bytes[0] === LF) start = 1;
    }
    // Next known positions of LF and CR; each is searched again only once passed, so a chunk
    // is scanned a bounded number of times whatever its line count.
    let lf = bytes.indexOf(LF, start);
    let cr = bytes.indexOf(CR, start);
    while (start < bytes.length) {
      if (lf !== -1 && lf < start) lf = bytes.indexOf(LF, start);
      if (cr !== -1 && cr < start) cr = bytes.indexOf(CR, start);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) {
        this.keep(bytes.subarray(start));
        break;
      }
      const line = this.takeLine(bytes.subarray(start, end));
      start = end + 1;
      if (bytes[end] === CR) {
        if (end + 1 < bytes.length) {
          if (bytes[end + 1] === LF) start++;
        } else {
          this.afterCR = true;
        }
      }
      const frame = this.line(line);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  /**
   * Ends the input. A frame the peer did not finish with a blank line is dropped, as the
   * event-stream format asks; the return value says whether anything was left unfinished.
   */
  end(): boolean {
    const unfinished = this.pendingBytes > 0 || this.data.length > 0;
    this.pending = [];
    this.pendingBytes = 0;
    this.data = [];
    this.frameBytes = 0;
    return unfinished;
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    this.pending.push(part);
    this.pendingBytes += part.length;
    this.check(this.frameBytes + this.pendingBytes);
  }

  private takeLine(tail: Buffer): string {
    const size = this.pendingBytes + tail.length;
    this.check(this.frameBytes + size);
    let text: string;
    if (this.pending.length === 0) {
      text = tail.toString('utf8');
    } else {
      this.pending.push(tail);
      text = Buffer.concat(this.pending, size).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
    }
    if (!this.started) {
      this.started = true;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    return text;
  }

  /** Interprets one complete line; returns the frame a blank line dispatches. */
  private line(text: string): SseFrame | null {
    if (text === '') {
      if (this.data.length === 0) {
        this.frameBytes = 0;
        return null;
      }
      const data = this.data.join('\n');
      this.data = [];
      this.frameBytes = 0;
      return { data, bytes: Buffer.byteLength(data, 'utf8') };
    }
    if (text.charCodeAt(0) === 0x3a /* ':' */) return null; // a comment, such as a keepalive
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    // `event:`, `id:` and `retry:` carry nothing this protocol uses; unknown fields are ignored.
    if (field !== 'data') return null;
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    this.data.push(value);
    this.frameBytes += Buffer.byteLength(text, 'utf8');
    return null;
  }

  private check(bytes: number): void {
    if (bytes > this.maxFrameBytes) {
      // Whatever happens next, this stream is not read further.
      this.pending = [];
      this.pendingBytes = 0;
      this.data = [];
      assertWithin('event', bytes, this.maxFrameBytes, this.context);
    }
  }
}
