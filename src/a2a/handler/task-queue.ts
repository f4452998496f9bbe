// Tasks nobody waits for (SendMessage with `returnImmediately`), run from a queue shared by the
// replicas instead of in the process that accepted them, so they outlive that process. The
// request handler enqueues the task as the index holds it at acceptance, with the caller's scope
// and principal; a worker in any replica runs it here: it reads the index first (a task canceled
// while it waited, or already finished, is left as it is), runs the task on its engine, and writes
// the outcome to the index, where GetTask and ListTasks on every replica read it.
//
// A start whose replica stopped before an outcome (the queue reports it as `abandoned`) is run
// again from the accepted record when the handler is declared safe to rerun (`rerunnable`),
// at most `attempts` starts in all, else the task ends `failed`, saying the replica running it
// stopped. A rerunnable handler that throws is tried again the same way; the last try's outcome
// stands, so a task that always throws ends `failed` after `attempts` tries and never holds a
// worker longer than its runs.
//
// A started task is recorded `working` in the index, so every replica shows it running. When this
// replica stops gracefully, a task still running at the end of the drain window is handed on at
// once rather than left to the lock: its run here is canceled, and a rerunnable task goes back to
// the queue for another replica (a start like any cut-off one), any other ends `failed` as when its
// replica dies.
import type { SecurityContext, Task as NativeTask } from '../../../generated/types/index.js';
import { newId } from '../../core/ids.js';
import { isTerminal } from '../../core/task-state.js';
import { transition } from '../../core/task-lifecycle.js';
import { NO_PARAMS, type RequestContext } from '../../transport/endpoint.js';
import type { JobAttempt, JobState } from '../../stores/redis/redis-task-queue.js';
import type { IndexedTask, TaskIndex, TaskScope } from './task-index.js';
import type { TaskRunner } from './task-runner.js';

/** What a queued job carries: enough to find the task in the index and run it as its caller. */
export interface QueuedRun {
  readonly id: string;
  readonly tenant: string;
  readonly owner: string | null;
  /** The caller's security context without its credential (`token` is empty): a job is stored in Redis. */
  readonly security: SecurityContext | null;
  /** The task as accepted: every start begins from it. */
  readonly task: NativeTask;
}

/** The queue as the request handler uses it (stores/redis/redis-task-queue.ts fills it). */
export interface TaskQueue {
  enqueue(id: string, run: QueuedRun, attempts: number): Promise<void>;
  /** Whether the job is queued, taken by a worker, or finished (or unknown). */
  jobState(id: string): Promise<JobState>;
  /** The longest a job stays taken after the replica holding it died, before it is queued again. */
  readonly stallBoundMs: number;
  /** `handOn` aborts when this replica stops and its tasks must go; `again` puts the job back. */
  work(process: (run: QueuedRun, attempt: JobAttempt, handOn: AbortSignal) => Promise<'again' | undefined>): Promise<void>;
  /** Takes no more jobs; lets the running ones finish within `windowMs`, then hands them on. */
  drain(windowMs: number): Promise<void>;
}

/** A task a subscriber waits for, as the wait check asks after it. */
export interface WaitedTask {
  readonly scope: TaskScope;
  readonly id: string;
}

/** Whether a waited task still waits (see QueuedRuns.waiting()), with its entry as read for it. */
export interface TaskWait {
  readonly entry: IndexedTask | undefined;
  readonly waiting: JobState | false;
}

export interface QueuedRunOptions {
  readonly queue: TaskQueue;
  /** The handler may run a task again after a start that was cut off or threw. Default false. */
  readonly rerunnable?: boolean;
  /** Most starts of one task when `rerunnable`. Default 3. */
  readonly attempts?: number;
}

/** The reason a task gets when the replica running it stopped and it may not run again. */
const REPLICA_STOPPED = 'the replica running it stopped';

/** What the handler hears of a queued run on this replica. */
export interface QueuedRunObserver {
  /**
   * A worker here took the entry's task and is about to run (or fail) it; awaited before either.
   * `resumed`: an earlier start was cut off, so subscribers of that start may be following.
   */
  readonly started: (entry: IndexedTask, resumed: boolean) => Promise<void>;
  /** The entry's task has begun running here (it is `working`), and the index knows it. */
  readonly working: (entry: IndexedTask) => void;
  /** The entry has just settled, before the index learns it (for subscribers and webhooks). */
  readonly settled: (entry: IndexedTask) => void;
  /**
   * The entry's run here was cut off, or threw and will be tried again, and its job goes back to
   * the queue for any replica: its subscribers should wait for the rerun. Awaited before the job
   * is moved.
   */
  readonly handedBack: (entry: IndexedTask) => Promise<void>;
}

export class QueuedRuns {
  private readonly queue: TaskQueue;
  private readonly rerunnable: boolean;
  private readonly attempts: number;

  constructor(
    options: QueuedRunOptions,
    private readonly index: TaskIndex,
    private readonly engine: TaskRunner,
    private readonly observer: QueuedRunObserver,
  ) {
    this.queue = options.queue;
    this.rerunnable = options.rerunnable ?? false;
    this.attempts = this.rerunnable ? (options.attempts ?? 3) : 1;
  }

  /** Queues the entry's task, as the index holds it now. */
  enqueue(entry: IndexedTask, context: RequestContext): Promise<void> {
    const security = context.security ? { ...context.security, token: '' } : null;
    const run: QueuedRun = { id: entry.id, tenant: entry.tenant, owner: entry.owner, security, task: entry.task };
    return this.queue.enqueue(jobIdOf(entry), run, this.attempts);
  }

  /**
   * Whether the entry's task waits for a worker, judged by its job rather than the index alone:
   * `queued` when the job waits in the queue (never started, or handed back by a stopping replica
   * while the index still says working), `taken` when a worker holds the job; false when the job
   * is gone or the task settled. A task the index shows accepted but with no job (its replica died
   * before it could queue it) waits for nothing. A `taken` job of a task the index shows working
   * may be a dead replica's, held until its lock runs out (`stallBoundMs`): the caller bounds that.
   */
  async waiting(entry: IndexedTask): Promise<JobState | false> {
    return waitingOf(entry, pending(entry) ? await this.queue.jobState(jobIdOf(entry)) : 'none');
  }

  /**
   * waiting() for many tasks at once, with each one's entry as the index has it now: the entries
   * in one read where the index can (`getMany`), then the pending ones' jobs, asked together.
   */
  async waitingMany(tasks: readonly WaitedTask[]): Promise<readonly TaskWait[]> {
    const entries = this.index.getMany
      ? await this.index.getMany(tasks)
      : await Promise.all(tasks.map((task) => this.index.get(task.scope, task.id)));
    return Promise.all(entries.map(async (entry) => ({ entry, waiting: entry ? await this.waiting(entry) : (false as const) })));
  }

  /** See `TaskQueue.stallBoundMs`. */
  get stallBoundMs(): number {
    return this.queue.stallBoundMs;
  }

  /** Starts this replica's workers. */
  start(): Promise<void> {
    return this.queue.work((run, attempt, handOn) => this.process(run, attempt, handOn));
  }

  /** This replica is stopping: its tasks get `windowMs` to finish here, then are handed on. */
  drain(windowMs: number): Promise<void> {
    return this.queue.drain(windowMs);
  }

  private async process(run: QueuedRun, attempt: JobAttempt, handOn: AbortSignal): Promise<'again' | undefined> {
    const scope: TaskScope = { tenant: run.tenant, principal: run.owner };
    const entry = await this.index.get(scope, run.id);
    // Canceled while it waited, or settled by an earlier start: nothing left to do.
    if (!entry?.active || isTerminal(entry.task.state ?? 'submitted')) return undefined;
    // Before any outcome, even the failure below: a subscriber already waiting for the task
    // (it subscribed while the task was queued) gets every event from here to its end.
    await this.observer.started(entry, attempt.abandoned > 0);
    if (attempt.abandoned > 0 && (!this.rerunnable || attempt.start > this.attempts)) {
      await this.stopped(entry, attempt.abandoned, attempt.start - 1);
      return undefined;
    }
    const last = attempt.start >= this.attempts;
    entry.task = structuredClone(run.task);
    const running = this.engine.submit(entry.task, queuedContext(run));
    // A cancel that came between the read above and the start found no replica running the task
    // and settled the index alone: honour it here.
    const now = await this.index.get(scope, run.id).catch(() => undefined);
    if (now && isTerminal(now.task.state ?? 'submitted')) {
      this.cancelRun(run, lastReason(now.task));
    } else if (entry.task.state === 'working') {
      // Every replica's GetTask shows it running from here. Written before the run's outcome can
      // be (that write waits for this one), and after the read above: a cancel from now on
      // reaches the run here through the cancel channel, so this write overwrites no cancel.
      await this.index.update(entry, true).catch(() => undefined);
      // A handler that has finished meanwhile says all there is with its end.
      if (entry.task.state === 'working') this.observer.working(entry);
    }
    // The drain window has passed: the run here stops, and the task goes on elsewhere.
    const stop = () => this.cancelRun(run, REPLICA_STOPPED);
    handOn.addEventListener('abort', stop, { once: true });
    if (handOn.aborted) stop();
    const finished = (await running).value as NativeTask;
    handOn.removeEventListener('abort', stop);
    if (handOn.aborted && finished.state === 'canceled' && lastReason(finished) === REPLICA_STOPPED) {
      return this.handedOn(entry, finished, attempt);
    }
    if (!last && threw(finished)) {
      // Not recorded: the next start begins from the accepted record again, on whichever replica
      // takes the job, so its subscribers wait for that start as for a task handed back (else
      // they would follow this replica, alive but writing nothing more, for ever).
      await this.observer.handedBack(entry).catch(() => undefined);
      throw new Error(`start ${attempt.start} of task ${run.id} failed: ${lastReason(finished)}`);
    }
    entry.task = finished;
    await this.record(entry);
    return undefined;
  }

  private cancelRun(run: QueuedRun, reason: string): void {
    try {
      this.engine.cancel({ id: run.id, metadata: { reason } }, run.owner);
    } catch {
      // It finished already.
    }
  }

  /**
   * The run here was stopped for the replica's stop: a rerunnable task with starts left goes back
   * to the queue (the index keeps it `working`; the next start begins from the accepted record),
   * any other fails now, as it would once another replica found its lock run out.
   */
  private async handedOn(entry: IndexedTask, finished: NativeTask, attempt: JobAttempt): Promise<'again' | undefined> {
    if (this.rerunnable && attempt.start < this.attempts) {
      // Its subscribers (on any replica) are told to wait for the next worker rather than end.
      await this.observer.handedBack(entry).catch(() => undefined);
      return 'again';
    }
    // The cancel was this replica's way to end the run, not a client's: the task fails instead.
    const history = finished.metadata?.state_history;
    if (history?.at(-1)?.state === 'canceled') history.pop();
    entry.task = finished;
    await this.stopped(entry, attempt.abandoned + 1, attempt.start);
    return undefined;
  }

  /** The task may not run again (or has run out of starts): it fails, saying why. */
  private stopped(entry: IndexedTask, abandoned: number, starts: number): Promise<void> {
    const reason = this.rerunnable ? `${REPLICA_STOPPED} (${abandoned} of ${starts} starts)` : REPLICA_STOPPED;
    const metadata = (entry.task.metadata ??= {});
    metadata.error = { name: 'ReplicaStoppedError', message: reason, code: 'replica_stopped' };
    transition(entry.task, 'failed', reason);
    return this.record(entry);
  }

  private async record(entry: IndexedTask): Promise<void> {
    entry.active = false;
    this.observer.settled(entry);
    // A write that fails while Redis is away is kept by the index and written when it is back.
    await this.index.update(entry).catch(() => undefined);
  }
}

/** Whether the entry's task may still wait for a worker: it is running, or about to. */
function pending(entry: IndexedTask): boolean {
  return entry.active && !isTerminal(entry.task.state ?? 'submitted');
}

/** See QueuedRuns.waiting(): the entry's wait, given its job's state. */
function waitingOf(entry: IndexedTask, job: JobState): JobState | false {
  return !pending(entry) || job === 'none' ? false : job;
}

/** One job per run of the task: a follow-up message runs it again under a new job. */
function jobIdOf(entry: IndexedTask): string {
  return `${entry.id}.${entry.task.messages?.length ?? 0}`;
}

/** The request a queued run sees: the caller's principal, no credential, nobody to go away. */
function queuedContext(run: QueuedRun): RequestContext {
  return {
    requestId: newId(),
    idempotencyKey: null,
    params: NO_PARAMS,
    security: run.security,
    signal: new AbortController().signal,
    transport: 'http',
    url: '',
  };
}

/** The engine marks a handler that threw with `metadata.error` on a failed task. */
function threw(task: NativeTask): boolean {
  return task.state === 'failed' && task.metadata?.error !== undefined;
}

function lastReason(task: NativeTask): string {
  return task.metadata?.state_history?.at(-1)?.reason ?? String(task.state);
}
