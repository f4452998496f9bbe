// The inbound A2A 1.0 JSON-RPC adapter: the body of `POST /` in, a JSON-RPC response out. It
// checks in the order a JSON-RPC server must: media type (before the body is trusted), JSON
// (-32700), the request object (-32600), the method (-32601), the params (-32602), then the
// A2A version (-32009); only then does a method run. Tasks run on the agent's own engine and
// are remembered in the task index, scoped to the request's tenant and principal.
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import type { Task as NativeTask, TaskState as NativeState } from '../../generated/types/index.js';
import {
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  Role,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  TaskState,
} from '../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { newId } from '../core/ids.js';
import { StoreUnavailableError } from '../core/store-unavailable-error.js';
import { isTerminal } from '../core/task-state.js';
import { transition } from '../core/task-lifecycle.js';
import type { RequestContext, SpanHandle } from '../transport/endpoint.js';
import { EndpointError } from '../transport/endpoint-error.js';
import type { RawHttpBody } from '../transport/http/raw-body.js';
import { describeServedAnswer, describeServedCall, describeUnreadCall } from './a2a-spans.js';
import { encodeAnswerWithin, encodeBatchWithin } from './answer-limit.js';
import { A2aRpcError, invalidParams } from './errors.js';
import {
  encodeRpc,
  NO_RESPONSE,
  parseRpcBody,
  parsedRpcBody,
  readRpcCall,
  rpcFailure,
  rpcResult,
  usableId,
  type RpcResponse,
} from './json-rpc.js';
import { MemoryTaskIndex } from '../stores/memory/memory-task-index.js';
import { messageFromA2a } from './messages.js';
import { PageTokens } from './page-token.js';
import { decodeParams } from './params.js';
import { checkMediaType, checkVersion } from './service-parameters.js';
import { stateFromA2a } from './task-states.js';
import { INBOUND_KEY, taskToA2aJson, type InboundRecord } from './tasks.js';
import { statusTime } from '../stores/task-entries.js';
import { TaskIndexFullError, TaskQuotaError, type IndexedTask, type TaskIndex, type TaskScope } from './task-index.js';
import type { TaskRunner } from './task-runner.js';
import type { PreEncoded } from '../core/json/encoded.js';

export interface A2aAdapterOptions {
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
  /** The most requests one batch may hold; default 100. */
  readonly maxBatchRequests?: number;
  /** The transport's `max_response_bytes`: a larger result is answered as -32603. Default: no limit of the adapter's own. */
  readonly maxResponseBytes?: number;
}

/** Batch size when the options set none: JSON-RPC sets no bound, and an unbounded batch runs without end. */
const DEFAULT_MAX_BATCH_REQUESTS = 100;

/** ListTasks page size when the request sets none, and the largest it may ask for. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

interface Method {
  readonly schema: DescMessage;
  readonly run: (request: never, context: RequestContext) => Promise<unknown>;
}

export class A2aAdapter {
  readonly index: TaskIndex;
  private readonly engine: TaskRunner;
  private readonly tokens: PageTokens;
  private readonly methods: ReadonlyMap<string, Method>;
  private readonly cancelElsewhere: A2aAdapterOptions['cancelElsewhere'];
  private readonly maxBatchRequests: number;
  private readonly maxResponseBytes: number;

  constructor(options: A2aAdapterOptions) {
    this.engine = options.engine;
    this.maxBatchRequests = options.maxBatchRequests ?? DEFAULT_MAX_BATCH_REQUESTS;
    this.maxResponseBytes = options.maxResponseBytes ?? Number.POSITIVE_INFINITY;
    this.tokens = new PageTokens(options.pageTokenKey);
    this.cancelElsewhere = options.cancelElsewhere;
    this.index = options.index ?? new MemoryTaskIndex();
    const method = <D extends DescMessage>(
      schema: D,
      run: (request: MessageShape<D>, context: RequestContext) => Promise<unknown>,
    ): Method => ({
      schema,
      run: run as Method['run'],
    });
    const streaming = () => unsupported('streaming is not supported by this agent (capabilities.streaming is false)');
    const push = () =>
      Promise.reject(new A2aRpcError('pushNotificationNotSupported', 'push notifications are not supported by this agent'));
    this.methods = new Map<string, Method>([
      ['SendMessage', method(SendMessageRequestSchema, (request, context) => this.sendMessage(request, context))],
      ['GetTask', method(GetTaskRequestSchema, (request, context) => this.getTask(request, context))],
      ['ListTasks', method(ListTasksRequestSchema, (request, context) => this.listTasks(request, context))],
      ['CancelTask', method(CancelTaskRequestSchema, (request, context) => this.cancelTask(request, context))],
      ['SendStreamingMessage', method(SendMessageRequestSchema, streaming)],
      ['SubscribeToTask', method(SubscribeToTaskRequestSchema, streaming)],
      ['CreateTaskPushNotificationConfig', method(TaskPushNotificationConfigSchema, push)],
      ['GetTaskPushNotificationConfig', method(GetTaskPushNotificationConfigRequestSchema, push)],
      ['ListTaskPushNotificationConfigs', method(ListTaskPushNotificationConfigsRequestSchema, push)],
      ['DeleteTaskPushNotificationConfig', method(DeleteTaskPushNotificationConfigRequestSchema, push)],
      [
        'GetExtendedAgentCard',
        method(GetExtendedAgentCardRequestSchema, () =>
          unsupported('this agent has no extended card (capabilities.extendedAgentCard is false)'),
        ),
      ],
    ]);
  }

  /**
   * Answers one `POST /`: a response, a batch of them, or nothing (notifications only). When
   * its span records, a single call names it after its method (a batch leaves it as it is).
   */
  async handle(body: RawHttpBody, context: RequestContext): Promise<PreEncoded> {
    const span = context.span ?? null;
    let parsed: unknown;
    try {
      checkMediaType(body.header('content-type'));
      parsed = body.decoded ? parsedRpcBody(body.decoded) : parseRpcBody(body.text);
    } catch (error) {
      return encodeRpc(answered(span, rpcFailure(null, asRpcError(error))));
    }
    const version = body.header('a2a-version');
    if (!Array.isArray(parsed)) {
      const answer = await this.one(parsed, version, context, span);
      if (!answer) return NO_RESPONSE;
      const sent = encodeAnswerWithin(answer, this.maxResponseBytes);
      if (sent.value !== answer) answered(span, sent.value as RpcResponse);
      return sent;
    }
    if (parsed.length === 0)
      return encodeRpc(
        answered(span, rpcFailure(null, new A2aRpcError('invalidRequest', 'a batch must hold at least one request'))),
      );
    // Refused before any member runs: a bound on the work one body can ask for.
    if (parsed.length > this.maxBatchRequests) {
      const message = `a batch of ${parsed.length} requests is over this agent's limit: at most ${this.maxBatchRequests}`;
      const limit = { limit: String(this.maxBatchRequests) };
      return encodeRpc(answered(span, rpcFailure(null, new A2aRpcError('invalidRequest', message, limit))));
    }
    const answers = await Promise.all(parsed.map((item) => this.one(item, version, context, null)));
    const sent = answers.filter((answer): answer is RpcResponse => answer !== undefined);
    return sent.length > 0 ? encodeBatchWithin(sent, this.maxResponseBytes) : NO_RESPONSE;
  }

  /**
   * One request object; undefined for a notification, which is run but not answered. `span`:
   * the request's span when it records and the request holds this call alone.
   */
  private async one(
    value: unknown,
    version: string | undefined,
    context: RequestContext,
    span: SpanHandle | null,
  ): Promise<RpcResponse | undefined> {
    let notification = false;
    let id = usableId(value);
    let read = false;
    try {
      const call = readRpcCall(value);
      read = true;
      notification = call.notification;
      id = call.id;
      const method = this.methods.get(call.method);
      if (span) describeServedCall(span, call, method !== undefined);
      if (!method) throw new A2aRpcError('methodNotFound', `unknown method ${JSON.stringify(call.method)}`);
      const request = decodeParams(method.schema, call.params);
      checkVersion(version);
      const result = await method.run(request as never, context);
      return notification ? undefined : rpcResult(id, result);
    } catch (error) {
      if (span && !read) describeUnreadCall(span, id);
      return notification ? undefined : answered(span, rpcFailure(id, asRpcError(error)));
    }
  }

  private async sendMessage(request: MessageShape<typeof SendMessageRequestSchema>, context: RequestContext): Promise<unknown> {
    const message = request.message;
    if (!message) throw invalidParams('/message', 'is required');
    if (!message.messageId) throw invalidParams('/message/messageId', 'is required');
    if (message.role === Role.UNSPECIFIED) throw invalidParams('/message/role', 'must be ROLE_USER or ROLE_AGENT');
    if (message.parts.length === 0) throw invalidParams('/message/parts', 'must hold at least one part');
    const configuration = request.configuration;
    const historyLength = checkHistoryLength(configuration?.historyLength, '/configuration/historyLength');
    const native = messageFromA2a(message, '/message');
    const scope = scopeOf(request.tenant, context);
    let entry: IndexedTask;
    if (message.taskId) {
      const found = await this.index.get(scope, message.taskId);
      if (!found) throw new A2aRpcError('taskNotFound', `task ${message.taskId} not found`);
      if (message.contextId && message.contextId !== found.contextId) {
        throw invalidParams('/message/contextId', `does not match the context of task ${found.id}`);
      }
      if (isTerminal(found.task.state ?? 'submitted')) {
        throw new A2aRpcError('unsupportedOperation', `task ${found.id} is ${found.task.state} and takes no more messages`);
      }
      if (found.active)
        throw new A2aRpcError(
          'unsupportedOperation',
          `task ${found.id} is still working; send the next message once it asks for one`,
        );
      entry = found;
      (entry.task.messages ??= []).push(native);
      entry.active = true;
      await this.index.update(entry);
    } else {
      const contextId = message.contextId || newId();
      const inbound: InboundRecord = { context_id: contextId, tenant: scope.tenant, message_id: message.messageId };
      const task: NativeTask = { id: newId(), messages: [native], metadata: { [INBOUND_KEY]: inbound } };
      entry = { id: task.id, contextId, tenant: scope.tenant, owner: scope.principal, task, active: true };
      await this.index.add(entry);
    }
    const run = this.run(entry, context);
    // Answered at once: a run that fails later (the engine refused it, the index is out of
    // reach) has no caller left to tell, and must not end the process as an unhandled rejection.
    if (configuration?.returnImmediately) run.catch(() => undefined);
    else await run;
    return { task: taskToA2aJson(entry.task, { contextId: entry.contextId, historyLength, includeArtifacts: true }) };
  }

  /** Runs the entry's task on the engine; the index learns when it settles. */
  private run(entry: IndexedTask, context: RequestContext): Promise<void> {
    const settle = () => {
      entry.active = false;
      return this.index.update(entry);
    };
    return this.engine.submit(entry.task, context).then(
      (finished) => {
        entry.task = finished.value as NativeTask;
        return settle();
      },
      async (error: unknown) => {
        // The engine refused the run itself (it was already running): the task is unchanged.
        await settle();
        throw error;
      },
    );
  }

  private async getTask(request: MessageShape<typeof GetTaskRequestSchema>, context: RequestContext): Promise<unknown> {
    if (!request.id) throw invalidParams('/id', 'is required');
    const historyLength = checkHistoryLength(request.historyLength, '/historyLength');
    const entry = await this.index.get(scopeOf(request.tenant, context), request.id);
    if (!entry) throw new A2aRpcError('taskNotFound', `task ${request.id} not found`);
    return taskToA2aJson(entry.task, { contextId: entry.contextId, historyLength, includeArtifacts: true });
  }

  private async listTasks(request: MessageShape<typeof ListTasksRequestSchema>, context: RequestContext): Promise<unknown> {
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

  private async cancelTask(request: MessageShape<typeof CancelTaskRequestSchema>, context: RequestContext): Promise<unknown> {
    if (!request.id) throw invalidParams('/id', 'is required');
    const scope = scopeOf(request.tenant, context);
    const entry = await this.index.get(scope, request.id);
    if (!entry) throw new A2aRpcError('taskNotFound', `task ${request.id} not found`);
    if (isTerminal(entry.task.state ?? 'submitted')) {
      throw new A2aRpcError('taskNotCancelable', `task ${entry.id} is already ${entry.task.state}`);
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
      if (elsewhere) entry.active = false;
      answer = entry.task;
    }
    if (!entry.active) await this.index.update(entry);
    return taskToA2aJson(answer, { contextId: entry.contextId, includeArtifacts: true });
  }
}

/** `response`, recorded on the span when there is one. */
function answered(span: SpanHandle | null, response: RpcResponse): RpcResponse {
  if (span) describeServedAnswer(span, response);
  return response;
}

function unsupported(message: string): Promise<never> {
  return Promise.reject(new A2aRpcError('unsupportedOperation', message));
}

/** The tenant is the request's `tenant` parameter ('' when absent); the principal is the authenticated one. */
function scopeOf(tenant: string, context: RequestContext): TaskScope {
  return { tenant, principal: context.security?.principal_id ?? null };
}

function checkHistoryLength(value: number | undefined, pointer: string): number | undefined {
  if (value !== undefined && value < 0) throw invalidParams(pointer, 'must not be negative');
  return value;
}

function asRpcError(error: unknown): A2aRpcError {
  if (error instanceof A2aRpcError) return error;
  // A2A files a refusal for load (rate limits among its examples) under system errors: -32603.
  if (error instanceof TaskIndexFullError)
    return new A2aRpcError('internalError', error.message, { capacity: String(error.capacity) });
  if (error instanceof TaskQuotaError) return new A2aRpcError('internalError', error.message, { quota: String(error.quota) });
  if (error instanceof EndpointError && error.code === 'conflict') return new A2aRpcError('unsupportedOperation', error.message);
  // A store that may come back (a shared store out of reach): nothing ran; the client may retry.
  // Its own message names the store (a Redis URL): the caller gets a fixed text and the code.
  if (error instanceof StoreUnavailableError && error.retryable)
    return new A2aRpcError('internalError', 'the task store is unavailable; nothing ran, try again', {
      retryable: 'true',
      reason: error.code,
    });
  return new A2aRpcError('internalError', error instanceof Error ? error.message : String(error));
}
