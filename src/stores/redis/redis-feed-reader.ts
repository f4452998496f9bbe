// The reading side of the task feeds: every follower on this replica is served by one loop on
// one dedicated connection, which blocks in a single XREAD over all followed feeds (a connection
// blocked in XREAD runs nothing else, and one per subscriber would not scale). Followers of one
// task share a group read from the lowest position any of them needs; each skips what it has
// seen. Each follower's unread events are bounded: one that falls MAX_UNREAD behind is dropped
// with a TaskFeedError, so a slow consumer costs a bounded amount of memory. Between reads the
// loop checks that the replica running each followed task is alive (its heartbeat key); when it
// is gone, the followers get what it managed to write and then a clear `runner_gone` end.
// Entries are numbered without holes (redis-feed-publisher.ts): a follower whose next entry is
// not the one after its last was behind entries trimmed away before this reader got to them, and
// ends with `events_lost` rather than skip them. The check costs nothing on the read path: the
// number rides in each entry, and a new follower learns its position's number in the same round
// trip that reads the feed's newest entry.
// A feed whose entries name no runner yet (a queued mark, `r` empty: the task waits in the queue)
// is judged by the followers' own check (the A2A handler asks its task index and queue) rather
// than by a heartbeat, asked once per check about every such task together (one index read):
// while the task waits, the followers wait (holding nothing but their place); once it no longer
// waits and still no runner has written, the followers get OWNERLESS_CHECKS more checks (for a
// cancel's last event on its way) before they end with `runner_gone`.
// A runner's heartbeat that goes away is asked about the same way before its followers end: a
// task handed back to the queue (a stopping replica's hand-on, or a dead replica's job put back by
// the stall check) makes them wait for the next worker, whose entries (numbered afresh) follow.
import { AsyncQueue } from '../../core/async-queue.js';
import { TaskFeedError, type FeedEvent, type WaitingCheck } from '../task-feed.js';
import { feedKey } from './redis-feed-publisher.js';
import { redisFailure } from './redis-connection.js';
import type { RedisClient } from './redis-module.js';

/** Events one follower may have unread before it is dropped. */
const MAX_UNREAD = 256;
/** How long one XREAD blocks; a new follower waits at most this long unless the unblock reaches it. */
const BLOCK_MS = 1000;
/** Entries one XREAD takes per feed. */
const READ_COUNT = 128;
/** How often the runners' heartbeats are checked. */
const CHECK_EVERY_MS = 1000;
/** Checks a feed may go without any entry naming its runner before it counts as abandoned. */
const OWNERLESS_CHECKS = 5;

interface Follower {
  /** The last position this follower has (or was given). */
  cursor: string;
  /** The number of the entry at `cursor`; null when unknown (an entry written without one). */
  number: number | null;
  readonly queue: AsyncQueue<FeedEvent>;
}

interface Group {
  readonly taskId: string;
  readonly key: string;
  readonly followers: Set<Follower>;
  /** Where the next read starts: the lowest position a follower needs. */
  cursor: string;
  /** The replica named on the feed's newest entry read. */
  owner: string | null;
  ownerlessChecks: number;
  /** Whether the task still waits in the queue (asked while no runner is named, `owner` empty). */
  queued: WaitingCheck | null;
}

/** The owner of a feed whose only entries are queued marks: nobody runs the task yet. */
const QUEUED = '';

type StreamEntry = [id: string, fields: string[]];

/** What a reader has held for its followers so far: the bound on unread events, checked from outside. */
export interface FeedReaderCounts {
  /** Followers being served now. */
  readonly followers: number;
  /** The most events any one follower has had unread at once (never above the bound). */
  readonly mostUnread: number;
  /** Followers dropped for falling the bound behind. */
  readonly droppedTooSlow: number;
}

export class RedisFeedReader {
  private readonly groups = new Map<string, Group>();
  private running = false;
  private blocked = false;
  private readerId: string | null = null;
  private closed = false;
  private mostUnread = 0;
  private droppedTooSlow = 0;

  constructor(
    /** The command connection: for the unblock and the heartbeat checks. */
    private readonly client: RedisClient,
    /** This reader's own connection, which spends its time blocked in XREAD. */
    private readonly reader: RedisClient,
    private readonly prefix: string,
    private readonly location: string,
    private readonly heartbeatKey: (replica: string) => string,
    /** Told when a followed task's runner is gone but its job still pends: the next worker must write. */
    private readonly orphaned: (taskId: string) => Promise<void> = () => Promise.resolve(),
  ) {}

  async open(): Promise<void> {
    this.readerId = String(await this.reader.client('ID'));
  }

  async *follow(taskId: string, after: string, queued?: WaitingCheck): AsyncGenerator<FeedEvent, void, undefined> {
    const key = feedKey(this.prefix, taskId);
    let newest: StreamEntry | undefined;
    let at: StreamEntry | undefined;
    try {
      // The newest entry, and the one at the follower's position (for its number): one round trip.
      const [[newestError, newestEntries], [atError, atEntries]] = (await this.client
        .pipeline()
        .xrevrange(key, '+', '-', 'COUNT', 1)
        .xrange(key, after, after)
        .exec()) as [Error | null, StreamEntry[]][];
      if (newestError) throw newestError;
      if (atError) throw atError;
      newest = newestEntries[0];
      at = atEntries[0];
    } catch (error) {
      throw redisFailure(error, this.location);
    }
    if (after !== '0-0' && !newest) {
      throw new TaskFeedError(
        'feed_expired',
        `the events of task ${taskId} are no longer kept; subscribe again without a position`,
      );
    }
    // A position no entry has reached yet was never given: followed, it would skip every entry up
    // to it, the task's last one among them, and the follower would wait for ever.
    if (after !== '0-0' && newest && compareIds(after, newest[0]) > 0) {
      throw new TaskFeedError('unknown_position', `position ${after} is past the newest event of task ${taskId}`);
    }
    // Resuming after the last event: there is nothing more to give.
    if (newest && compareIds(newest[0], after) <= 0 && fieldOf(newest[1], 'f') === '1') return;
    // A position older than the newest entry but no longer in the feed was trimmed away, and
    // events after it may have gone with it.
    if (after !== '0-0' && !at && newest && compareIds(after, newest[0]) < 0) {
      throw new TaskFeedError(
        'events_lost',
        `the events of task ${taskId} after position ${after} are no longer all kept; its state is as GetTask shows`,
      );
    }
    const follower: Follower = {
      cursor: after,
      // After a run's last entry a later run (the task asked for input) numbers its own from 1.
      number: after === '0-0' ? 0 : at && fieldOf(at[1], 'f') !== '1' ? numberOf(at[1]) : null,
      queue: new AsyncQueue<FeedEvent>(),
    };
    let group = this.groups.get(key);
    if (!group) {
      group = { taskId, key, followers: new Set(), cursor: after, owner: null, ownerlessChecks: 0, queued: null };
      this.groups.set(key, group);
    } else if (compareIds(after, group.cursor) < 0) {
      group.cursor = after;
    }
    if (newest) group.owner ??= fieldOf(newest[1], 'r');
    if (queued) group.queued ??= queued;
    group.followers.add(follower);
    this.wake();
    try {
      for await (const event of follower.queue) yield event;
    } finally {
      this.leave(group, follower);
    }
  }

  counts(): FeedReaderCounts {
    let followers = 0;
    for (const group of this.groups.values()) followers += group.followers.size;
    return { followers, mostUnread: this.mostUnread, droppedTooSlow: this.droppedTooSlow };
  }

  close(): void {
    this.closed = true;
    for (const group of this.groups.values()) {
      for (const follower of group.followers) follower.queue.fail(new TaskFeedError('runner_gone', 'this replica is stopping'));
    }
    this.groups.clear();
  }

  private leave(group: Group, follower: Follower): void {
    group.followers.delete(follower);
    if (group.followers.size === 0 && this.groups.get(group.key) === group) this.groups.delete(group.key);
  }

  /** Starts the loop, or cuts its current XREAD short so it reads the new follower's feed too. */
  private wake(): void {
    if (!this.running) {
      this.running = true;
      void this.loop();
      return;
    }
    if (this.blocked && this.readerId) {
      // Best effort: a Redis that forbids CLIENT only makes a new follower wait for the block to end.
      this.client.client('UNBLOCK', this.readerId).catch(() => undefined);
    }
  }

  private async loop(): Promise<void> {
    let checked = Date.now();
    try {
      while (this.groups.size > 0 && !this.closed) {
        const groups = [...this.groups.values()];
        const args: (string | number)[] = ['COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS'];
        for (const group of groups) args.push(group.key);
        for (const group of groups) args.push(group.cursor);
        let reply: unknown;
        this.blocked = true;
        try {
          reply = await this.reader.call('XREAD', ...args);
        } catch (error) {
          this.failAll(redisFailure(error, this.location));
          return;
        } finally {
          this.blocked = false;
        }
        for (const [key, entries] of streamsOf(reply)) {
          const group = this.groups.get(key);
          if (group) this.deliver(group, entries);
        }
        if (Date.now() - checked >= CHECK_EVERY_MS) {
          checked = Date.now();
          await this.checkRunners();
        }
      }
    } finally {
      this.running = false;
      // A follower that arrived as the loop was ending.
      if (this.groups.size > 0 && !this.closed) this.wake();
    }
  }

  private deliver(group: Group, entries: readonly StreamEntry[]): void {
    for (const [id, fields] of entries) {
      group.cursor = id;
      // A queued mark written after a runner took over names nobody: the runner stays the owner,
      // unless the mark says the runner handed the task back to the queue (`h`, a stopping replica).
      const runner = fieldOf(fields, 'r');
      const handedBack = runner === QUEUED && fieldOf(fields, 'h') === '1';
      // A runner not heard from before (a rerun on another replica) numbers its entries afresh.
      const fresh = runner !== null && runner !== QUEUED && runner !== group.owner;
      if (runner !== null && (runner !== QUEUED || group.owner === null || handedBack)) group.owner = runner;
      if (handedBack) group.ownerlessChecks = 0;
      const lost = fieldOf(fields, 'g') === '1';
      const number = numberOf(fields);
      const text = fieldOf(fields, 'e');
      const last = fieldOf(fields, 'f') === '1';
      let event: Record<string, unknown> | null = null;
      if (text !== null) {
        try {
          event = JSON.parse(text) as Record<string, unknown>;
        } catch {
          event = null;
        }
      }
      for (const follower of group.followers) {
        if (compareIds(id, follower.cursor) <= 0) continue;
        follower.cursor = id;
        // Not the entry after the follower's last: the ones between were trimmed before they were read.
        const skipped = !fresh && follower.number !== null && number !== null && number !== follower.number + 1;
        follower.number = number;
        if (skipped) {
          this.drop(
            group,
            follower,
            new TaskFeedError(
              'events_lost',
              `events of task ${group.taskId} were trimmed from its feed before this replica read them; its state is as GetTask shows`,
            ),
          );
          continue;
        }
        if (lost) {
          this.drop(
            group,
            follower,
            new TaskFeedError('events_lost', `events of task ${group.taskId} were lost on their way through Redis`),
          );
          continue;
        }
        if (!event) continue;
        if (follower.queue.size >= MAX_UNREAD) {
          this.droppedTooSlow++;
          this.drop(
            group,
            follower,
            new TaskFeedError(
              'subscriber_too_slow',
              `this subscriber fell ${MAX_UNREAD} events behind task ${group.taskId} and was dropped; resume after its last event`,
            ),
          );
          continue;
        }
        follower.queue.push({ id, event });
        if (follower.queue.size > this.mostUnread) this.mostUnread = follower.queue.size;
        if (last) {
          follower.queue.end();
          group.followers.delete(follower);
        }
      }
      if (group.followers.size === 0) {
        this.groups.delete(group.key);
        return;
      }
    }
  }

  private drop(group: Group, follower: Follower, error: TaskFeedError): void {
    follower.queue.fail(error);
    group.followers.delete(follower);
  }

  /**
   * Ends the followers of tasks whose runner's heartbeat is gone, after handing them what it
   * wrote before it stopped.
   */
  private async checkRunners(): Promise<void> {
    const groups = [...this.groups.values()];
    const owners = [
      ...new Set(groups.map((group) => group.owner).filter((owner): owner is string => owner !== null && owner !== QUEUED)),
    ];
    let alive: Set<string>;
    try {
      const pipeline = this.reader.pipeline();
      for (const owner of owners) pipeline.exists(this.heartbeatKey(owner));
      const results = owners.length > 0 ? ((await pipeline.exec()) ?? []) : [];
      alive = new Set(owners.filter((_, i) => results[i]?.[1] === 1));
    } catch {
      // Redis itself is away: the next XREAD fails every follower with that reason.
      return;
    }
    // Tasks nobody runs now (queued, or their runner gone): whether each waits for a worker.
    const waiting = await this.askWaiting(
      groups.filter((group) => group.owner === QUEUED || (group.owner !== null && !alive.has(group.owner))),
    );
    for (const group of groups) {
      if (group.owner === QUEUED) {
        if (this.stillQueued(group, waiting.get(group) ?? false)) continue;
      } else if (group.owner === null) {
        if (++group.ownerlessChecks < OWNERLESS_CHECKS) continue;
      } else if (alive.has(group.owner)) {
        continue;
      } else if (await this.handedOn(group, waiting.get(group) ?? false)) {
        continue;
      }
      const waitedForRunner = group.owner === QUEUED;
      // What the runner wrote before it stopped still reaches the followers.
      try {
        const rest = (await this.reader.xrange(group.key, `(${group.cursor}`, '+')) as StreamEntry[];
        this.deliver(group, rest);
      } catch {
        // Handed on as runner_gone below.
      }
      if (this.groups.get(group.key) !== group) continue;
      // A runner named itself in what was just read: its heartbeat is checked from now on.
      if (waitedForRunner && group.owner !== QUEUED) continue;
      const error = new TaskFeedError(
        'runner_gone',
        waitedForRunner
          ? `task ${group.taskId} left the queue but no replica wrote its events; its state is as GetTask shows`
          : `the replica running task ${group.taskId} stopped before the task ended; its state is as GetTask shows`,
      );
      for (const follower of group.followers) follower.queue.fail(error);
      this.groups.delete(group.key);
    }
  }

  /**
   * Whether each group's task still waits for a worker: one call of each distinct check (the
   * A2A handler gives them all the same one) for all its groups, so one index read in all. A
   * check that fails counts as waiting: the index is out of reach because Redis itself is away,
   * and the next XREAD says so to every follower.
   */
  private async askWaiting(groups: readonly Group[]): Promise<Map<Group, boolean>> {
    const byCheck = new Map<WaitingCheck, Group[]>();
    for (const group of groups) {
      if (!group.queued) continue;
      const asked = byCheck.get(group.queued);
      if (asked) asked.push(group);
      else byCheck.set(group.queued, [group]);
    }
    const answers = new Map<Group, boolean>();
    for (const [check, asked] of byCheck) {
      const found = await check(asked.map((group) => group.taskId)).catch(() => asked.map(() => true));
      for (const [i, group] of asked.entries()) answers.set(group, found[i] ?? false);
    }
    return answers;
  }

  /**
   * The runner's heartbeat is gone: whether its task waits for another worker instead (its job
   * went back to the queue, or is still held by the dead replica until the lock runs out; the
   * follower's check bounds that). Then the followers wait as for a queued task, what the old
   * runner wrote first still reaching them, and the next worker is asked to write.
   */
  private async handedOn(group: Group, pending: boolean): Promise<boolean> {
    if (!pending) return false;
    try {
      const rest = (await this.reader.xrange(group.key, `(${group.cursor}`, '+')) as StreamEntry[];
      this.deliver(group, rest);
    } catch {
      return true;
    }
    if (this.groups.get(group.key) !== group) return true;
    // Unless a new runner named itself in what was just read, nobody runs it now.
    if (group.owner !== null && group.owner !== QUEUED && (await this.runnerAlive(group.owner))) return true;
    group.owner = QUEUED;
    group.ownerlessChecks = 0;
    await this.orphaned(group.taskId).catch(() => undefined);
    return true;
  }

  private async runnerAlive(owner: string): Promise<boolean> {
    try {
      return (await this.reader.exists(this.heartbeatKey(owner))) === 1;
    } catch {
      return false;
    }
  }

  /**
   * Whether followers of a feed nobody writes yet should go on waiting: the task still waits in
   * the queue, or left it only a few checks ago (the runner's first entry, or a cancel's last
   * event, may be on its way).
   */
  private stillQueued(group: Group, waiting: boolean): boolean {
    if (waiting) {
      group.ownerlessChecks = 0;
      return true;
    }
    return ++group.ownerlessChecks < OWNERLESS_CHECKS;
  }

  private failAll(error: unknown): void {
    for (const group of this.groups.values()) for (const follower of group.followers) follower.queue.fail(error);
    this.groups.clear();
  }
}

/**
 * The feeds an XREAD reply holds. Redis answers a list of [key, entries] pairs; the client
 * library reshapes stream replies by protocol and version (a flat key, entries, key, ... list,
 * or a map), so each form is read.
 */
function streamsOf(reply: unknown): [string, StreamEntry[]][] {
  if (reply === null || reply === undefined) return [];
  if (!Array.isArray(reply)) return Object.entries(reply as Record<string, StreamEntry[]>);
  if (reply.length > 0 && typeof reply[0] === 'string') {
    const pairs: [string, StreamEntry[]][] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) pairs.push([reply[i] as string, reply[i + 1] as StreamEntry[]]);
    return pairs;
  }
  return reply as [string, StreamEntry[]][];
}

/** An entry's number (`n`); null for an entry written without one. */
function numberOf(fields: readonly string[]): number | null {
  const text = fieldOf(fields, 'n');
  if (text === null) return null;
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : null;
}

function fieldOf(fields: readonly string[], name: string): string | null {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1]!;
  return null;
}

/** Orders two stream positions (`<ms>-<seq>`). */
function compareIds(a: string, b: string): number {
  const [aMs = '0', aSeq = '0'] = a.split('-');
  const [bMs = '0', bSeq = '0'] = b.split('-');
  const ms = BigInt(aMs) - BigInt(bMs);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(aSeq) - BigInt(bSeq);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}
