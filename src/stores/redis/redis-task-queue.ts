// Work the caller does not wait for, shared by every replica through a BullMQ queue on the
// store's Redis: a replica enqueues a job, and a worker pool in any replica (this one included)
// runs it. A worker holds a lock on its job and renews it while the job runs; a replica that
// dies stops renewing, and the stalled-job check of the workers still alive puts the job back
// in the queue once the lock has run out, where the next worker picks it up and is told how
// many earlier starts ended with no outcome (`abandoned`). What to do then (run it again, or
// record that it is lost) is the consumer's decision: BullMQ's own stall limit is set out of
// reach, so no job ever ends in BullMQ without the consumer having seen it. A job whose
// processor throws is tried again while attempts remain. Finished jobs are removed at once: the
// consumer keeps the outcome elsewhere (the task index).
//
// A graceful stop (drain) does not leave its running jobs to the lock: the worker stops taking
// jobs, the running ones get the drain window to finish here, and then each processor is told to
// hand its job on (its `handOn` signal aborts): it ends its run at once and either settles the job
// itself or answers `again`, and the job goes straight back to the front of the queue for another
// replica, counted as a start that ended without an outcome. Only a replica that dies (SIGKILL, a
// crash) still waits for its lock to run out.
import { InvalidArgumentError } from '../../core/errors.js';
import { loadBullMq } from './bullmq-module.js';
import { redisFailure } from './redis-connection.js';
import { RedisStoreError } from './redis-error.js';
import type { RedisTarget } from './redis-target.js';

/** How a job's start stands among its earlier ones. */
export interface JobAttempt {
  /** Which start this is, counting from 1. */
  readonly start: number;
  /** Earlier starts that ended without an outcome: the replica running them stopped (or lost its lock). */
  readonly abandoned: number;
}

/** Where a job stands, as a subscriber waiting for its task needs to know (see `jobState`). */
export type JobState = 'queued' | 'taken' | 'none';

/**
 * Runs one job; a throw asks for another attempt (when attempts remain). `handOn` aborts when this
 * replica is stopping and can wait no longer: the processor ends its run at once, then settles the
 * job (resolves with nothing) or answers `again` to have another replica start it.
 */
export type JobProcessor<T> = (data: T, attempt: JobAttempt, handOn: AbortSignal) => Promise<'again' | undefined>;

export interface TaskQueueSettings {
  /** Jobs one replica runs at the same time. Default 4. */
  readonly concurrency?: number;
  /**
   * How long a worker's lock on a running job lasts without renewal (renewed every half of it):
   * a replica silent this long (dead, or its event loop stuck) counts as stopped. Default 15000 ms.
   */
  readonly lockDurationMs?: number;
  /** How often each worker looks for jobs whose lock ran out. Default 5000 ms. */
  readonly stalledIntervalMs?: number;
  /** Most attempts of a job whose processor throws (at least 1). Default 3. */
  readonly attempts?: number;
}

const DEFAULT_QUEUE_CONCURRENCY = 4;
const DEFAULT_LOCK_MS = 15_000;
const DEFAULT_STALLED_INTERVAL_MS = 5_000;
const DEFAULT_ATTEMPTS = 3;
/** The queue's name under the key prefix. */
const QUEUE_NAME = 'a2a-tasks';

/** Checks the settings where they are given, naming the field and the rule. */
export function checkQueueSettings(settings: TaskQueueSettings, field: string): Required<TaskQueueSettings> {
  const whole = (name: keyof TaskQueueSettings, value: number | undefined, fallback: number, least: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < least) {
      throw new InvalidArgumentError(`${field}.${name} must be a whole number, at least ${least} (got ${String(value)})`);
    }
    return value;
  };
  return {
    concurrency: whole('concurrency', settings.concurrency, DEFAULT_QUEUE_CONCURRENCY, 1),
    lockDurationMs: whole('lockDurationMs', settings.lockDurationMs, DEFAULT_LOCK_MS, 100),
    stalledIntervalMs: whole('stalledIntervalMs', settings.stalledIntervalMs, DEFAULT_STALLED_INTERVAL_MS, 100),
    attempts: whole('attempts', settings.attempts, DEFAULT_ATTEMPTS, 1),
  };
}

type Queue = import('bullmq').Queue;
type Worker = import('bullmq').Worker;

export class RedisTaskQueue<T extends object> {
  private worker: Worker | null = null;
  /** Aborted when a drain's window has passed: the processors still running hand their jobs on. */
  private handOn = new AbortController();
  /** The drain under way; null when none is. */
  private draining: Promise<void> | null = null;
  /** The jobs running here, by id: each settles once BullMQ holds its outcome, or it is back in the queue. */
  private readonly running = new Map<string, Promise<void>>();
  /** Settles a job of `running` (and forgets it). */
  private readonly recorders = new Map<string, () => void>();

  private constructor(
    private readonly queue: Queue,
    private readonly target: RedisTarget,
    private readonly settings: Required<TaskQueueSettings>,
  ) {}

  /** Opens the producer side; rejects with a RedisStoreError when Redis cannot be reached. */
  static async open<T extends object>(target: RedisTarget, settings: TaskQueueSettings = {}): Promise<RedisTaskQueue<T>> {
    const checked = checkQueueSettings(settings, 'taskQueue');
    const { Queue } = await loadBullMq();
    const queue = new Queue(QUEUE_NAME, {
      connection: connectionOptions(target, false),
      prefix: bullPrefix(target),
    });
    queue.on('error', () => undefined);
    try {
      await queue.waitUntilReady();
    } catch (error) {
      await queue.close().catch(() => undefined);
      throw new RedisStoreError(
        'redis_unreachable',
        `cannot reach Redis at ${target.location} for the task queue`,
        target.location,
        {
          cause: error,
        },
      );
    }
    return new RedisTaskQueue<T>(queue, target, checked);
  }

  get concurrency(): number {
    return this.settings.concurrency;
  }

  /**
   * Adds a job; resolves once Redis holds it (with `appendfsync always`, on disk). `id` names
   * the job: adding one with the id of a job still queued or running adds nothing.
   */
  async enqueue(id: string, data: T, attempts: number): Promise<void> {
    try {
      await this.queue.add('run', data, {
        jobId: id,
        attempts: Math.min(attempts, this.settings.attempts),
        backoff: { type: 'fixed', delay: 200 },
        removeOnComplete: true,
        removeOnFail: { count: 1000 },
      });
    } catch (error) {
      throw redisFailure(error, this.target.location);
    }
  }

  /**
   * Where the job `id` stands: `queued` (waiting for a worker, or for its retry), `taken` (a worker
   * holds it, or held it: a dead replica's job stays active until its lock runs out and the stall
   * check puts it back), or `none` (finished or unknown). A subscriber waiting for its task judges
   * the wait by this, as there is no runner to watch.
   */
  async jobState(id: string): Promise<JobState> {
    try {
      const state = await this.queue.getJobState(id);
      if (state === 'unknown' || state === 'completed' || state === 'failed') return 'none';
      return state === 'active' ? 'taken' : 'queued';
    } catch (error) {
      throw redisFailure(error, this.target.location);
    }
  }

  /**
   * The longest a job can stay taken after the replica holding it died: its lock runs out, then
   * a stall check (two, as one may have just missed it) puts it back in the queue.
   */
  get stallBoundMs(): number {
    return this.settings.lockDurationMs + 2 * this.settings.stalledIntervalMs;
  }

  /** Starts this replica's workers on `process`; once. */
  async work(process: JobProcessor<T>): Promise<void> {
    if (this.worker) return;
    const { Worker, WaitingError } = await loadBullMq();
    const handOn = (this.handOn = new AbortController());
    this.draining = null;
    const worker = new Worker<T>(
      QUEUE_NAME,
      async (job, token) => {
        const start = job.attemptsStarted;
        // Each start counts in attemptsStarted, each throw in attemptsMade: the starts that did neither
        // were cut off (a stall, or a stopping replica, put the job back without a failure being recorded).
        const abandoned = Math.max(0, start - 1 - job.attemptsMade);
        const id = job.id ?? '';
        this.running.set(id, new Promise<void>((resolve) => this.recorders.set(id, resolve)));
        const end = await process(job.data, { start, abandoned }, handOn.signal);
        // Settled here: the worker records it, and says so (completed, failed) to a drain waiting.
        if (end !== 'again' || token === undefined) return;
        // Back to the waiting list, at its head, releasing our lock (checked against our token),
        // with no attempt recorded: the next start sees this one as abandoned, as after a lost
        // lock. moveToWait rather than moveToDelayed: a delayed job waits in another set until it
        // is promoted, while the point is that another replica starts it now.
        await job.moveToWait(token);
        this.recorded(id);
        // Tells the worker the job has been moved already, so it neither completes nor fails it.
        throw new WaitingError();
      },
      {
        connection: connectionOptions(this.target, true),
        prefix: bullPrefix(this.target),
        concurrency: this.settings.concurrency,
        lockDuration: this.settings.lockDurationMs,
        stalledInterval: this.settings.stalledIntervalMs,
        // The consumer bounds reruns itself (it sees `abandoned`); BullMQ's limit would fail a
        // job behind its back, leaving the task it runs unfinished for ever.
        maxStalledCount: Number.MAX_SAFE_INTEGER,
        drainDelay: 1,
      },
    );
    // Losing Redis is reported by the commands that fail; the worker reconnects by itself.
    worker.on('error', () => undefined);
    // BullMQ tells once it has written a job's outcome: a drain waits for that, not just the processor.
    worker.on('completed', (job) => this.recorded(job.id ?? ''));
    worker.on('failed', (job) => this.recorded(job?.id ?? ''));
    this.worker = worker;
    await worker.waitUntilReady();
  }

  /**
   * A graceful stop of this replica's workers: they take no new job; the jobs running here get
   * `windowMs` to finish, then their processors are told to hand them on, and are waited for (a
   * bounded while) so that each job is back in the queue or settled when this resolves. Once.
   */
  drain(windowMs: number): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    this.draining ??= (async () => {
      const client = await settledWithin(worker.getBackend().client, CLOSE_BOUND_MS);
      if (client?.status !== 'ready') {
        // Redis is away: nothing could be recorded or put back, so nothing is waited for. The
        // running jobs are left to their locks, as for a replica that died; close() cuts the
        // connections.
        return;
      }
      // No new job: the worker pauses without waiting for its running jobs, and the blocking wait
      // for the next one, already under way, is cut (left alone it could still take a job, even
      // one handed on below). Not BullMQ's orderly close(): that one waits for Redis when Redis
      // goes away meanwhile, and leaves a connection reconnecting; close() below forces it.
      await worker.pause(true).catch(() => undefined);
      await worker
        .getBackend()
        .disconnectBlocking(false)
        .catch(() => undefined);
      // Until none is left: each settles once BullMQ has its outcome, or it is back in the queue.
      const idle = (async () => {
        while (this.running.size > 0) await Promise.all([...this.running.values()]);
      })();
      if (!(await within(idle, windowMs))) {
        this.handOn.abort();
        await within(idle, CLOSE_BOUND_MS);
      }
    })();
    return this.draining;
  }

  private recorded(id: string): void {
    const settle = this.recorders.get(id);
    this.recorders.delete(id);
    this.running.delete(id);
    settle?.();
  }

  /**
   * Stops taking jobs and closes the connections. Jobs still running here without a drain first
   * are not waited for: their lock runs out and another replica's stalled-job check hands them
   * on, as for a replica that died.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    const closing = Promise.all([worker?.close(true), this.queue.close()].map((step) => step?.catch(() => undefined)));
    // With Redis gone, BullMQ's close can return (or wait) while its connections keep
    // reconnecting, which keeps the process alive: after it, or after a bound, they are cut.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_BOUND_MS);
    });
    await Promise.race([closing, bound]);
    clearTimeout(timer);
    await Promise.all([worker?.disconnect(), this.queue.disconnect()].map((step) => step?.catch(() => undefined)));
  }
}

/** How long close() waits for BullMQ to close its connections before cutting them (and drain() for the jobs it hands on). */
const CLOSE_BOUND_MS = 2_000;

/** What `value` resolves to within `ms`; undefined when it does not (or rejects). */
async function settledWithin<V>(value: Promise<V>, ms: number): Promise<V | undefined> {
  let result: V | undefined;
  await within(
    value.then(
      (resolved) => {
        result = resolved;
      },
      () => undefined,
    ),
    ms,
  );
  return result;
}

/** Whether `done` resolved within `ms`. */
async function within(done: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const inTime = await Promise.race([done.then(() => true as const), bound]);
  clearTimeout(timer);
  return inTime;
}

/** BullMQ's keys sit under the store's prefix: `parley:queue:a2a-tasks:...`. */
function bullPrefix(target: RedisTarget): string {
  return `${target.prefix}queue`;
}

/**
 * The producer fails fast while Redis is away (no offline queue, a command timeout), as the other
 * stores do; a worker's connections block, so BullMQ needs them to retry without limit.
 */
function connectionOptions(target: RedisTarget, worker: boolean): Record<string, unknown> {
  const reconnect = (times: number) => Math.min(50 * times, 1000);
  return worker
    ? { url: target.url, maxRetriesPerRequest: null, retryStrategy: reconnect }
    : {
        url: target.url,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: 2000,
        connectTimeout: 2000,
        retryStrategy: reconnect,
      };
}
