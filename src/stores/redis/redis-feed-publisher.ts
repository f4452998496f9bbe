// The writing side of the task feeds in Redis: one Redis Stream per watched task
// (`<prefix>feed:<task id>`), an entry per event (`r` the replica running it, `n` the entry's
// number in this run's feed, `e` its JSON, `f` on the last, `g` on a marker saying events before
// it were lost; an entry with neither `e` nor `g` is a watch mark, where a new subscriber starts).
// The numbers count 1, 2, 3... with no hole, so a reader that finds one knows entries were
// trimmed away before it read them (redis-feed-reader.ts), at no cost on its hot path.
// Publishing never waits: events are queued and every event published in one turn of the event
// loop goes out in one pipeline (XADD with an approximate MAXLEN, then a PEXPIRE per task: an
// hour while it runs, a while after its last event for late resumes), on a connection of the
// feed's own, so the task store's writes never queue behind a large task's events. The queue is
// bounded in events and in bytes: while Redis is slow or away, events past either bound are
// dropped, and the task's next entry is a loss marker so its followers end with an error rather
// than miss events unknowingly. A last event that could not be written is tried again on the
// next heartbeat, so followers are not left waiting for it.
import { Buffer } from 'node:buffer';
import type { RedisClient } from './redis-module.js';

/** Entries kept per task feed (trimmed approximately: Redis trims whole nodes). */
const FEED_MAX_LENGTH = 1000;
/** Bytes of event JSON queued or in flight before new events are dropped. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
/** How long a running task's feed lives after its last write (a runner that died leaves it). */
const RUNNING_TTL_MS = 60 * 60 * 1000;
/** How long a finished task's feed stays for late resumes. */
const ENDED_TTL_MS = 10 * 60 * 1000;
/** Events queued or in flight before new ones are dropped. */
const MAX_QUEUED = 10_000;
/** Last events kept for a retry when Redis could not take them. */
const MAX_UNSENT_LAST = 1024;

/** The feed's bounds; the defaults are right for service, tests shrink them to reach them soon. */
export interface FeedBounds {
  /** Entries kept per task feed (approximately). Default 1000. */
  readonly maxLength?: number;
  /** Bytes of event JSON queued or in flight before events are dropped. Default MAX_QUEUED_BYTES. */
  readonly maxQueuedBytes?: number;
}

interface QueuedEvent {
  readonly taskId: string;
  /** The event's JSON; null for a watch mark. */
  readonly text: string | null;
  /** Its UTF-8 size, counted against the byte bound. */
  readonly bytes: number;
  readonly last: boolean;
  /** A watch mark's waiter: told the mark's position once written. */
  readonly marked?: (position: string | null) => void;
  /** A loss marker: events of the task were dropped here, after the ones queued before it. */
  readonly loss?: true;
}

export function feedKey(prefix: string, taskId: string): string {
  return `${prefix}feed:${taskId}`;
}

export class RedisFeedPublisher {
  private queued: QueuedEvent[] = [];
  private inFlight = 0;
  /** Bytes of the events queued and in flight. */
  private bytes = 0;
  /** The number of each task's last entry written (or sent); gone once its last event is sent. */
  private readonly numbers = new Map<string, number>();
  private readonly maxLength: number;
  private readonly maxQueuedBytes: number;
  private scheduled = false;
  /** Tasks whose last pipeline failed: a loss marker goes before their next entry. */
  private readonly lost = new Set<string>();
  /** Tasks with a loss marker in the queue (one is enough until it is written). */
  private readonly lossQueued = new Set<string>();
  /** Last events Redis did not take, by task, retried on the next heartbeat. */
  private readonly unsentLast = new Map<string, QueuedEvent>();
  private closed = false;

  constructor(
    /** The feed's own connection: what waits on it holds back no other command of the replica. */
    private readonly client: RedisClient,
    private readonly prefix: string,
    /** This replica's name, written on every entry so followers know whose heartbeat to watch. */
    private readonly replica: string,
    bounds: FeedBounds = {},
  ) {
    this.maxLength = bounds.maxLength ?? FEED_MAX_LENGTH;
    this.maxQueuedBytes = bounds.maxQueuedBytes ?? MAX_QUEUED_BYTES;
  }

  publish(taskId: string, event: Record<string, unknown>, last: boolean): void {
    if (this.closed) return;
    let text: string;
    try {
      text = JSON.stringify(event);
    } catch {
      this.drop(taskId, null);
      return;
    }
    const queued: QueuedEvent = { taskId, text, bytes: Buffer.byteLength(text), last };
    // Counted in bytes too: a few large events could otherwise hold tens of MiB in the queue.
    if (this.queued.length + this.inFlight >= MAX_QUEUED || this.bytes + queued.bytes > this.maxQueuedBytes) {
      this.drop(taskId, last ? queued : null);
      return;
    }
    this.bytes += queued.bytes;
    this.queued.push(queued);
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
      this.queued.push({ taskId, text: null, bytes: 0, last: false, marked: resolve });
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
      this.bytes += event.bytes;
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

  /** An event not queued: a loss marker follows what is queued already (at most one waits per task). */
  private drop(taskId: string, last: QueuedEvent | null): void {
    if (!this.lossQueued.has(taskId)) {
      this.lossQueued.add(taskId);
      this.queued.push({ taskId, text: null, bytes: 0, last: false, loss: true });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    }
    // A last event dropped is tried again on the next heartbeat, so followers get their end.
    if (last && this.unsentLast.size < MAX_UNSENT_LAST) this.unsentLast.set(taskId, last);
  }

  /** Events Redis did not take: in what order the rest was written is unknown, so the marker goes first. */
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
    const batchBytes = batch.reduce((sum, event) => sum + event.bytes, 0);
    const pipeline = this.client.pipeline();
    const ttl = new Map<string, boolean>();
    /** Where each watch mark's XADD stands in the pipeline. */
    const marks: [number, QueuedEvent][] = [];
    let commands = 0;
    const head = (key: string, taskId: string) => {
      const number = (this.numbers.get(taskId) ?? 0) + 1;
      this.numbers.set(taskId, number);
      return [key, 'MAXLEN', '~', this.maxLength, '*', 'r', this.replica, 'n', number] as const;
    };
    for (const event of batch) {
      const key = feedKey(this.prefix, event.taskId);
      if (this.lost.delete(event.taskId) && !event.loss) {
        pipeline.xadd(...head(key, event.taskId), 'g', '1');
        commands++;
      }
      commands++;
      if (event.loss) {
        this.lossQueued.delete(event.taskId);
        pipeline.xadd(...head(key, event.taskId), 'g', '1');
      } else if (event.text === null) {
        marks.push([commands - 1, event]);
        pipeline.xadd(...head(key, event.taskId), 'm', '1');
      } else if (event.last) {
        pipeline.xadd(...head(key, event.taskId), 'e', event.text, 'f', '1');
        // The run's feed is over; a later run of the task (after input it asked for) counts anew.
        this.numbers.delete(event.taskId);
      } else {
        pipeline.xadd(...head(key, event.taskId), 'e', event.text);
      }
      ttl.set(key, (ttl.get(key) ?? false) || event.last);
    }
    for (const [key, ended] of ttl) pipeline.pexpire(key, ended ? ENDED_TTL_MS : RUNNING_TTL_MS);
    const settled = () => {
      this.inFlight -= batch.length;
      this.bytes -= batchBytes;
    };
    pipeline.exec().then(
      (results) => {
        settled();
        for (const [at, mark] of marks) {
          const [error, id] = results?.[at] ?? [new Error('no answer'), null];
          mark.marked!(error ? null : String(id));
        }
        // A pipeline answers each command; one that failed lost its event.
        if (results?.some(([error]) => error)) this.failed(batch);
      },
      () => {
        settled();
        for (const [, mark] of marks) mark.marked!(null);
        this.failed(batch);
      },
    );
  }

  /** Marks the batch's tasks as having lost events (the order of what did get written is unknown). */
  private failed(batch: readonly QueuedEvent[]): void {
    for (const event of batch) if (event.text !== null || event.loss) this.lose(event.taskId, event.last ? event : null);
  }
}
