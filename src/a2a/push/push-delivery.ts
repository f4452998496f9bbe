// Delivery of A2A push notifications: when a task changes, its handler calls `notify` with the
// change as a StreamResponse in JSON, and each of the task's webhook configs gets it as an HTTP
// POST (webhook-post.ts). `notify` returns at once and never throws: a webhook that is slow,
// down or refused costs the task nothing. Behind it:
//
//   - per task, the changes wait in order while the task's configs are read (one read for all
//     that arrived meanwhile; the read also keeps the configs alive as long as the task). A
//     change may come with its configs already read, by the index write that recorded it (on
//     Redis, the script that records a task's end): then it waits for no read;
//   - per destination (a URL's origin), a bounded queue and at most `concurrencyPerDestination`
//     calls at once; a full queue drops its oldest call, counted and logged, and so does the
//     longest queue when all of them together hold `maxQueued`;
//   - one config's calls go out one at a time, in the order of the changes;
//   - a call that may succeed later (timeout, lost connection, 408, 429, 5xx) is tried again
//     after an exponential backoff with jitter, at most `maxAttempts` times and never after
//     `maxDeliveryMs` from its first attempt; a redirect, another 4xx or a refused destination
//     ends it at once.
//
// Each call's end (delivered, failed, dropped) is counted in `stats()` and reported to
// `onOutcome`, where tests and the application listen, and through which the agent server feeds
// its Prometheus metrics (observability/push-delivery-watch.ts). A change lost before it became
// calls (its task's configs could not be read, too many waited for the read, its JSON could not
// be written) goes to `onChangeDropped` the same way: it has no config or URL to report.
import type { JsonValue } from '@bufbuild/protobuf';
import type { Logger } from '../../transport/hooks.js';
import { pushTaskKey, type StoredPushConfig } from '../../stores/push-configs.js';
import type { TaskScope } from '../../stores/task-entries.js';
import { DestinationPolicy, type PushDestinationOptions } from './destination-policy.js';
import type { PushConfigStore } from './push-config-store.js';
import { webhookAgents, type WebhookAgentOptions, type WebhookAgents } from './webhook-agent.js';
import { postWebhook, type AttemptResult } from './webhook-post.js';

/** The header that carries a config's `token`, as the A2A specification's example names it. */
const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/** The media type of a webhook call's body (a StreamResponse, as the HTTP+JSON binding writes it). */
const PUSH_CONTENT_TYPE = 'application/a2a+json';

export interface PushDeliveryOptions extends PushDestinationOptions, WebhookAgentOptions {
  /** Attempts per call, the first included. Default 5. */
  readonly maxAttempts?: number;
  /** Wait before the second attempt; it doubles for each one after, up to `maxBackoffMs`. Default 500 ms. */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** No attempt starts later than this after the first. Default 60 s. */
  readonly maxDeliveryMs?: number;
  /** One attempt's bound: connecting, sending and the whole answer. Default 10 s (the specification recommends 10 to 30). */
  readonly attemptTimeoutMs?: number;
  /** The most of an answer's body read (it is discarded). Default 4 KiB. */
  readonly maxResponseBytes?: number;
  /** Calls in flight to one destination (URL origin). Default 2. */
  readonly concurrencyPerDestination?: number;
  /** Calls waiting for one destination; past it the oldest is dropped. Default 100. */
  readonly maxQueuedPerDestination?: number;
  /** Calls waiting for all destinations; past it the longest queue's oldest is dropped. Default 10,000. */
  readonly maxQueued?: number;
  /** Changes of one task waiting for its configs to be read; past it the oldest is dropped. Default 100. */
  readonly maxPendingPerTask?: number;
  /** Warnings for dropped and failed calls. */
  readonly logger?: Logger;
  /** Each call's end. */
  readonly onOutcome?: (outcome: PushOutcome) => void;
  /** Each change lost before it became calls (one report per change, whatever its task's configs). */
  readonly onChangeDropped?: (dropped: DroppedChange) => void;
  /** Jitter source in [0, 1) (tests pin it). Default Math.random. */
  readonly random?: () => number;
}

export interface PushOutcome {
  readonly result: 'delivered' | 'failed' | 'dropped';
  readonly taskId: string;
  readonly configId: string;
  readonly url: string;
  readonly attempts: number;
  /** Why it failed or was dropped. */
  readonly reason?: string;
  /** True when the destination policy refused the address. */
  readonly refused?: boolean;
  /** From the call's first attempt to its end, retries and backoffs included; absent when it was never attempted. */
  readonly seconds?: number;
}

/**
 * Why a change was lost before it became calls: `unread`, its task's configs could not be read
 * (the config store failed or was unreachable); `pending_full`, `maxPendingPerTask` changes of
 * its task were already waiting for that read; `unwritable`, its StreamResponses could not be
 * written as JSON.
 */
export type ChangeDropReason = 'unread' | 'pending_full' | 'unwritable';

export interface DroppedChange {
  readonly taskId: string;
  readonly why: ChangeDropReason;
}

export interface PushStats {
  delivered: number;
  failed: number;
  dropped: number;
  /** Attempts after a first one. */
  retried: number;
  /** Calls ended by the destination policy (also counted in `failed`). */
  refused: number;
  /** Changes lost because their task's configs could not be read (also counted in `dropped`). */
  unread: number;
}

interface Call {
  readonly config: StoredPushConfig;
  readonly url: URL;
  readonly body: Buffer;
  /** One config's calls go one at a time. */
  readonly chain: string;
}

interface Destination {
  readonly queue: Call[];
  readonly busy: Set<string>;
  running: number;
}

interface PendingTask {
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly changes: TaskChange[];
}

/** Makes the StreamResponses (JSON) that tell of one change of a task, oldest first. */
export type TaskChange = () => readonly JsonValue[];

export class PushDelivery {
  readonly policy: DestinationPolicy;
  private readonly agents: WebhookAgents;
  private readonly maxAttempts: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxDeliveryMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly concurrency: number;
  private readonly maxQueuedPerDestination: number;
  private readonly maxQueued: number;
  private readonly maxPendingPerTask: number;
  private readonly random: () => number;
  private readonly counts: PushStats = { delivered: 0, failed: 0, dropped: 0, retried: 0, refused: 0, unread: 0 };
  private readonly pending = new Map<string, PendingTask>();
  private readonly destinations = new Map<string, Destination>();
  private readonly backoffs = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  private queued = 0;
  private closed = false;

  constructor(
    private readonly store: PushConfigStore,
    private readonly options: PushDeliveryOptions = {},
  ) {
    this.policy = new DestinationPolicy(options);
    this.agents = webhookAgents(this.policy, options);
    this.maxAttempts = options.maxAttempts ?? 5;
    this.initialBackoffMs = options.initialBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.maxDeliveryMs = options.maxDeliveryMs ?? 60_000;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 4096;
    this.concurrency = options.concurrencyPerDestination ?? 2;
    this.maxQueuedPerDestination = options.maxQueuedPerDestination ?? 100;
    this.maxQueued = options.maxQueued ?? 10_000;
    this.maxPendingPerTask = options.maxPendingPerTask ?? 100;
    this.random = options.random ?? Math.random;
  }

  /** A copy of the counters. */
  stats(): PushStats {
    return { ...this.counts };
  }

  /** Calls waiting for a destination, over all of them. */
  get queuedCalls(): number {
    return this.queued;
  }

  /**
   * The task changed: `change` makes the StreamResponses (in JSON) that tell of it, and each
   * goes to every config of the task in `scope`. It is called only when the task has configs,
   * so a task without any pays for no payload. Returns at once; never throws. `configs`: the
   * task's configs as the store's touch just answered them, when the caller read them with its
   * own write (used unless earlier changes of the task are still waiting for a read).
   */
  notify(scope: TaskScope, taskId: string, change: TaskChange, configs?: readonly StoredPushConfig[]): void {
    if (this.closed) return;
    const key = pushTaskKey(scope, taskId);
    const waiting = this.pending.get(key);
    if (waiting) {
      if (waiting.changes.length >= this.maxPendingPerTask) {
        waiting.changes.shift();
        this.options.logger?.warn({ taskId }, 'a2a push: a task change was dropped while its webhook configs were being read');
        this.changeDropped(taskId, 'pending_full');
      }
      waiting.changes.push(change);
      return;
    }
    const task: PendingTask = { scope, taskId, changes: [change] };
    this.pending.set(key, task);
    void this.readConfigs(key, task, configs);
  }

  /** Stops: waiting calls are dropped uncounted, backoffs end, sockets close. Calls in flight end by their own bound. */
  close(): void {
    this.closed = true;
    this.pending.clear();
    for (const destination of this.destinations.values()) destination.queue.length = 0;
    this.queued = 0;
    for (const backoff of this.backoffs) {
      clearTimeout(backoff.timer);
      backoff.wake();
    }
    this.backoffs.clear();
    this.agents.destroy();
  }

  /**
   * Reads the task's configs for the changes waiting, then for any that came meanwhile, until
   * none wait. `read`: the first changes' configs, already read.
   */
  private async readConfigs(key: string, task: PendingTask, read?: readonly StoredPushConfig[]): Promise<void> {
    while (task.changes.length > 0 && !this.closed) {
      const changes = task.changes.splice(0);
      let configs: readonly StoredPushConfig[];
      try {
        configs = read ?? (await this.store.touch(task.scope, task.taskId));
        read = undefined;
      } catch (error) {
        this.options.logger?.warn(
          { taskId: task.taskId, err: error, changes: changes.length },
          'a2a push: the webhook configs could not be read; this change is not pushed',
        );
        for (let i = 0; i < changes.length; i++) this.changeDropped(task.taskId, 'unread');
        continue;
      }
      if (configs.length === 0) continue;
      for (const change of changes) {
        let bodies: Buffer[];
        try {
          bodies = change().map((payload) => Buffer.from(JSON.stringify(payload)));
        } catch (error) {
          this.options.logger?.warn({ taskId: task.taskId, err: error }, 'a2a push: a task change could not be written');
          this.changeDropped(task.taskId, 'unwritable');
          continue;
        }
        for (const body of bodies) for (const config of configs) this.enqueue(config, body);
      }
    }
    this.pending.delete(key);
  }

  private enqueue(config: StoredPushConfig, body: Buffer): void {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      this.end(config, 'failed', 0, 'the config URL does not parse');
      return;
    }
    const call: Call = {
      config,
      url,
      body,
      chain: pushTaskKey({ tenant: config.tenant, principal: config.owner }, config.taskId) + config.id,
    };
    let destination = this.destinations.get(url.origin);
    if (!destination) {
      destination = { queue: [], busy: new Set(), running: 0 };
      this.destinations.set(url.origin, destination);
    }
    if (destination.queue.length >= this.maxQueuedPerDestination) this.dropOldest(destination, 'its destination queue is full');
    else if (this.queued >= this.maxQueued) this.dropOldest(this.longestQueue(), 'the delivery queues are full');
    destination.queue.push(call);
    this.queued += 1;
    this.pump(url.origin, destination);
  }

  private dropOldest(destination: Destination, reason: string): void {
    const oldest = destination.queue.shift();
    if (!oldest) return;
    this.queued -= 1;
    this.end(oldest.config, 'dropped', 0, reason);
  }

  private longestQueue(): Destination {
    let longest: Destination | null = null;
    for (const destination of this.destinations.values()) {
      if (!longest || destination.queue.length > longest.queue.length) longest = destination;
    }
    return longest!;
  }

  /** Starts the waiting calls the destination has room for, skipping a config whose previous call is still out. */
  private pump(origin: string, destination: Destination): void {
    while (destination.running < this.concurrency) {
      const at = destination.queue.findIndex((call) => !destination.busy.has(call.chain));
      if (at < 0) break;
      const [call] = destination.queue.splice(at, 1) as [Call];
      this.queued -= 1;
      destination.running += 1;
      destination.busy.add(call.chain);
      void this.deliver(call).finally(() => {
        destination.running -= 1;
        destination.busy.delete(call.chain);
        if (destination.running === 0 && destination.queue.length === 0) this.destinations.delete(origin);
        else this.pump(origin, destination);
      });
    }
  }

  private async deliver(call: Call): Promise<void> {
    const started = Date.now();
    const clock = performance.now();
    const request = { url: call.url, headers: webhookHeaders(call.config), body: call.body };
    const bounds = { timeoutMs: this.attemptTimeoutMs, maxResponseBytes: this.maxResponseBytes };
    let last: AttemptResult = { kind: 'retry', reason: 'not attempted' };
    for (let attempt = 1; attempt <= this.maxAttempts && !this.closed; attempt++) {
      if (attempt > 1) {
        const wait = this.backoff(attempt - 1);
        if (Date.now() + wait - started > this.maxDeliveryMs) {
          this.end(
            call.config,
            'failed',
            attempt - 1,
            `${last.reason}; gave up: another try would start past ${this.maxDeliveryMs} ms`,
            false,
            clock,
          );
          return;
        }
        await this.sleep(wait);
        if (this.closed) return;
        this.counts.retried += 1;
      }
      last = await postWebhook(this.agents, this.policy, request, bounds);
      if (last.kind === 'delivered') {
        this.end(call.config, 'delivered', attempt, undefined, false, clock);
        return;
      }
      if (last.kind === 'final') {
        this.end(call.config, 'failed', attempt, last.reason, last.refused, clock);
        return;
      }
    }
    if (!this.closed)
      this.end(
        call.config,
        'failed',
        this.maxAttempts,
        `${last.reason}; gave up after ${this.maxAttempts} attempts`,
        false,
        clock,
      );
  }

  /** The wait before retry `n` (1 for the second attempt): doubling from the first, capped, with up to half taken off at random. */
  private backoff(n: number): number {
    const full = Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** (n - 1));
    return Math.round(full * (1 - this.random() / 2));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const backoff = {
        timer: setTimeout(() => {
          this.backoffs.delete(backoff);
          resolve();
        }, ms),
        wake: resolve,
      };
      backoff.timer.unref();
      this.backoffs.add(backoff);
    });
  }

  /** A change lost before it became calls: counted, and reported as a call's end is. */
  private changeDropped(taskId: string, why: ChangeDropReason): void {
    this.counts.dropped += 1;
    if (why === 'unread') this.counts.unread += 1;
    this.options.onChangeDropped?.({ taskId, why });
  }

  private end(
    config: StoredPushConfig,
    result: PushOutcome['result'],
    attempts: number,
    reason?: string,
    refused?: boolean,
    /** performance.now() at the first attempt; absent for a call never attempted. */
    startedAt?: number,
  ): void {
    this.counts[result] += 1;
    if (refused) this.counts.refused += 1;
    const outcome: PushOutcome = {
      result,
      taskId: config.taskId,
      configId: config.id,
      url: config.url,
      attempts,
      ...(reason !== undefined ? { reason } : {}),
      ...(refused ? { refused } : {}),
      ...(startedAt !== undefined ? { seconds: (performance.now() - startedAt) / 1000 } : {}),
    };
    if (result !== 'delivered') {
      this.options.logger?.warn(
        { taskId: outcome.taskId, configId: outcome.configId, url: outcome.url, attempts, reason },
        `a2a push: a webhook call was ${result}`,
      );
    }
    this.options.onOutcome?.(outcome);
  }
}

/** The headers of a call for this config: the token in its own header, the authentication in Authorization. */
function webhookHeaders(config: StoredPushConfig): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': PUSH_CONTENT_TYPE };
  if (config.token) headers[NOTIFICATION_TOKEN_HEADER] = config.token;
  if (config.authentication) headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
  return headers;
}
