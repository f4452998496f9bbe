// An SSE response's frames, held as one string while the stream is corked (StreamCork) and
// written as one chunk when it is uncorked. Corking the response itself would also save the
// system calls, but every write would still be a chunk of its own (size line, text, CRLF:
// four pieces for node to queue, convert and hand to writev); one string is one of each.
import type { ServerResponse } from 'node:http';

export class HeldText {
  private text = '';
  private corked = 0;

  constructor(private readonly res: ServerResponse) {}

  /** Writes `text` now, or with the rest of the held text at the uncork. */
  write(text: string): void {
    if (this.corked > 0) this.text += text;
    else this.res.write(text);
  }

  cork(): void {
    this.corked++;
  }

  uncork(): void {
    if (this.corked === 0 || --this.corked > 0 || this.text === '') return;
    const text = this.text;
    this.text = '';
    this.res.write(text);
  }

  /** Held characters (about the bytes: the frames are mostly ASCII) and what the response buffers. */
  get writableLength(): number {
    return this.text.length + this.res.writableLength;
  }

  get writableHighWaterMark(): number {
    return this.res.writableHighWaterMark;
  }
}
