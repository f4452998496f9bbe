// The A2A 1.0 request handler: the A2A operations, one method per A2A method, whatever the
// binding that carries them. Each takes the decoded protobuf-es request message and parley's
// RequestContext and answers the ProtoJSON object of the response (the two streaming methods:
// an AsyncIterable of StreamResponse objects, checked at the first read); a refusal is thrown as an
// A2aError (or, from below: the task index, the engine, a store, as an error failures.ts turns
// into one), which each binding maps to its own shape. Tasks run on the agent's own engine and
// are remembered in the task index, scoped to the request's tenant and principal. Bindings live
// beside this folder (jsonrpc/, and later rest/ and grpc/); they decode, check the version and
// call these methods, and nothing here knows which one called.
import type { JsonObject, MessageShape } from '@bufbuild/protobuf';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import type { Task as NativeTask, TaskState as NativeState, StreamEvent } from '../../../generated/types/index.js';
import {
  Role,
  TaskState,
  type CancelTaskRequestSchema,
  type DeleteTaskPushNotificationConfigRequestSchema,
  type GetExtendedAgentCardRequestSchema,
  type GetTaskPushNotificationConfigRequestSchema,
  type GetTaskRequestSchema,
  type ListTaskPushNotificationConfigsRequestSchema,
  type ListTasksRequestSchema,
  type SendMessageRequestSchema,
  type SubscribeToTaskRequestSchema,
  type TaskPushNotificationConfig,
  type TaskPushNotificationConfigSchema,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { newId } from '../../core/ids.js';
import { isTerminal } from '../../core/task-state.js';
import { transition } from '../../core/task-lifecycle.js';
import type { RequestContext } from '../../transport/endpoint.js';
import { EndpointError } from '../../transport/endpoint-error.js';
import { MemoryTaskIndex } from '../../stores/memory/memory-task-index.js';
import { statusTime } from '../../stores/task-entries.js';
import { A2aError, invalidParams } from '../errors/a2a-error.js';
import { messageFromA2a } from '../model/messages.js';
import { stateFromA2a } from '../model/task-states.js';
import { artifactResponses, closesStream, lastStatusResponse, StreamResponses, taskResponse } from '../model/stream-responses.js';
import { INBOUND_KEY, taskToA2aJson, type InboundRecord } from '../model/tasks.js';
import type { PushNotifications } from '../push/push-notifications.js';
import { runEndChange, statusChange } from '../push/task-changes.js';
import { PageTokens } from './page-token.js';
import type { IndexedTask, TaskIndex, TaskScope } from './task-index.js';
import type { TaskRunner } from './task-runner.js';
import { QueuedRuns, type QueuedRunOptions } from './task-queue.js';
import { WaitedTasks } from './waited-tasks.js';
import { TaskWatchers } from './task-watchers.js';
import { isFeedPosition, TaskFeedError, type TaskFeed } from '../../stores/task-feed.js';
import { atPosition } from './event-positions.js';

export interface A2aHandlerOptions {
  /** Runs the tasks SendMessage submits and cancels them; the agent server hands in its engine. */
  readonly engine: TaskRunner;
  /** Where tasks are remembered; default an in-memory index (1 hour, 1,024 tasks). */
  readonly index?: TaskIndex;
  /** Signs ListTasks page tokens; replicas sharing an index share it. Default: made per process. */
  readonly pageTokenKey?: Buffer;
  /**
   * Cancels a task another replica is running (replicas sharing an index): the canceled task,
   * or undefined when no replica runs it.
   */
  readonly cancelElsewhere?: (id: string, principal: string | null, metadata: JsonObject) => Promise<NativeTask | undefined>;
  /**
   * The extended card GetExtendedAgentCard answers an authenticated caller (card/extended-card.ts);
   * without it the method is unsupported, as the public card says (capabilities.extendedAgentCard).
   */
  readonly extendedCard?: () => JsonObject;
  /**
   * Makes the push notifications (push/push-notifications.ts) over the handler's task index:
   * the config methods and delivery of each task's changes. Without them the config methods are
   * PushNotificationNotSupported, as the card says (capabilities.pushNotifications).
   */
  readonly push?: (index: TaskIndex) => PushNotifications | undefined;
  /**
   * A queue shared by the replicas (task-queue.ts): a SendMessage with `returnImmediately` is
   * queued there and run by a worker in any replica, instead of in this process.
   */
  readonly queue?: QueuedRunOptions;
  /**
   * The task events shared between replicas (a Redis store): every event of a task run here is
   * published to it, and SubscribeToTask follows it, so a subscriber on any replica streams a
   * task running on any other and can resume. Without it, subscribers see only this process's tasks.
   */
  readonly feed?: TaskFeed;
}

/** One event of a stream (SendStreamingMessage, SubscribeToTask): a StreamResponse in ProtoJSON. */
export type StreamResponseJson = JsonObject;

/** ListTasks page size when the request sets none, and the largest it may ask for. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

export class A2aRequestHandler {
  readonly index: TaskIndex;
  private readonly engine: TaskRunner;
  private readonly tokens: PageTokens;
  private readonly cancelElsewhere: A2aHandlerOptions['cancelElsewhere'];
  private readonly extendedCard: A2aHandlerOptions['extendedCard'];
  private readonly push: PushNotifications | null;
  private readonly watchers = new TaskWatchers();
  private readonly queued: QueuedRuns | null;
  /** The tasks this replica's subscribers wait for in the queue; null without a queue. */
  private readonly waited: WaitedTasks | null;
  private readonly feed: TaskFeed | undefined;

  constructor(options: A2aHandlerOptions) {
    this.engine = options.engine;
    this.tokens = new PageTokens(options.pageTokenKey);
    this.cancelElsewhere = options.cancelElsewhere;
    this.extendedCard = options.extendedCard;
    this.feed = options.feed;
    this.index = options.index ?? new MemoryTaskIndex();
    this.push = options.push?.(this.index) ?? null;
    // A queued task settles on whichever replica ran it: its subscribers there and its webhooks
    // hear of its end (every artifact it holds, then its status: the run's start is unknown here).
    this.queued = options.queue
      ? new QueuedRuns(options.queue, this.index, this.engine, {
          // The feed learns the task runs on this replica, as for a run of its own.
          // A subscriber that came while the task was queued is watching it already.
          started: (entry, resumed) => this.feed?.beginQueued(entry.id, resumed) ?? Promise.resolve(),
          working: (entry) => {
            // Its subscribers (on any replica) see it start, as a stream would show it.
            if (this.feed?.watched(entry.id)) this.emit(entry.id, lastStatusResponse(entry.task, entry.contextId));
            // Its webhooks hear it is working, as for a run of this replica's own.
            this.push?.notify(entry, statusChange(entry.task, entry.contextId));
          },
          settled: (entry) => {
            this.publishSettled(entry);
            this.push?.notify(entry, runEndChange(entry.task, entry.contextId, 0));
          },
          // Its subscribers wait for the rerun elsewhere (which starts over from the accepted task).
          handedBack: (entry) => this.feed?.handBack(entry.id) ?? Promise.resolve(),
        })
      : null;
    this.waited = this.queued ? new WaitedTasks(this.queued) : null;
  }

  /** Starts this replica's share of the queue's workers (with a `queue`; nothing otherwise). */
  startQueueWorkers(): Promise<void> {
    return this.queued?.start() ?? Promise.resolve();
  }

  /**
   * This replica is stopping: its queue workers take no more tasks, and the queued tasks running
   * here get `windowMs` to finish before they are handed on (nothing to do without a `queue`).
   */
  drainQueue(windowMs: number): Promise<void> {
    return this.queued?.drain(windowMs) ?? Promise.resolve();
  }

  sendMessage(request: MessageShape<typeof SendMessageRequestSchema>, context: RequestContext): Promise<JsonObject> {
    // The same promise, no wrapper of its own: the hot path allocates nothing for the sharing.
    return this.accept(request, context, false) as Promise<JsonObject>;
  }

  /**
   * SendMessage's checks and its entry in the index; then the run and its answer, or (for
   * SendStreamingMessage, `streaming`) the entry, for the caller to run as a stream.
   */
  private async accept(
    request: MessageShape<typeof SendMessageRequestSchema>,
    context: RequestContext,
    streaming: boolean,
  ): Promise<JsonObject | IndexedTask> {
    const message = request.message;
    if (!message) throw invalidParams('/message', 'is required');
    if (!message.messageId) throw invalidParams('/message/messageId', 'is required');
    if (message.role === Role.UNSPECIFIED) throw invalidParams('/message/role', 'must be ROLE_USER or ROLE_AGENT');
    if (message.parts.length === 0) throw invalidParams('/message/parts', 'must hold at least one part');
    const configuration = request.configuration;
    const historyLength = checkHistoryLength(configuration?.historyLength, '/configuration/historyLength');
    const native = messageFromA2a(message, '/message');
    const scope = scopeOf(request.tenant, context);
    const pushConfig = configuration?.taskPushNotificationConfig;
    let entry: IndexedTask;
    if (message.taskId) {
      const found = await this.index.get(scope, message.taskId);
      if (!found) throw new A2aError('taskNotFound', `task ${message.taskId} not found`);
      if (message.contextId && message.contextId !== found.contextId) {
        throw invalidParams('/message/contextId', `does not match the context of task ${found.id}`);
      }
      if (isTerminal(found.task.state ?? 'submitted')) {
        throw new A2aError('unsupportedOperation', `task ${found.id} is ${found.task.state} and takes no more messages`);
      }
      if (found.active)
        throw new A2aError(
          'unsupportedOperation',
          `task ${found.id} is still working; send the next message once it asks for one`,
        );
      // Claimed before anything is awaited: a message that arrives meanwhile (the next one of
      // the same batch) finds the task working and is refused, rather than adding its message
      // to this run and then failing to start its own.
      found.active = true;
      // A webhook the message registers is checked and stored before the task changes.
      if (pushConfig) {
        try {
          await this.registerPush(pushConfig, scope, found.id);
        } catch (error) {
          found.active = false;
          throw error;
        }
      }
      entry = found;
      (entry.task.messages ??= []).push(native);
      await this.index.update(entry);
    } else {
      const contextId = message.contextId || newId();
      const inbound: InboundRecord = { context_id: contextId, tenant: scope.tenant, message_id: message.messageId };
      const task: NativeTask = { id: newId(), messages: [native], metadata: { [INBOUND_KEY]: inbound } };
      // Stored before the task is: a refused config creates nothing; a task that then cannot be
      // indexed leaves a config nobody can reach, dropped with its expiry.
      if (pushConfig) await this.registerPush(pushConfig, scope, task.id);
      entry = { id: task.id, contextId, tenant: scope.tenant, owner: scope.principal, task, active: true };
      await this.index.add(entry);
    }
    if (streaming) return entry;
    if (configuration?.returnImmediately && this.queued) {
      await this.enqueue(entry, context);
      return { task: taskToA2aJson(entry.task, { contextId: entry.contextId, historyLength, includeArtifacts: true }) };
    }
    const run = this.run(entry, context);
    // Answered at once: a run that fails later (the engine refused it, the index is out of
    // reach) has no caller left to tell, and must not end the process as an unhandled rejection.
    if (configuration?.returnImmediately) run.catch(() => undefined);
    else await run;
    return { task: taskToA2aJson(entry.task, { contextId: entry.contextId, historyLength, includeArtifacts: true }) };
  }

  /** The webhook config a SendMessage carries, for the message's task. */
  private async registerPush(config: TaskPushNotificationConfig, scope: TaskScope, taskId: string): Promise<void> {
    if (!this.push) throw pushNotSupported();
    if (config.taskId && config.taskId !== taskId) {
      throw invalidParams('/configuration/taskPushNotificationConfig/taskId', "must be empty or the message's task");
    }
    await this.push.put(this.push.fromMessage(config, scope, taskId));
  }

  /**
   * Hands the entry to the shared queue. A task that cannot be queued (Redis went away) will
   * never run: it is settled `failed` (the index writes it once Redis is back) and the caller
   * gets the error, which says to retry.
   */
  private async enqueue(entry: IndexedTask, context: RequestContext): Promise<void> {
    try {
      await this.queued!.enqueue(entry, context);
    } catch (error) {
      transition(entry.task, 'failed', 'the task could not be queued');
      entry.active = false;
      await this.index.update(entry).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A task run without a stream still reaches its subscribers (here, or through the feed on any
   * replica): its artifacts and last status. Unwatched, the feed just forgets it.
   */
  private publishSettled(entry: IndexedTask): void {
    const watched = this.feed ? this.feed.watched(entry.id) : this.watchers.size > 0 && this.watchers.has(entry.id);
    if (watched) {
      for (const response of artifactResponses(entry.task, entry.contextId)) this.emit(entry.id, response);
      this.emit(entry.id, lastStatusResponse(entry.task, entry.contextId));
    } else {
      this.feed?.end(entry.id);
    }
  }

  /**
   * Runs the entry's task on the engine; the index learns when it settles. Push delivery is
   * told when the run starts working and when it ends (its new artifacts, then its status).
   */
  private run(entry: IndexedTask, context: RequestContext): Promise<void> {
    // The feed learns the task runs here, so a subscriber elsewhere can ask for its events.
    this.feed?.begin(entry.id);
    const push = this.push;
    const artifactsBefore = entry.task.artifacts?.length ?? 0;
    const running = this.engine.submit(entry.task, context);
    // A handler that finished at once has left `working` already: its end says all there is.
    let progress: Promise<void> = Promise.resolve();
    if (entry.task.state === 'working') {
      progress = this.recordProgress(entry, progress);
      push?.notify(entry, statusChange(entry.task, entry.contextId));
    }
    const settle = async () => {
      entry.active = false;
      this.publishSettled(entry);
      await progress;
      return this.index.update(entry);
    };
    return running.then(
      async (finished) => {
        entry.task = finished.value as NativeTask;
        await progress;
        const change = runEndChange(entry.task, entry.contextId, artifactsBefore);
        if (!push || !this.index.settle) {
          push?.notify(entry, change);
          return settle();
        }
        // An index that reaches the push configs reads them as it records the end: delivery
        // then needs no read of its own (one round trip less on Redis).
        entry.active = false;
        this.publishSettled(entry);
        return this.index.settle(entry, push.store).then(
          (configs) => push.notify(entry, change, configs ?? undefined),
          (error: unknown) => {
            push.notify(entry, change);
            throw error;
          },
        );
      },
      async (error: unknown) => {
        // The engine refused the run itself (it was already running): the task is unchanged.
        await settle();
        throw error;
      },
    );
  }

  async getTask(request: MessageShape<typeof GetTaskRequestSchema>, context: RequestContext): Promise<JsonObject> {
    if (!request.id) throw invalidParams('/id', 'is required');
    const historyLength = checkHistoryLength(request.historyLength, '/historyLength');
    const entry = await this.index.get(scopeOf(request.tenant, context), request.id);
    if (!entry) throw new A2aError('taskNotFound', `task ${request.id} not found`);
    return taskToA2aJson(entry.task, { contextId: entry.contextId, historyLength, includeArtifacts: true });
  }

  async listTasks(request: MessageShape<typeof ListTasksRequestSchema>, context: RequestContext): Promise<JsonObject> {
    // Unset is the default; a 0 written out is below A2A's minimum of 1, as the official SDK holds too.
    const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
    if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw invalidParams('/pageSize', `must be from 1 to ${MAX_PAGE_SIZE}`);
    const historyLength = checkHistoryLength(request.historyLength, '/historyLength');
    const after = request.pageToken ? this.tokens.decode(request.pageToken) : undefined;
    let state: NativeState | undefined;
    if (request.status !== TaskState.UNSPECIFIED) {
      state = stateFromA2a(request.status);
      // States parley never gives its own tasks: nothing can match them.
      if (request.status === TaskState.REJECTED || request.status === TaskState.AUTH_REQUIRED)
        state = 'no-such-state' as NativeState;
    }
    const statusAfter = request.statusTimestampAfter ? Number(timestampMs(request.statusTimestampAfter)) : undefined;
    const page = await this.index.list(scopeOf(request.tenant, context), {
      contextId: request.contextId || undefined,
      state,
      statusAfter,
      after,
      limit: pageSize,
    });
    const includeArtifacts = request.includeArtifacts ?? false;
    const tasks = page.tasks.map((entry) =>
      taskToA2aJson(entry.task, { contextId: entry.contextId, historyLength, includeArtifacts }),
    );
    const last = page.tasks.at(-1);
    const nextPageToken = page.more && last ? this.tokens.encode({ time: statusTime(last.task), id: last.id }) : '';
    return { tasks, nextPageToken, pageSize, totalSize: page.total };
  }

  async cancelTask(request: MessageShape<typeof CancelTaskRequestSchema>, context: RequestContext): Promise<JsonObject> {
    if (!request.id) throw invalidParams('/id', 'is required');
    const scope = scopeOf(request.tenant, context);
    const entry = await this.index.get(scope, request.id);
    if (!entry) throw new A2aError('taskNotFound', `task ${request.id} not found`);
    if (isTerminal(entry.task.state ?? 'submitted')) {
      throw new A2aError('taskNotCancelable', `task ${entry.id} is already ${entry.task.state}`);
    }
    const metadata: JsonObject = { ...request.metadata };
    const reason = typeof metadata.reason === 'string' && metadata.reason ? metadata.reason : 'canceled by the A2A client';
    let answer = entry.task;
    try {
      const canceled = this.engine.cancel({ id: entry.id, metadata: { ...metadata, reason } }, scope.principal);
      // An active run is canceled in place (its settling updates the index); a task waiting for
      // input comes back as a new record.
      if (!entry.active) entry.task = canceled;
      answer = canceled;
    } catch (error) {
      if (!(error instanceof EndpointError && error.code === 'not_found')) throw error;
      // Running on another replica: that one stops it, and its settling updates the index.
      const elsewhere = entry.active && this.cancelElsewhere;
      const remote = elsewhere ? await elsewhere(entry.id, scope.principal, { ...metadata, reason }) : undefined;
      if (remote) return taskToA2aJson(remote, { contextId: entry.contextId, includeArtifacts: true });
      // The engine no longer remembers a task that waited for input (or, with replicas, no
      // replica runs the task any more, its own having stopped): cancel the indexed record.
      transition(entry.task, 'canceled', reason);
      if (elsewhere) {
        entry.active = false;
        // A subscriber waiting for it in the queue ends with this status (no run will tell it).
        await this.feed?.settleQueued(entry.id, lastStatusResponse(entry.task, entry.contextId)).catch(() => undefined);
      }
      answer = entry.task;
    }
    if (!entry.active) {
      await this.index.update(entry);
      // An active run tells of its cancel when it settles; this one had no run to do so.
      this.push?.notify(entry, statusChange(entry.task, entry.contextId));
    }
    return taskToA2aJson(answer, { contextId: entry.contextId, includeArtifacts: true });
  }

  /**
   * SendMessage as a stream: the task, then its status updates, artifacts and model text as
   * they happen, then its last status (completed, failed, canceled, or waiting for input),
   * after which the stream ends. Its checks are SendMessage's, made at the first read, so a
   * binding can still answer a refusal as a plain error. Stopping the reading cancels the task.
   */
  async *sendStreamingMessage(
    request: MessageShape<typeof SendMessageRequestSchema>,
    context: RequestContext,
  ): AsyncGenerator<StreamResponseJson, void, undefined> {
    const historyLength = checkHistoryLength(request.configuration?.historyLength, '/configuration/historyLength');
    const entry = (await this.accept(request, context, true)) as IndexedTask;
    this.feed?.begin(entry.id);
    const responses = new StreamResponses(entry.id, entry.contextId, historyLength);
    let settled = false;
    // The state the index last learned of, and its write (see recordProgress).
    let recorded = entry.task.state;
    let progress: Promise<void> = Promise.resolve();
    try {
      // for-await hands a stop (the caller left) on to the engine, which cancels the run.
      for await (const item of this.engine.stream(entry.task, context)) {
        const event = item.result as StreamEvent;
        if (event.type === 'task_completed') {
          entry.task = event.task;
          entry.active = false;
          settled = true;
          await progress;
          await this.index.update(entry);
          const last = lastStatusResponse(event.task, entry.contextId);
          this.emit(entry.id, last);
          this.push?.notify(entry, () => [last]);
          yield last;
          return;
        }
        if (event.type === 'task_status' && event.state !== recorded) {
          recorded = event.state;
          progress = this.recordProgress(entry, progress);
        }
        const response = responses.of(event);
        if (!response) continue;
        this.emit(entry.id, response);
        // A streamed task's webhooks hear what its stream does, event by event.
        this.push?.notify(entry, () => [response]);
        yield response;
      }
    } finally {
      if (!settled) {
        // The run failed or its caller left: the task is no longer running here.
        entry.active = false;
        // Its followers elsewhere get its status as it is and an end, rather than wait.
        this.feed?.publish(entry.id, lastStatusResponse(entry.task, entry.contextId), true);
        await progress;
        await this.index.update(entry).catch(() => undefined);
      }
    }
  }

  /**
   * A task running here changed state (it began working, or asks for input mid-stream): the
   * index learns it while the run goes on, without the run waiting for it, so a shared index
   * shows every replica's GetTask and ListTasks the task as it is. Written as the task stands when
   * its turn comes (the engine runs the entry's own task object): chained after the `previous`
   * such write, and the run's end is written after the last of them, so no older state lands
   * after a newer one. A failed write is left to the end's.
   */
  private recordProgress(entry: IndexedTask, previous: Promise<void>): Promise<void> {
    return previous.then(() => this.index.update(entry, true)).catch(() => undefined);
  }

  /** Hands a response of a task running here to its subscribers: through the feed, or in process. */
  private emit(taskId: string, response: JsonObject): void {
    if (this.feed) this.feed.publish(taskId, response, closesStream(response));
    else this.watchers.publish(taskId, response);
  }

  /**
   * A running task's events from another connection: the task as it is now, then what happens
   * to it, ending with its last status. A finished task has nothing more to stream
   * (UnsupportedOperation); one waiting for input gets the task and that status at once.
   */
  async *subscribeToTask(
    request: MessageShape<typeof SubscribeToTaskRequestSchema>,
    context: RequestContext,
    lastEventId?: string,
  ): AsyncGenerator<StreamResponseJson, void, undefined> {
    if (!request.id) throw invalidParams('/id', 'is required');
    if (this.feed) {
      yield* this.followFeed(this.feed, request, context, lastEventId);
      return;
    }
    // Watching before the task is read: nothing it does after the read is missed.
    const queue = this.watchers.watch(request.id);
    try {
      const entry = await this.index.get(scopeOf(request.tenant, context), request.id);
      if (!entry) throw new A2aError('taskNotFound', `task ${request.id} not found`);
      const state = entry.task.state ?? 'submitted';
      if (isTerminal(state))
        throw new A2aError('unsupportedOperation', `task ${entry.id} is already ${state}; there is nothing more to stream`);
      yield taskResponse(entry.task, entry.contextId);
      if (!entry.active) {
        yield lastStatusResponse(entry.task, entry.contextId);
        return;
      }
      for await (const response of queue) {
        yield response;
        if (closesStream(response)) return;
      }
    } finally {
      this.watchers.unwatch(request.id, queue);
    }
  }

  /**
   * SubscribeToTask through the shared feed. Without a position: the task from the index, then
   * the replica running it is asked to write its events (watch), and they are followed from the
   * position it answers; the snapshot goes first, marked with that position. With one
   * (`Last-Event-ID`): the events after it, no snapshot, for as long as the feed keeps them.
   */
  private async *followFeed(
    feed: TaskFeed,
    request: MessageShape<typeof SubscribeToTaskRequestSchema>,
    context: RequestContext,
    lastEventId: string | undefined,
  ): AsyncGenerator<StreamResponseJson, void, undefined> {
    const resume = lastEventId?.trim() || undefined;
    if (resume !== undefined && !isFeedPosition(resume)) {
      throw invalidParams('/Last-Event-ID', 'must be the id of an event this subscription sent (<number>-<number>)');
    }
    const scope = scopeOf(request.tenant, context);
    let entry = await this.index.get(scope, request.id);
    if (!entry) throw new A2aError('taskNotFound', `task ${request.id} not found`);
    let state = entry.task.state ?? 'submitted';
    let after = resume;
    const queue = this.queued;
    if (after === undefined) {
      if (isTerminal(state))
        throw new A2aError('unsupportedOperation', `task ${entry.id} is already ${state}; there is nothing more to stream`);
      let watching = entry.active ? await feed.watch(entry.id) : null;
      if (watching === null && entry.active) {
        // No replica runs it: it ended just now, it waits in the queue, or its replica is gone.
        entry = (await this.index.get(scope, request.id)) ?? entry;
        state = entry.task.state ?? 'submitted';
        if (queue && (await queue.waiting(entry))) {
          // Queued, no worker yet: the worker that takes it writes its events for us, and
          // until then the feed's reader asks the index and the queue whether it still waits.
          watching = await feed.watchQueued(entry.id);
          if (watching === null) throw new A2aError('internalError', `could not wait for task ${entry.id}; try again`);
        } else if (entry.active) {
          // A worker may have taken it between the first ask and the read: it answers now.
          watching = await feed.watch(entry.id);
          if (watching === null) {
            entry = (await this.index.get(scope, request.id)) ?? entry;
            state = entry.task.state ?? 'submitted';
            if (entry.active)
              throw new A2aError('internalError', `no replica runs task ${entry.id} any more; its state is as GetTask shows`, {
                reason: 'runner_gone',
              });
          }
        }
      }
      const snapshot = taskResponse(entry.task, entry.contextId);
      yield watching === null ? snapshot : atPosition(snapshot, watching);
      if (watching === null) {
        yield lastStatusResponse(entry.task, entry.contextId);
        return;
      }
      after = watching;
    }
    let sent = false;
    // Whether the task still waits in the queue: the feed's reader asks while no runner has
    // written (a new subscriber's queued mark, or a resume from one), instead of a heartbeat, and
    // when a runner's heartbeat goes away (its job may be back in the queue for a rerun).
    const release = this.waited?.follow(entry, scope);
    try {
      for await (const { id, event } of feed.follow(entry.id, after, this.waited?.check)) {
        sent = true;
        yield atPosition(event as JsonObject, id);
        if (closesStream(event as JsonObject)) return;
      }
    } catch (error) {
      if (!(error instanceof TaskFeedError)) throw error;
      if (error.code === 'unknown_position') {
        throw invalidParams(
          '/Last-Event-ID',
          'must be the id of an event this subscription sent, not one past the newest event of the task',
        );
      }
      if (error.code === 'runner_gone') {
        // The task may have settled without its last event reaching the feed (a replica that
        // nobody asked to write settled it: a CancelTask of a task whose runner died, before the
        // runner was found gone): its end as the index has it closes the stream, as a task run
        // without a stream ends its subscribers' streams: every artifact it holds, then its status.
        const now = await this.index.get(scope, request.id).catch(() => undefined);
        if (now && !now.active && isTerminal(now.task.state ?? 'submitted')) {
          for (const response of artifactResponses(now.task, now.contextId)) yield response;
          yield lastStatusResponse(now.task, now.contextId);
          return;
        }
      }
      throw new A2aError('internalError', error.message, { reason: error.code });
    } finally {
      release?.();
    }
    // Resumed after the task's last event: its status as it stands closes the stream.
    if (resume !== undefined && !sent) {
      if (!isTerminal(state) && entry.active) throw new A2aError('internalError', `the events of task ${entry.id} ended early`);
      yield lastStatusResponse(entry.task, entry.contextId);
    }
  }

  createTaskPushNotificationConfig(
    request: MessageShape<typeof TaskPushNotificationConfigSchema>,
    context: RequestContext,
  ): Promise<JsonObject> {
    return this.push ? this.push.create(request, scopeOf(request.tenant, context)) : Promise.reject(pushNotSupported());
  }

  getTaskPushNotificationConfig(
    request: MessageShape<typeof GetTaskPushNotificationConfigRequestSchema>,
    context: RequestContext,
  ): Promise<JsonObject> {
    return this.push ? this.push.get(request, scopeOf(request.tenant, context)) : Promise.reject(pushNotSupported());
  }

  listTaskPushNotificationConfigs(
    request: MessageShape<typeof ListTaskPushNotificationConfigsRequestSchema>,
    context: RequestContext,
  ): Promise<JsonObject> {
    return this.push ? this.push.list(request, scopeOf(request.tenant, context)) : Promise.reject(pushNotSupported());
  }

  deleteTaskPushNotificationConfig(
    request: MessageShape<typeof DeleteTaskPushNotificationConfigRequestSchema>,
    context: RequestContext,
  ): Promise<JsonObject> {
    return this.push ? this.push.delete(request, scopeOf(request.tenant, context)) : Promise.reject(pushNotSupported());
  }

  /**
   * The extended card, to an authenticated caller only. The route already refuses a caller
   * without valid credentials (HTTP 401) when the agent has an authenticator, and the agent
   * refuses an extended card without one; the check here keeps the rule where the card is.
   */
  getExtendedAgentCard(
    _request: MessageShape<typeof GetExtendedAgentCardRequestSchema>,
    context: RequestContext,
  ): Promise<JsonObject> {
    // A2A: without capabilities.extendedAgentCard the method is UnsupportedOperation.
    if (!this.extendedCard)
      return Promise.reject(
        new A2aError('unsupportedOperation', 'this agent has no extended card (capabilities.extendedAgentCard is false)'),
      );
    if (!context.security)
      return Promise.reject(new A2aError('unsupportedOperation', 'the extended card is shown to authenticated callers only'));
    return Promise.resolve(this.extendedCard());
  }
}

function pushNotSupported(): A2aError {
  return new A2aError(
    'pushNotificationNotSupported',
    'push notifications are not supported by this agent (capabilities.pushNotifications is false)',
  );
}

/** The tenant is the request's `tenant` parameter ('' when absent); the principal is the authenticated one. */
function scopeOf(tenant: string, context: RequestContext): TaskScope {
  return { tenant, principal: context.security?.principal_id ?? null };
}

function checkHistoryLength(value: number | undefined, pointer: string): number | undefined {
  if (value !== undefined && value < 0) throw invalidParams(pointer, 'must not be negative');
  return value;
}
