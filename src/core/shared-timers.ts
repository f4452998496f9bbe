// Timeouts that rarely fire, one per call: every outbound call has a deadline, and nearly every
// call ends long before it. A node timer per call (a Timeout object with its async id, put into
// node's list and taken out again, and the loop's reference toggled) cost about a microsecond
// of an in-process round trip. Here all pending timeouts of one duration share one node timer:
// a call appends itself to its duration's list and unlinks itself when it ends. Timeouts of one
// duration fall due in the order they were set, so the list stays sorted without searching,
// and the shared timer only ever needs to wait for the first.

/** A pending timeout: cancel it when the work ends, restart it to count its duration again. */
export interface SharedTimeout {
  cancel(): void;
  restart(): void;
}

/**
 * Calls `expire` once, `ms` milliseconds from now, unless cancelled first. While it is pending
 * it keeps the process alive, as a node timer does.
 */
export function sharedTimeout(ms: number, expire: () => void): SharedTimeout {
  let lane = lanes.get(ms);
  if (!lane) {
    lane = new Lane(ms);
    lanes.set(ms, lane);
  }
  const entry = new Entry(lane, expire);
  lane.append(entry);
  return entry;
}

/** Lanes by duration; a lane with nothing pending goes once its timer fires. */
const lanes = new Map<number, Lane>();

class Entry implements SharedTimeout {
  previous: Entry | null = null;
  next: Entry | null = null;
  due = 0;
  pending = false;

  constructor(
    private readonly lane: Lane,
    readonly expire: () => void,
  ) {}

  cancel(): void {
    if (this.pending) this.lane.remove(this);
  }

  restart(): void {
    if (this.pending) this.lane.restart(this);
  }
}

/** The pending timeouts of one duration, soonest first, and the node timer that waits for the first. */
class Lane {
  private first: Entry | null = null;
  private last: Entry | null = null;
  /** Armed for the first entry's due time or earlier (for an entry gone since): then it waits again. */
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ms: number) {}

  append(entry: Entry): void {
    entry.due = performance.now() + this.ms;
    entry.pending = true;
    this.link(entry);
    if (!this.timer) this.arm(this.ms);
    // The lane was empty, its timer left armed but not holding the process open.
    else if (entry === this.first) this.timer.ref();
  }

  remove(entry: Entry): void {
    entry.pending = false;
    this.unlink(entry);
    // Left armed for the next call, but no longer holding the process open.
    if (!this.first) this.timer?.unref();
  }

  /** Moves a pending entry to the end with a new due time; the lane stays as busy as it was. */
  restart(entry: Entry): void {
    entry.due = performance.now() + this.ms;
    if (entry === this.last) return;
    this.unlink(entry);
    this.link(entry);
  }

  private link(entry: Entry): void {
    entry.previous = this.last;
    entry.next = null;
    if (this.last) this.last.next = entry;
    else this.first = entry;
    this.last = entry;
  }

  private unlink(entry: Entry): void {
    if (entry.previous) entry.previous.next = entry.next;
    else this.first = entry.next;
    if (entry.next) entry.next.previous = entry.previous;
    else this.last = entry.previous;
    entry.previous = entry.next = null;
  }

  private arm(wait: number): void {
    this.timer = setTimeout(this.fire, Math.max(1, Math.ceil(wait)));
  }

  private readonly fire = (): void => {
    this.timer = null;
    const now = performance.now();
    const expired: Entry[] = [];
    while (this.first && this.first.due <= now) {
      const entry = this.first;
      this.remove(entry);
      expired.push(entry);
    }
    if (this.first) this.arm(this.first.due - now);
    else lanes.delete(this.ms);
    for (const entry of expired) {
      try {
        entry.expire();
      } catch (error) {
        // Thrown from a timer of its own it would be uncaught; so it is here, without
        // keeping the other timeouts from firing.
        process.nextTick(() => {
          throw error;
        });
      }
    }
  };
}
