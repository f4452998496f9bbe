// parley's outbound A2A 1.0 client for one peer: it fetches and checks the standard card, picks
// one of its interfaces (binding-choice.ts: the card's own order among the bindings parley
// speaks, or the one the caller forces, on the card's origin unless told to trust others), and
// talks to it through that binding's client (jsonrpc.ts, rest.ts, grpc.ts). Native tasks go out
// as SendMessage, or SendStreamingMessage when the card says `capabilities.streaming`; a task
// someone else started can be followed with SubscribeToTask. A2A agents choose their own task
// ids: the caller's task keeps its id, the remote one goes in `metadata.a2a_remote` and in a
// local-to-remote map (1 hour, 1,024 tasks, oldest first) that cancellation by local id uses.
import { create, fromJson, type JsonValue, type MessageInitShape } from '@bufbuild/protobuf';
import { agentOperations } from '../../../generated/operations/agent.js';
import type { CallOptions, OperationSpec } from '../../../generated/operations/spec.js';
import type { Task as NativeTask, StreamEvent } from '../../../generated/types/index.js';
import {
  AgentCardSchema,
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  type AgentCard,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { nowIso } from '../../core/clock.js';
import { prepareTask, transition } from '../../core/task-lifecycle.js';
import { createTransport } from '../../transport/factory.js';
import type { Transport, TransportOptions } from '../../transport/transport.js';
import { messageFromA2a, messageToA2a } from '../model/messages.js';
import { applyRemoteTask, REMOTE_KEY, remoteRecord, type RemoteRecord } from '../model/tasks.js';
import type { A2aBindingClient, A2aBindingName } from './binding.js';
import { chooseInterface } from './binding-choice.js';
import { BoundedCache } from './bounded-cache.js';
import { A2aClientError } from './errors.js';
import { GrpcClient } from './grpc.js';
import { withIdleDeadline } from './idle-deadline.js';
import { JsonRpcClient } from './jsonrpc.js';
import { RestClient } from './rest.js';
import { StreamFolder } from './stream-events.js';

const TASK_ID_MAP_TTL_MS = 3_600_000;
const TASK_ID_MAP_MAX = 1024;

export interface A2aPeerOptions {
  readonly transportOptions?: TransportOptions;
  /** Trust an interface the card advertises on another origin. Default false. */
  readonly allowCrossOrigin?: boolean;
  /** Use this binding only (the card must offer it); default: the card's first that parley speaks. */
  readonly binding?: A2aBindingName;
}

/** Where a local task lives on the peer. */
interface RemoteTask {
  readonly taskId: string;
  readonly contextId: string;
}

/** The peer as its card describes it, and the client of the chosen interface. */
interface Connection {
  readonly client: A2aBindingClient;
  readonly streaming: boolean;
}

export class A2aPeer {
  /** Local task id to remote task, for cancellation by local id. */
  readonly taskIds = new BoundedCache<string, RemoteTask>({ ttlMs: TASK_ID_MAP_TTL_MS, maxEntries: TASK_ID_MAP_MAX });
  private cardTransport: Transport | null = null;
  private connection: Promise<Connection> | null = null;

  constructor(
    readonly url: string,
    private readonly options: A2aPeerOptions = {},
  ) {}

  /** The binding in use and its URL, once the card has been read. */
  async binding(options?: CallOptions): Promise<{ binding: A2aBindingName; url: string; streaming: boolean }> {
    const { client, streaming } = await this.resolve(options);
    return { binding: client.binding, url: client.url, streaming };
  }

  /** Sends the task's latest user message; answers the task updated with the agent's answer. */
  async sendTask(input: NativeTask, options?: CallOptions): Promise<NativeTask> {
    const task = prepareTask(structuredClone(input));
    const request = this.messageRequest(task);
    const { client } = await this.resolve(options);
    const response = await client.sendMessage(request, options);
    if (response.payload.case === 'task') {
      this.remember(task, response.payload.value, client.url);
    } else if (response.payload.case === 'message') {
      const reply = response.payload.value;
      task.messages!.push(messageFromA2a(reply, '/message'));
      const record: RemoteRecord = {
        url: client.url,
        task_id: '',
        context_id: reply.contextId,
        state: 'message',
        status_timestamp: null,
      };
      task.metadata![REMOTE_KEY] = record;
      transition(task, 'completed', null, nowIso());
    } else {
      throw new A2aClientError('a2a_invalid_response', 'SendMessage answered neither a task nor a message');
    }
    return task;
  }

  /**
   * Sends the task's latest user message and yields native events until `task_completed`: over
   * SendStreamingMessage when the card offers streaming, else one blocking SendMessage whose
   * answer is the one `task_completed` event (as a native peer without streams answers).
   */
  async *streamTask(input: NativeTask, options?: CallOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const { client, streaming } = await this.resolve(options);
    if (!streaming) {
      const task = await this.sendTask(input, options);
      yield { type: 'task_completed', task_id: task.id, timestamp: nowIso(), state: task.state ?? 'completed', task };
      return;
    }
    const task = prepareTask(structuredClone(input));
    const folder = new StreamFolder(task, client.url, this.maxTaskBytes());
    const request = this.messageRequest(task);
    yield* this.follow(folder, (call) => client.sendStreamingMessage(request, call), options, 'SendStreamingMessage');
  }

  /**
   * Follows a task the client may not have started (SubscribeToTask): `taskId` is a local id
   * this client sent, or the agent's own task id. Yields the task as it is now (`task_status`),
   * then its events until `task_completed`. The agent must offer streaming.
   */
  async *subscribe(taskId: string, options?: CallOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const { client, streaming } = await this.resolve(options);
    if (!streaming) {
      throw new A2aClientError(
        'a2a_streaming_unsupported',
        `the agent at ${this.url} does not stream (capabilities.streaming is false); poll getTask instead`,
      );
    }
    const remoteId = this.taskIds.get(taskId)?.taskId ?? taskId;
    const folder = new StreamFolder(prepareTask({ id: taskId }), client.url, this.maxTaskBytes());
    const request = create(SubscribeToTaskRequestSchema, { id: remoteId });
    yield* this.follow(folder, (call) => client.subscribeToTask(request, call), options, 'SubscribeToTask');
  }

  /** The agent's task by its own id (GetTask), as the agent sends it. */
  async getTask(taskId: string, options?: CallOptions & { historyLength?: number }): Promise<Task> {
    const { client } = await this.resolve(options);
    return client.getTask(create(GetTaskRequestSchema, { id: taskId, historyLength: options?.historyLength }), options);
  }

  /** The agent's tasks (ListTasks), filtered and paged as the request says. */
  async listTasks(
    request: MessageInitShape<typeof ListTasksRequestSchema> = {},
    options?: CallOptions,
  ): Promise<ListTasksResponse> {
    const { client } = await this.resolve(options);
    return client.listTasks(create(ListTasksRequestSchema, request) as ListTasksRequest, options);
  }

  /** Cancels the remote twin of a local task; a2a_unknown_task when there is no mapping. */
  async cancel(localId: string, reason?: string, options?: CallOptions): Promise<NativeTask> {
    const remote = this.taskIds.get(localId);
    if (!remote) {
      throw new A2aClientError(
        'a2a_unknown_task',
        `no A2A task is known for local task ${localId} (never sent here, or forgotten after an hour)`,
      );
    }
    const { client } = await this.resolve(options);
    const request = create(CancelTaskRequestSchema, { id: remote.taskId, metadata: reason ? { reason } : undefined });
    const remoteTask = await client.cancelTask(request, options);
    return applyRemoteTask(prepareTask({ id: localId }), remoteTask, client.url);
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    const cardTransport = this.cardTransport;
    this.cardTransport = null;
    const client = connection ? await connection.then((resolved) => resolved.client).catch(() => null) : null;
    await Promise.all([cardTransport?.stop(), client?.close()]);
  }

  private messageRequest(task: NativeTask): SendMessageRequest {
    const latest = [...task.messages!].reverse().find((message) => message.role === 'user' || message.role === 'system');
    if (!latest) throw new A2aClientError('a2a_invalid_response', `task ${task.id} has no user message to send`);
    const known = this.taskIds.get(task.id) ?? remoteOf(task);
    return create(SendMessageRequestSchema, {
      message: messageToA2a(latest, known?.taskId ?? '', known?.contextId ?? ''),
      configuration: { returnImmediately: false, acceptedOutputModes: [] },
    });
  }

  private remember(task: NativeTask, remote: Task, url: string): void {
    applyRemoteTask(task, remote, url);
    this.taskIds.set(task.id, { taskId: remote.id, contextId: remote.contextId });
  }

  /**
   * Folds a stream into native events; a stream that stops before a final state is an error.
   * Between two events the stream may wait `timeoutMs`, else the transport's `timeout`.
   */
  private async *follow(
    folder: StreamFolder,
    open: (options: CallOptions) => AsyncIterable<StreamResponse>,
    options: CallOptions | undefined,
    method: string,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const idleMs = options?.timeoutMs ?? this.cardTransport!.config.timeout * 1000;
    for await (const response of withIdleDeadline(open, options, idleMs, `${method} from ${this.url}`)) {
      const events = folder.fold(response);
      const record = remoteRecord(folder.task);
      if (record?.task_id && !this.taskIds.get(folder.task.id)) {
        this.taskIds.set(folder.task.id, { taskId: record.task_id, contextId: record.context_id });
      }
      yield* events;
      if (folder.done) return;
    }
    throw new A2aClientError('a2a_invalid_response', `the ${method} stream ended before the task reached a final state`);
  }

  /**
   * The most a stream may fold into its task: max_response_bytes, what a blocking SendMessage's
   * answer could hold (each event is bounded on its own by max_event_bytes, but not their sum).
   */
  private maxTaskBytes(): number {
    return this.cardTransport!.config.limits.maxResponseBytes;
  }

  /** Fetches and checks the card, once (a failed attempt is tried again next time). */
  private resolve(options?: CallOptions): Promise<Connection> {
    this.connection ??= this.connect(options).catch((error: unknown) => {
      this.connection = null;
      throw error;
    });
    return this.connection;
  }

  private async connect(options?: CallOptions): Promise<Connection> {
    const transportOptions = this.options.transportOptions;
    const cardTransport = (this.cardTransport ??= await createTransport('http', this.url, transportOptions));
    const cardSpec = agentOperations.getA2ACard as OperationSpec;
    const cardUrl = `${this.url.replace(/\/$/, '')}${cardSpec.path}`;
    const json = await cardTransport.unary(cardSpec, undefined, options);
    let card: AgentCard;
    try {
      card = fromJson(AgentCardSchema, json as JsonValue, { ignoreUnknownFields: true });
    } catch (error) {
      throw new A2aClientError('a2a_incompatible_card', `${cardUrl} is not an A2A 1.0 agent card: ${(error as Error).message}`);
    }
    const chosen = chooseInterface(card, cardUrl, {
      force: this.options.binding,
      allowCrossOrigin: this.options.allowCrossOrigin,
    });
    const streaming = card.capabilities?.streaming === true;
    if (chosen.binding === 'GRPC') return { client: new GrpcClient(cardTransport, chosen.url), streaming };
    const target = new URL(chosen.url);
    const transport = await createTransport('http', `${target.protocol}//${target.host}`, transportOptions);
    const client =
      chosen.binding === 'JSONRPC' ? new JsonRpcClient(transport, target.href) : new RestClient(transport, target.href);
    return { client, streaming };
  }
}

function remoteOf(task: NativeTask): RemoteTask | undefined {
  const record = remoteRecord(task);
  return record?.task_id ? { taskId: record.task_id, contextId: record.context_id } : undefined;
}
