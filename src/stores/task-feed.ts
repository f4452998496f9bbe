// A task's events shared between replicas: the replica running a task appends each event it
// streams, and a subscriber on any replica follows them in order from a position it names (the
// last event it saw), so a client can resume after a disconnect. The interface is here, beside
// the Redis backend that fills it (redis/redis-task-feed.ts), because the A2A request handler
// that consumes it sits above stores/ and a backend never imports its consumer.

/** One event as a follower gets it: its position in the task's feed and the event itself. */
export interface FeedEvent {
  /** Opaque and ordered; a follower resumes after it (sent as the SSE `id:`). */
  readonly id: string;
  readonly event: Record<string, unknown>;
}

export interface TaskFeed {
  /** A task starts running on this replica; its events are written once someone watches it. */
  begin(taskId: string): void;
  /**
   * A queued task starts running on this replica (a queue worker took it): as `begin`, and its
   * events are written at once when a subscriber already waits for it (`watchQueued`), or, when
   * `resumed` (an earlier start was cut off), when the cut-off start's events were being followed.
   */
  beginQueued(taskId: string, resumed?: boolean): Promise<void>;
  /** Whether someone watches a task running here (else its events need not even be made). */
  watched(taskId: string): boolean;
  /** The task's run here ended without its last event being published (nobody watched it). */
  end(taskId: string): void;
  /**
   * Records an event of a task this replica runs, if someone watches it. Never waits and never
   * throws: events are batched and written in the background, so the task is never held back.
   * `last` marks the event that ends the task's stream (and its run here).
   */
  publish(taskId: string, event: Record<string, unknown>, last: boolean): void;
  /**
   * Asks the replica running the task to write its events from now on: the position a new
   * follower starts after, or null when no replica runs it.
   */
  watch(taskId: string): Promise<string | null>;
  /**
   * For a task still waiting in the queue (no replica runs it yet): leaves word for the worker
   * that will take it to write its events, and answers the position a follower starts after
   * (null when Redis did not take the word). Asks the replicas again, so a worker that started
   * the task meanwhile writes its events too.
   */
  watchQueued(taskId: string): Promise<string | null>;
  /**
   * A queued task settled without a run to say so (canceled while it waited): its last event
   * reaches the subscribers waiting for it, if any.
   */
  settleQueued(taskId: string, event: Record<string, unknown>): Promise<void>;
  /**
   * A task running here goes back to the queue for another replica (this one is stopping): when
   * someone watches it, leaves word for the next worker (as `watchQueued`) and writes a mark
   * saying no replica runs it now, so its followers wait for the rerun instead of ending.
   */
  handBack(taskId: string): Promise<void>;
  /**
   * The task's events after position `after`, in order, ending after the one marked last. Fails
   * with a TaskFeedError when the follower falls too far behind, the replica running the task
   * stops, or events were lost. Stopping the reading frees the follower. `queued` says whether
   * the task still waits in the queue: while it does, a feed no replica writes yet is not a
   * runner gone, nor is a runner's heartbeat gone (its job was handed back, or will be once its
   * lock runs out): the followers then wait for the next worker's events.
   */
  follow(taskId: string, after: string, queued?: WaitingCheck): AsyncIterable<FeedEvent>;
}

/**
 * Whether each of the tasks named still waits in the queue (for its first worker, or for the
 * next one after its replica stopped), answered in the order asked. A reader asks it about every
 * such task it follows at once, so its check costs one call (one round trip to Redis) whatever
 * the number of tasks waited for.
 */
export type WaitingCheck = (taskIds: readonly string[]) => Promise<readonly boolean[]>;

/** The largest part of a position: Redis keeps each as an unsigned 64-bit number and refuses more. */
const MAX_POSITION_PART = 18_446_744_073_709_551_615n;

/**
 * Whether `value` is a position a follower may resume after (`<milliseconds>-<sequence>`), each
 * part one Redis can read: a larger one would reach Redis and come back as its own error.
 */
export function isFeedPosition(value: string): boolean {
  const match = /^(\d{1,20})-(\d{1,20})$/.exec(value);
  return match !== null && BigInt(match[1]!) <= MAX_POSITION_PART && BigInt(match[2]!) <= MAX_POSITION_PART;
}

/**
 * `unknown_position`: the follower named a position past the feed's newest entry, which this feed
 * never gave (positions are Redis's, given only once their entry is written): the caller's mistake.
 */
export type TaskFeedErrorCode = 'subscriber_too_slow' | 'runner_gone' | 'events_lost' | 'feed_expired' | 'unknown_position';

/** Why a followed feed ended before the task's last event; `code` is stable, match on it. */
export class TaskFeedError extends Error {
  constructor(
    readonly code: TaskFeedErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TaskFeedError';
  }
}
