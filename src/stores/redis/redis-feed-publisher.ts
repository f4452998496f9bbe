// The writing side of the task feeds in Redis: one Redis Stream per watched task
// (`<prefix>feed:<task id>`), an entry per event (`r` the replica running it, `e` its JSON, `f`
// on the last, `g` on a marker saying events before it were lost; an entry with neither `e`
// nor `g` is a watch mark, where a new subscriber starts). Publishing never waits:
// events are queued and every event published in one turn of the event loop goes out in one
// pipeline (XADD with an approximate MAXLEN, then a PEXPIRE per task: an hour while it runs, a
// while after its last event for late resumes). The queue is bounded: while Redis is slow or
// away, events past the bound are dropped, and the task's next entry is a loss marker so its
// followers end with an error rather than miss events unknowingly. A last event that could not
// be written is tried again on the next heartbeat, so followers are not left waiting for it.
import type { RedisClient } from './redis-module.js';

/** Entries kept per task feed (trimmed approximately: Redis trims whole nodes). */
const FEED_MAX_LENGTH = 1000;
/** How long a running task's feed lives after its last write (a runner that died leaves it). */
const RUNNING_TTL_MS = 60 * 60 * 1000;
/** How long a finished task's feed stays for late resumes. */
const ENDED_TTL_MS = 10 * 60 * 1000;
/** Events queued or in flight before new ones are dropped. */
const MAX_QUEUED = 10_000;
/** Last events kept for a retry when Redis could not take them. */
const MAX_UNSENT_LAST = 1024;

interface QueuedEvent {
  readonly taskId: string;
  /** The event's JSON; null for a watch mark. */
  readonly text: string | null;
  readonly last: boolean;
  /** A watch mark's waiter: told the mark's position once written. */
  readonly marked?: (position: string | null) => void;
}

export function feedKey(prefix: string, taskId: string): string {
  return `${prefix}feed:${taskId}`;
}

export class RedisFeedPublisher {
  private queued: QueuedEvent[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Tasks with events dropped since their last written entry. */
  private readonly lost = new Set<string>();
  /** Last events Redis did not take, by task, retried on the next heartbeat. */
  private readonly unsentLast = new Map<string, QueuedEvent>();
  private closed = false;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    /** This replica's name, written on every entry so followers know whose heartbeat to watch. */
    private readonly replica: string,
  ) {}

  publish(taskId: string, event: Record<string, unknown>, last: boolean): void {
    if (this.closed) return;
    if (this.queued.length + this.inFlight >= MAX_QUEUED) {
      this.lose(taskId, null);
      return;
    }
    let text: string;
    try {
      text = JSON.stringify(event);
    } catch {
      this.lose(taskId, null);
      return;
    }
    this.queued.push({ taskId, text, last });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /**
   * Writes a mark in the task's feed, through the same queue as its events: the position it
   * gets is where a new subscriber starts, so it misses nothing published after it. Null when
   * Redis did not take it.
   */
  mark(taskId: string): Promise<string | null> {
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.queued.push({ taskId, text: null, last: false, marked: resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Tries again the last events Redis did not take (called on each heartbeat). */
  retryUnsent(): void {
    if (this.unsentLast.size === 0 || this.closed) return;
    const events = [...this.unsentLast.values()];
    this.unsentLast.clear();
    for (const event of events) {
      this.queued.push(event);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Sends what is queued, then takes no more. */
  close(): void {
    if (this.queued.length > 0) this.flush();
    this.closed = true;
  }

  private lose(taskId: string, last: QueuedEvent | null): void {
    this.lost.add(taskId);
    if (last && this.unsentLast.size < MAX_UNSENT_LAST) this.unsentLast.set(taskId, last);
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queued;
    if (batch.length === 0) return;
    this.queued = [];
    this.inFlight += batch.length;
    const pipeline = this.client.pipeline();
    const ttl = new Map<string, boolean>();
    /** Where each watch mark's XADD stands in the pipeline. */
    const marks: [number, QueuedEvent][] = [];
    let commands = 0;
    for (const event of batch) {
      const key = feedKey(this.prefix, event.taskId);
      if (this.lost.delete(event.taskId)) {
        pipeline.xadd(key, 'MAXLEN', '~', FEED_MAX_LENGTH, '*', 'r', this.replica, 'g', '1');
        commands++;
      }
      commands++;
      if (event.text === null) {
        marks.push([commands - 1, event]);
        pipeline.xadd(key, 'MAXLEN', '~', FEED_MAX_LENGTH, '*', 'r', this.replica, 'm', '1');
      } else if (event.last) {
        pipeline.xadd(key, 'MAXLEN', '~', FEED_MAX_LENGTH, '*', 'r', this.replica, 'e', event.text, 'f', '1');
      } else {
        pipeline.xadd(key, 'MAXLEN', '~', FEED_MAX_LENGTH, '*', 'r', this.replica, 'e', event.text);
      }
      ttl.set(key, (ttl.get(key) ?? false) || event.last);
    }
    for (const [key, ended] of ttl) pipeline.pexpire(key, ended ? ENDED_TTL_MS : RUNNING_TTL_MS);
    pipeline.exec().then(
      (results) => {
        this.inFlight -= batch.length;
        for (const [at, mark] of marks) {
          const [error, id] = results?.[at] ?? [new Error('no answer'), null];
          mark.marked!(error ? null : String(id));
        }
        // A pipeline answers each command; one that failed lost its event.
        if (results?.some(([error]) => error)) this.failed(batch);
      },
      () => {
        this.inFlight -= batch.length;
        for (const [, mark] of marks) mark.marked!(null);
        this.failed(batch);
      },
    );
  }

  /** Marks the batch's tasks as having lost events (the order of what did get written is unknown). */
  private failed(batch: readonly QueuedEvent[]): void {
    for (const event of batch) if (event.text !== null) this.lose(event.taskId, event.last ? event : null);
  }
}
