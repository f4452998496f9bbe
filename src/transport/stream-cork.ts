// Gathers a stream's writes into few system calls. Written one by one, every event of a stream
// is a write of its own, and on a busy server the write (the kernel's share of it above all)
// costs more than making the event. The socket is corked at the first write and uncorked:
//   - at the end of that turn of the event loop (its microtasks included), so a burst of
//     events (a handler yielding what it has, pipelined answers) leaves in one call;
//   - with a flush interval, no sooner than that long after the previous uncork, so events
//     that come faster than one an interval (a fast model's tokens, each its own read) leave
//     together, one write an interval. The first event after a quiet spell is not held: only
//     an event that follows the previous write closer than the interval waits, at most the
//     interval. Events are never merged or reordered, only written together.
// Held bytes are bounded: once the stream's buffer reaches its high-water mark, the held
// writes go at once, so a bulk stream's rate is never capped by the interval.

interface Corkable {
  cork(): void;
  uncork(): void;
  readonly writableLength: number;
  readonly writableHighWaterMark: number;
}

export class StreamCork {
  private held = false;
  /** When the last uncork happened (performance.now()), for the interval. */
  private flushedAt = Number.NEGATIVE_INFINITY;
  /** Set while a hold waits for the interval rather than the end of the turn. */
  private timer: NodeJS.Timeout | null = null;

  /** @param intervalMs shortest time between two uncorks; 0 uncorks at the end of every turn */
  constructor(
    private readonly stream: Corkable,
    private readonly intervalMs = 0,
  ) {}

  /** Call before each write. */
  hold(): void {
    if (this.held) {
      if (this.stream.writableLength >= this.stream.writableHighWaterMark) {
        this.flush();
        this.hold();
      }
      return;
    }
    this.held = true;
    this.stream.cork();
    const wait = this.intervalMs > 0 ? this.flushedAt + this.intervalMs - performance.now() : 0;
    if (wait > 0) this.timer = setTimeout(this.release, wait);
    else process.nextTick(this.endOfTurn);
  }

  /** Sends what is held now: the end of a stream, or an answer that must not wait. */
  flush(): void {
    if (this.held) this.release();
  }

  /** A hold flushed early and taken again in the same turn may be waiting for its interval: not this one's to end. */
  private readonly endOfTurn = (): void => {
    if (this.held && this.timer === null) this.release();
  };

  private readonly release = (): void => {
    if (!this.held) return;
    this.held = false;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.intervalMs > 0) this.flushedAt = performance.now();
    this.stream.uncork();
  };
}
