// AgentServer: one agent, served over one transport. start() builds the endpoint table from
// the generated operations, hands it to the transport and starts it; only then is the server
// running. stop() leaves the registry, stops the transport, then goes idle; a failing step
// leaves it running. The steps are the registry server's too (ServerLifecycle).
import type { AgentHandlers } from '../../generated/handlers/agent.js';
import { agentOperations } from '../../generated/operations/agent.js';
import type {
  AgentCard,
  CancelRequest,
  ChatRequest,
  ChatResponse,
  CompactHistoryRequest,
  CompactHistoryResult,
  StateRequest,
  StateResult,
  StreamEvent,
  Task,
} from '../../generated/types/index.js';
import { newId } from '../core/ids.js';
import { agentOpenApiDocument } from '../core/openapi-documents.js';
import { normalizeJson } from '../core/json/normalize.js';
import { ConfigError, InvalidArgumentError, StateError } from '../core/errors.js';
import { isAuthenticator } from '../auth/authenticator.js';
import { compactHistory, countTokens } from '../llm/history-compaction.js';
import type { LanguageModel } from '../llm/language-model.js';
import { ModelError, RunBudgetError } from '../llm/model-error.js';
import type { RunBudget } from '../llm/model-loop.js';
import { modelTokenCounter } from '../llm/tokenizer.js';
import type { Tool } from '../llm/tool.js';
import type { Endpoint, RequestContext } from '../transport/endpoint.js';
import { EndpointError } from '../transport/endpoint-error.js';
import { ServerLifecycle, type ServerLifecycleOptions } from '../server/lifecycle.js';
import type { Transport, TransportOptions } from '../transport/transport.js';
import type { RegistryCallStatus } from '../client/registry-client.js';
import { buildAgentCard } from './agent-card.js';
import type { CardIdentity } from '../core/card-identity.js';
import { AgentRegistration, type AgentRegistrationOptions } from './agent-registration.js';
import { buildAgentEndpoints } from './agent-endpoints.js';
import { echoHandler, inferenceHandler } from './default-handlers.js';
import type { AgentHandler } from './handler.js';
import { converse, type ModelSetup } from './model-setup.js';
import { renderChatPage } from './pages/chat-page.js';
import { renderStatusPage } from './pages/status-page.js';
import { SessionStore, sessionOwner } from './sessions.js';
import { StateOperations } from './state-operations.js';
import { TaskEngine } from './task-engine.js';
import { checkExtendedCard, extendedCardSource, type A2aExtendedCard } from '../a2a/card/extended-card.js';
import { A2A_TRANSPORTS, buildA2aEndpoints } from '../a2a/endpoints.js';
import { A2aRequestHandler } from '../a2a/handler/request-handler.js';
import {
  checkPushOptions,
  openPushNotifications,
  type A2aPushOptions,
  type PushNotifications,
} from '../a2a/push/push-notifications.js';
import type { TaskIndex } from '../a2a/handler/task-index.js';
import { openStores, type StoreChoice } from '../stores/open.js';
import type { RedisAgentState } from '../stores/redis/redis-agent-state.js';
import { checkQueueSettings, type RedisTaskQueue, type TaskQueueSettings } from '../stores/redis/redis-task-queue.js';
import type { QueuedRun } from '../a2a/handler/task-queue.js';
import type { IdempotencyBounds } from '../transport/idempotency-store.js';
import type { MetricsSource } from '../observability/prometheus-metrics.js';
import { PushDeliveryWatch, type PushDeliveryOutcome } from '../observability/push-delivery-watch.js';
import type { ChangeDropReason } from '../a2a/push/push-delivery.js';

/**
 * The push metric's outcome of a change lost before it became calls: an unreadable config
 * store has an outcome of its own; too many changes waiting for the read is a full queue,
 * as `dropped` is for calls; a change whose JSON could not be written failed.
 */
const CHANGE_DROP_OUTCOMES: Readonly<Record<ChangeDropReason, PushDeliveryOutcome>> = {
  unread: 'config_read_failed',
  pending_full: 'dropped',
  unwritable: 'failed',
};

/** Decides whether a caller may reset or compact state. Return false (or throw) to refuse. */
export type StatePolicy = (
  operation: 'reset' | 'compact',
  request: StateRequest,
  context: RequestContext,
) => boolean | Promise<boolean>;

export interface AgentServerOptions extends CardIdentity, ServerLifecycleOptions {
  /** The agent's work. Default: the model's inference when `llm` is set, else echo. */
  readonly handler?: AgentHandler;
  /** A language model: the agent serves POST /chat and, without a handler, answers tasks with it. */
  readonly llm?: LanguageModel;
  /** Tools the model may call (made with `tool()`); needs `llm`, one whose provider supports tools. */
  readonly tools?: readonly Tool<unknown, unknown>[];
  /** The model's system turn at the start of every run. */
  readonly instructions?: string;
  /** Limits of each model run (steps, tool calls, tokens, time). Defaults in DEFAULT_RUN_BUDGET. */
  readonly runBudget?: RunBudget;
  /**
   * The model's text chunks that arrive within this many milliseconds of the last text event
   * are merged into the next (at most that long a wait); 0 sends one event per read. Default 50.
   */
  readonly textWindowMs?: number;
  /** Authorizes state reset and compaction. Default: allowed. */
  readonly statePolicy?: StatePolicy;
  /** Finished tasks counted on the status page (tasks waiting for input stay cancelable while listed). Default 100. */
  readonly recentTasks?: number;
  /** Sessions kept for chat and state; least recently used dropped first. Default 1024. */
  readonly maxSessions?: number;
  /**
   * JSON bytes of all sessions together (conversations and values); past it the least recently
   * used sessions are dropped. Default 67108864 (64 MiB).
   */
  readonly totalSessionBytes?: number;
  /**
   * JSON bytes of one session (at most totalSessionBytes): its oldest turns are dropped to fit,
   * and a value that would not fit is refused (`session_too_large`). Default 4194304 (4 MiB).
   */
  readonly maxSessionBytes?: number;
  /**
   * A registry to join: the agent registers its card once it serves, heartbeats on an interval
   * and unregisters at stop. A URL, or options with the interval and the client's transport
   * options. Off by default. A registry that is down never keeps the agent from serving. With
   * `tracing`, registering and unregistering are traced, heartbeats not (unless the client's
   * own `tracing` says otherwise).
   */
  readonly registry?: string | AgentRegistrationOptions;
  /**
   * Serve the A2A 1.0 boundary too: on the http transport the public A2A card at
   * GET /.well-known/agent-card.json, JSON-RPC at POST / and HTTP+JSON under /a2a/rest; on the
   * grpc transport the gRPC binding (lf.a2a.v1.A2AService) on the same server, and the card
   * through SvcTransport. Other transports are refused. Default false.
   */
  readonly a2a?: boolean;
  /**
   * The authenticated extended A2A card: a description and skills (A2A AgentSkill objects in
   * ProtoJSON) that GetExtendedAgentCard shows to authenticated callers only, on top of the
   * public card; the public card then says `capabilities.extendedAgentCard: true`. Needs `a2a`
   * and an `authenticator`. Default none.
   */
  readonly a2aExtendedCard?: A2aExtendedCard;
  /**
   * A2A push notifications, with `a2a`: on by default (the card says
   * `capabilities.pushNotifications: true`), `false` turns them off (the config methods then
   * answer PushNotificationNotSupported). Options: which webhook destinations may be called
   * (`allowPrivate`, `allow`, `allowHttp`; private, loopback and link-local addresses and http
   * URLs are refused by default), retries, queues and the config store's bounds (docs/a2a.md).
   * With a Redis `store` the configs are shared by the replicas.
   */
  readonly a2aPush?: boolean | A2aPushOptions;
  /** Where the A2A boundary remembers its tasks; default in memory (1 hour, 1,024 tasks), or the shared `store`. */
  readonly a2aTaskIndex?: TaskIndex;
  /** A session unused for this long is dropped. Default 3600 (one hour). */
  readonly sessionTtlSeconds?: number;
  /**
   * State shared with the agent's other replicas: `redis://host:port[/db][?prefix=NAME]` keeps
   * the idempotency records, the A2A task index and page-token key in Redis, and sends cancels
   * to the replica running the task (docs/replicas.md). Default `memory`: all in this process.
   */
  readonly store?: string;
  /**
   * Start on a Redis `store` even when it may evict keys (its maxmemory-policy is not
   * noeviction, or cannot be read): acknowledged writes can then be lost. Default false: refused.
   */
  readonly allowStoreEviction?: boolean;
  /**
   * With a Redis `store` and `a2a`: the queue that runs the tasks nobody waits for (SendMessage
   * with `returnImmediately`) on any replica. `concurrency` is how many this replica runs at once
   * (default 4); `lockDurationMs` (default 15000) how long a silent replica keeps a task before
   * it counts as stopped; `stalledIntervalMs` (default 5000) how often replicas look for such
   * tasks; `attempts` (default 3) the most starts of a task when the handler is `rerunnable`.
   */
  readonly taskQueue?: TaskQueueSettings;
  /**
   * The handler may safely run the same task again: a queued task whose replica stopped mid-run
   * (or whose handler threw) is started again on another replica, up to `taskQueue.attempts`
   * starts. Default false: such a task ends `failed` ("the replica running it stopped").
   */
  readonly rerunnable?: boolean;
}

export class AgentServer extends ServerLifecycle implements AgentHandlers<RequestContext> {
  private readonly engine: TaskEngine;
  private readonly sessions: SessionStore;
  private readonly state: StateOperations;
  private readonly llm: LanguageModel | null;
  private readonly registration: AgentRegistration | null;
  private readonly model: ModelSetup | null;
  /** What the `store` option names, checked at construction and opened at each start. */
  private readonly storeChoice: StoreChoice;
  private shared: RedisAgentState | null = null;
  /** The extended A2A card's settings, checked at construction. */
  private readonly extendedCard: A2aExtendedCard | null;
  /** The `a2aPush` options when push notifications are on, else null. */
  private readonly pushOptions: A2aPushOptions | null;
  /** This start's push notifications (their delivery is stopped with the server). */
  private push: PushNotifications | null = null;
  /** Where each webhook call's end is reported for the metrics; null without push notifications. */
  private readonly pushWatch: PushDeliveryWatch | null = null;
  /** The task queue's settings, checked at construction. */
  private readonly queueSettings: Required<TaskQueueSettings>;
  /** The A2A handler of the current start, whose queue workers run once the server serves. */
  private a2aHandler: A2aRequestHandler | null = null;

  constructor(private readonly options: AgentServerOptions) {
    if (!options.name) throw new InvalidArgumentError('an agent needs a name', 'invalid_argument');
    const storeChoice = openStores(options.store ?? 'memory', { allowEviction: options.allowStoreEviction ?? false });
    // The spec makes a custom authenticator usable only with all three members; refuse it here
    // rather than fail on the first request.
    if (options.authenticator !== undefined && !isAuthenticator(options.authenticator)) {
      const given = Object(options.authenticator) as Record<string, unknown>;
      const missing = (['scheme', 'authenticate', 'refreshToken'] as const).filter(
        (member) => typeof given[member] !== (member === 'scheme' ? 'object' : 'function') || given[member] === null,
      );
      const rule = 'needs scheme (an object), authenticate and refreshToken (functions); authenticateNow is optional, a function';
      const described =
        missing.length > 0 ? `an object without ${missing.join(', ')}` : 'an object whose authenticateNow is not a function';
      throw new ConfigError('authenticator', described, rule);
    }
    super(options, 'agent', agentOperations.getMetrics);
    this.storeChoice = storeChoice;
    this.queueSettings = checkQueueSettings(options.taskQueue ?? {}, 'taskQueue');
    if (options.a2a) {
      const name = this.transportName;
      if (!(A2A_TRANSPORTS as readonly string[]).includes(name)) {
        throw new InvalidArgumentError(
          `the A2A 1.0 boundary is served on the http (JSON-RPC) and grpc (gRPC) transports only, not ${name}`,
          'invalid_argument',
        );
      }
    }
    this.extendedCard = null;
    if (options.a2aExtendedCard !== undefined) {
      if (!options.a2a) throw new InvalidArgumentError('a2aExtendedCard needs a2a: true', 'invalid_argument');
      // A2A: the extended card MUST require authentication; without an authenticator no caller has any.
      if (!options.authenticator)
        throw new InvalidArgumentError(
          'a2aExtendedCard needs an authenticator: the extended card is for authenticated callers only',
          'invalid_argument',
        );
      this.extendedCard = checkExtendedCard(options.a2aExtendedCard, 'a2aExtendedCard');
    }
    this.pushOptions = null;
    if (options.a2aPush !== undefined && options.a2aPush !== false) {
      if (!options.a2a) throw new InvalidArgumentError('a2aPush needs a2a: true', 'invalid_argument');
      if (options.a2aPush !== true && (typeof options.a2aPush !== 'object' || options.a2aPush === null)) {
        throw new ConfigError('a2aPush', options.a2aPush, 'must be true, false or an options object');
      }
    }
    if (options.a2a && options.a2aPush !== false) {
      const given: A2aPushOptions = typeof options.a2aPush === 'object' ? options.a2aPush : {};
      checkPushOptions(given, 'a2aPush');
      const watch = new PushDeliveryWatch();
      this.pushWatch = watch;
      // Each call's end goes to the metrics as well as to the application's own onOutcome; so
      // does a change lost before it became calls, counted once as the outcome it comes to.
      this.pushOptions = {
        ...given,
        onOutcome: (outcome) => {
          watch.ended(outcome.refused ? 'refused' : outcome.result, outcome.seconds ?? null);
          given.onOutcome?.(outcome);
        },
        onChangeDropped: (dropped) => {
          watch.ended(CHANGE_DROP_OUTCOMES[dropped.why], null);
          given.onChangeDropped?.(dropped);
        },
      };
    }
    this.llm = options.llm ?? null;
    this.model = modelSetup(options);
    const ttl = options.sessionTtlSeconds;
    if (ttl !== undefined && !(ttl > 0)) throw new InvalidArgumentError(`sessionTtlSeconds must be above 0 (got ${ttl})`);
    this.sessions = new SessionStore({
      maxSessions: options.maxSessions,
      ttlMs: ttl === undefined ? undefined : ttl * 1000,
      totalBytes: byteBound('totalSessionBytes', options.totalSessionBytes),
      sessionBytes: byteBound('maxSessionBytes', options.maxSessionBytes),
    });
    const handler = options.handler ?? (this.llm ? inferenceHandler : echoHandler);
    this.engine = new TaskEngine({ handler, model: this.model, sessions: this.sessions, recentLimit: options.recentTasks });
    this.state = new StateOperations(this.sessions, this.engine, this.llm);
    const registry = typeof options.registry === 'string' ? { url: options.registry } : options.registry;
    const tracing = options.tracing ?? options.transportOptions?.tracing ?? false;
    this.registration = registry ? new AgentRegistration(registry, () => this.card(), tracing) : null;
  }

  protected async openStores(): Promise<void> {
    // Only an A2A agent queues tasks (SendMessage's returnImmediately); the native API has none to queue.
    const queue = this.options.a2a ? this.queueSettings : undefined;
    this.shared = await this.storeChoice.agentState((...args) => this.cancelHere(...args), queue);
  }

  protected async closeStores(): Promise<void> {
    this.push?.close();
    this.push = null;
    await this.shared?.close();
    this.shared = null;
  }

  protected override extraTransportOptions(): Partial<TransportOptions> {
    // The transport outlives a stop; each start's dispatcher asks for the connection of that start.
    return this.shared ? { idempotencyStore: (bounds: IdempotencyBounds) => this.sharedState().idempotencyStore(bounds) } : {};
  }

  protected buildEndpoints(transport: Transport): Map<string, Endpoint> {
    const shared = this.shared;
    const endpoints = buildAgentEndpoints(this, this.engine, {
      transport,
      hasLlm: this.llm !== null,
      tasksUseModel: this.llm !== null && this.options.handler === undefined,
    });
    if (this.options.a2a) {
      const index = this.options.a2aTaskIndex ?? shared?.taskIndex;
      this.push?.close();
      this.push = null;
      const handler = new A2aRequestHandler({
        engine: this.engine,
        index,
        pageTokenKey: shared?.pageTokenKey,
        cancelElsewhere: shared ? (id, principal, metadata) => shared.cancelBus.cancel(id, principal, metadata) : undefined,
        feed: shared?.taskFeed,
        queue: shared?.taskQueue
          ? {
              queue: shared.taskQueue as RedisTaskQueue<QueuedRun>,
              rerunnable: this.options.rerunnable ?? false,
              attempts: this.queueSettings.attempts,
            }
          : undefined,
        extendedCard: this.extendedCard
          ? extendedCardSource(this.options, () => transport.url, this.options.authenticator ?? null, this.extendedCard, {
              pushNotifications: this.pushOptions !== null,
            })
          : undefined,
        push: (index) =>
          this.pushOptions
            ? (this.push = openPushNotifications(this.pushOptions, index, shared?.pushConfigs ?? null, this.logger))
            : undefined,
      });
      const a2a = buildA2aEndpoints({
        handler,
        extendedCard: this.extendedCard !== null,
        pushNotifications: this.pushOptions !== null,
        jsonRpc: { maxResponseBytes: transport.config.limits.maxResponseBytes },
        transport: transport.name === 'grpc' ? 'grpc' : 'http',
        identity: this.options,
        authenticator: this.options.authenticator ?? null,
        url: () => transport.url,
      });
      for (const [key, endpoint] of a2a) endpoints.set(key, endpoint);
      this.a2aHandler = handler;
    }
    return endpoints;
  }

  protected override metricsSource(transport: Transport): MetricsSource {
    const source: MetricsSource = { ...super.metricsSource(transport), tasks: () => this.engine.counts() };
    return this.pushWatch ? { ...source, pushDeliveries: this.pushWatch } : source;
  }

  protected override started(): void {
    // Not awaited: joining the registry must not hold up (or fail) serving. The queue's workers
    // reconnect by themselves; a failure to start them leaves the other replicas' workers.
    void this.registration?.start();
    void this.a2aHandler?.startQueueWorkers().catch(() => undefined);
  }

  /**
   * The queued tasks running here finish within the drain window, or are handed on to another
   * replica (docs/replicas.md): either way none waits for its lock to run out.
   */
  protected override draining(windowMs: number): Promise<void> | undefined {
    return this.a2aHandler?.drainQueue(windowMs);
  }

  /** The registry first, so nobody discovers an agent that is going away. */
  protected override leaving(): Promise<void> | undefined {
    return this.registration?.stop();
  }

  private sharedState(): RedisAgentState {
    if (!this.shared) throw new StateError('the shared store is not open');
    return this.shared;
  }

  /** A cancel heard from another replica: the canceled task if it runs (or waits for input) here. */
  private cancelHere(id: string, principal: string | null, metadata: Record<string, unknown>): Task | undefined {
    try {
      return this.engine.cancel({ id, metadata }, principal);
    } catch (error) {
      if (error instanceof EndpointError && error.code === 'not_found') return undefined;
      throw error;
    }
  }

  /**
   * The outcome of joining the registry given in the options: resolves once the first
   * registration attempt has an answer (its `error` is set when it failed; the agent keeps
   * trying on every heartbeat). Null without a registry or before start.
   */
  whenRegistered(): Promise<RegistryCallStatus> | null {
    return this.registration?.whenRegistered() ?? null;
  }

  // --- the generated handler interface ---

  /**
   * Runs a task. The server takes ownership of `task`: it is filled in and updated in place.
   * A task holding values that are not plain JSON (dates, maps) is normalized into a copy
   * first, and the copy is what gets updated.
   */
  sendTask(task: Task, context: RequestContext): Promise<Task> {
    return this.engine.submit(normalizeJson(task) as Task, context).then((finished) => finished.value as Task);
  }

  /**
   * Cancels an active task the caller submitted; any other id is 404 (cancel is not a task
   * lookup). With a shared store, a task running on another replica is canceled there.
   */
  cancelTask(request: CancelRequest, context: RequestContext): Task | Promise<Task> {
    const principal = context.security?.principal_id ?? null;
    try {
      return this.engine.cancel(request, principal);
    } catch (error) {
      const bus = this.shared?.cancelBus;
      if (!bus || !(error instanceof EndpointError && error.code === 'not_found')) throw error;
      return bus.cancel(request.id, principal, request.metadata ?? {}).then((task) => {
        if (!task) throw error;
        return task;
      });
    }
  }

  streamTask(task: Task, context: RequestContext): AsyncIterable<StreamEvent> {
    return mapIterable(this.engine.stream(normalizeJson(task) as Task, context), (item) => item.result as StreamEvent);
  }

  async compactHistory(request: CompactHistoryRequest, context: RequestContext): Promise<CompactHistoryResult> {
    const session = this.sessions.get(sessionOwner(context.security), request.session_id);
    const before = session?.turns ?? [];
    const strategy = request.strategy ?? 'tokens';
    const count = await modelTokenCounter(this.llm);
    const compacted = await compactHistory(before, request, this.llm, context.signal, count);
    if (session) this.sessions.setTurns(session, compacted.turns);
    return {
      session_id: request.session_id,
      strategy,
      messages_before: before.length,
      messages_after: compacted.turns.length,
      tokens_before: countTokens(before, count),
      tokens_after: countTokens(compacted.turns, count),
      removed: compacted.removed,
      summary: compacted.summary,
      metadata: { session_found: session !== undefined },
    };
  }

  describeState(request: StateRequest, context: RequestContext): StateResult {
    return this.state.describe(request, sessionOwner(context.security));
  }

  async resetState(request: StateRequest, context: RequestContext): Promise<StateResult> {
    await this.authorize('reset', request, context);
    return this.state.reset(request, sessionOwner(context.security));
  }

  async compactState(request: StateRequest, context: RequestContext): Promise<StateResult> {
    await this.authorize('compact', request, context);
    return this.state.compact(request, sessionOwner(context.security), context.signal);
  }

  /** The native agent card, as `GET /.well-known/agent.json` serves it. */
  getCard(): AgentCard {
    return this.card();
  }

  getStatusPage(): string {
    return renderStatusPage(this.card(), this.transport.health(), this.engine.counts());
  }

  /** The OpenAPI 3.1 document of the native HTTP API, as `GET /openapi.json` serves it (http and sse). */
  getOpenApi(): Promise<Record<string, unknown>> {
    return agentOpenApiDocument();
  }

  getChatPage(): string {
    // The page streams through the task stream where there is one and tasks are the model's
    // own answers; a handler of the author's may do anything with a task, so it posts to /chat.
    const streams = this.transport.supports('streaming') && this.options.handler === undefined;
    return renderChatPage(this.card(), this.llm?.name ?? null, streams);
  }

  async chat(request: ChatRequest, context: RequestContext): Promise<ChatResponse> {
    if (!this.model) throw new EndpointError('not_found', 'this agent has no language model');
    const sessionId = request.session_id || newId();
    try {
      const owner = sessionOwner(context.security);
      const answer = await converse(this.model, this.sessions, owner, sessionId, request.message, { signal: context.signal });
      return { reply: answer.text, session_id: sessionId, model: this.model.model.name };
    } catch (error) {
      throw chatError(error);
    }
  }

  private card(): AgentCard {
    return buildAgentCard(this.options, this.transport, this.llm !== null, this.options.authenticator ?? null);
  }

  private async authorize(operation: 'reset' | 'compact', request: StateRequest, context: RequestContext): Promise<void> {
    const policy = this.options.statePolicy;
    if (!policy) return;
    let allowed: boolean;
    try {
      allowed = await policy(operation, request, context);
    } catch (error) {
      throw new EndpointError('forbidden', error instanceof Error ? error.message : `state ${operation} refused`);
    }
    if (!allowed) throw new EndpointError('forbidden', `state ${operation} is not allowed for this caller`);
  }
}

/** A byte bound from the options: a whole number of bytes, at least 1. */
function byteBound(field: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
    throw new ConfigError(field, value, 'must be a whole number of bytes, at least 1');
  }
  return value;
}

function modelSetup(options: AgentServerOptions): ModelSetup | null {
  const tools = options.tools ?? [];
  if (!options.llm) {
    if (tools.length > 0) throw new InvalidArgumentError('tools need a language model: pass llm as well');
    return null;
  }
  if (tools.length > 0 && !options.llm.step) {
    throw new InvalidArgumentError(`model ${options.llm.name} cannot call tools: it has no step()`);
  }
  const window = options.textWindowMs;
  if (window !== undefined && (!(window >= 0) || !Number.isFinite(window))) {
    throw new InvalidArgumentError(`textWindowMs must be a number of milliseconds >= 0 (got ${String(window)})`);
  }
  const names = new Set<string>();
  for (const entry of tools) {
    if (names.has(entry.name)) throw new InvalidArgumentError(`two tools are named ${entry.name}`);
    names.add(entry.name);
  }
  return {
    model: options.llm,
    tools,
    instructions: options.instructions ?? null,
    budget: options.runBudget,
    textWindowMs: options.textWindowMs,
  };
}

/** A model's failure on POST /chat: 502 (the model server failed), 422 (the run's budget). */
function chatError(error: unknown): unknown {
  if (error instanceof ModelError) {
    return new EndpointError(error.code, error.message, { provider: error.provider, status: error.statusCode }, { status: 502 });
  }
  if (error instanceof RunBudgetError) {
    return new EndpointError(
      error.code,
      error.message,
      { limit: error.limit, maximum: error.maximum, run: error.run },
      { status: 422 },
    );
  }
  return error;
}

async function* mapIterable<T, U>(source: AsyncIterable<T>, map: (item: T) => U): AsyncGenerator<U> {
  for await (const item of source) yield map(item);
}
