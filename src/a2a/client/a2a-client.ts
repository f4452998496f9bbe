// parley's outbound A2A 1.0 client for one peer: it fetches and checks the standard card,
// picks a JSON-RPC 1.0 interface on the card's own origin (unless told to trust others), and
// sends native tasks as A2A SendMessage calls. A2A agents choose their own task ids: the
// caller's task keeps its id, the remote one goes in `metadata.a2a_remote` and in a
// local-to-remote map (1 hour, 1,024 tasks, oldest first) that cancellation by local id uses.
import { create, fromJson, type JsonValue } from '@bufbuild/protobuf';
import { agentOperations } from '../../../generated/operations/agent.js';
import type { CallOptions, OperationSpec } from '../../../generated/operations/spec.js';
import type { Task as NativeTask } from '../../../generated/types/index.js';
import {
  AgentCardSchema,
  CancelTaskRequestSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  TaskSchema,
  type AgentCard,
  type AgentInterface,
  type SendMessageResponse,
  type Task,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { toJson } from '@bufbuild/protobuf';
import { nowIso } from '../../core/clock.js';
import { prepareTask, transition } from '../../core/task-lifecycle.js';
import { createTransport } from '../../transport/factory.js';
import type { Transport, TransportOptions } from '../../transport/transport.js';
import { A2A_CALL_SPANS } from '../jsonrpc/spans.js';
import { A2A_PROTOCOL_VERSION, JSONRPC_BINDING } from '../card/agent-card.js';
import { BoundedCache } from './bounded-cache.js';
import { A2aClientError } from './errors.js';
import { messageFromA2a, messageToA2a } from '../model/messages.js';
import { sameOrigin } from './same-origin.js';
import { applyRemoteTask, REMOTE_KEY, remoteRecord, type RemoteRecord } from '../model/tasks.js';

const TASK_ID_MAP_TTL_MS = 3_600_000;
const TASK_ID_MAP_MAX = 1024;

export interface A2aPeerOptions {
  readonly transportOptions?: TransportOptions;
  /** Trust a JSON-RPC interface the card advertises on another origin. Default false. */
  readonly allowCrossOrigin?: boolean;
}

/** Where a local task lives on the peer. */
interface RemoteTask {
  readonly taskId: string;
  readonly contextId: string;
}

interface Endpoint {
  readonly transport: Transport;
  readonly spec: OperationSpec;
  readonly url: string;
}

let nextRpcId = 1;

export class A2aPeer {
  /** Local task id to remote task, for cancellation by local id. */
  readonly taskIds = new BoundedCache<string, RemoteTask>({ ttlMs: TASK_ID_MAP_TTL_MS, maxEntries: TASK_ID_MAP_MAX });
  private cardTransport: Transport | null = null;
  private endpoint: Promise<Endpoint> | null = null;

  constructor(
    readonly url: string,
    private readonly options: A2aPeerOptions = {},
  ) {}

  /** Sends the task's latest user message; answers the task updated with the agent's answer. */
  async sendTask(input: NativeTask, options?: CallOptions): Promise<NativeTask> {
    const task = prepareTask(structuredClone(input));
    const latest = [...task.messages!].reverse().find((message) => message.role === 'user' || message.role === 'system');
    if (!latest) throw new A2aClientError('a2a_invalid_response', `task ${task.id} has no user message to send`);
    const known = this.taskIds.get(task.id) ?? remoteOf(task);
    const request = create(SendMessageRequestSchema, {
      message: messageToA2a(latest, known?.taskId ?? '', known?.contextId ?? ''),
      configuration: { returnImmediately: false, acceptedOutputModes: [] },
    });
    const endpoint = await this.resolve(options);
    const result = await this.call(endpoint, 'SendMessage', toJson(SendMessageRequestSchema, request), options);
    let response: SendMessageResponse;
    try {
      response = fromJson(SendMessageResponseSchema, result as JsonValue, { ignoreUnknownFields: true });
    } catch (error) {
      throw new A2aClientError(
        'a2a_invalid_response',
        `SendMessage answered something that is not a SendMessageResponse: ${(error as Error).message}`,
      );
    }
    if (response.payload.case === 'task') {
      const remote = response.payload.value;
      applyRemoteTask(task, remote, endpoint.url);
      this.taskIds.set(task.id, { taskId: remote.id, contextId: remote.contextId });
    } else if (response.payload.case === 'message') {
      const reply = response.payload.value;
      task.messages!.push(messageFromA2a(reply, '/message'));
      const record: RemoteRecord = {
        url: endpoint.url,
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

  /** Cancels the remote twin of a local task; a2a_unknown_task when there is no mapping. */
  async cancel(localId: string, reason?: string, options?: CallOptions): Promise<NativeTask> {
    const remote = this.taskIds.get(localId);
    if (!remote) {
      throw new A2aClientError(
        'a2a_unknown_task',
        `no A2A task is known for local task ${localId} (never sent here, or forgotten after an hour)`,
      );
    }
    const endpoint = await this.resolve(options);
    const params = toJson(
      CancelTaskRequestSchema,
      create(CancelTaskRequestSchema, { id: remote.taskId, metadata: reason ? { reason } : undefined }),
    );
    const result = await this.call(endpoint, 'CancelTask', params, options);
    let remoteTask: Task;
    try {
      remoteTask = fromJson(TaskSchema, result as JsonValue, { ignoreUnknownFields: true });
    } catch (error) {
      throw new A2aClientError(
        'a2a_invalid_response',
        `CancelTask answered something that is not a Task: ${(error as Error).message}`,
      );
    }
    return applyRemoteTask(prepareTask({ id: localId }), remoteTask, endpoint.url);
  }

  async close(): Promise<void> {
    const endpoint = this.endpoint;
    this.endpoint = null;
    const transports = [this.cardTransport];
    this.cardTransport = null;
    if (endpoint) transports.push(await endpoint.then((resolved) => resolved.transport).catch(() => null));
    await Promise.all(transports.map((transport) => transport?.stop()));
  }

  /** Fetches and checks the card, once (a failed attempt is tried again next time). */
  private resolve(options?: CallOptions): Promise<Endpoint> {
    this.endpoint ??= this.fetchEndpoint(options).catch((error: unknown) => {
      this.endpoint = null;
      throw error;
    });
    return this.endpoint;
  }

  private async fetchEndpoint(options?: CallOptions): Promise<Endpoint> {
    const cardTransport = (this.cardTransport ??= await createTransport('http', this.url, this.options.transportOptions));
    const cardSpec = agentOperations.getA2ACard as OperationSpec;
    const cardUrl = `${this.url.replace(/\/$/, '')}${cardSpec.path}`;
    const json = await cardTransport.unary(cardSpec, undefined, options);
    let card: AgentCard;
    try {
      card = fromJson(AgentCardSchema, json as JsonValue, { ignoreUnknownFields: true });
    } catch (error) {
      throw new A2aClientError('a2a_incompatible_card', `${cardUrl} is not an A2A 1.0 agent card: ${(error as Error).message}`);
    }
    const chosen = card.supportedInterfaces.find(isJsonRpc10);
    if (!chosen)
      throw new A2aClientError(
        'a2a_incompatible_card',
        `the card at ${cardUrl} offers no JSONRPC interface for A2A ${A2A_PROTOCOL_VERSION}`,
      );
    if (!this.options.allowCrossOrigin && !sameOrigin(cardUrl, chosen.url)) {
      throw new A2aClientError(
        'a2a_cross_origin',
        `the card at ${cardUrl} advertises its JSON-RPC interface on another origin (${chosen.url}); refused`,
      );
    }
    const target = new URL(chosen.url, cardUrl);
    const origin = `${target.protocol}//${target.host}`;
    const transport = await createTransport('http', origin, this.options.transportOptions);
    const spec: OperationSpec = { ...(agentOperations.a2aJsonRpc as OperationSpec), path: target.pathname || '/' };
    return { transport, spec, url: target.href };
  }

  /** One JSON-RPC call; a JSON-RPC error becomes an A2aClientError with the peer's code. */
  private async call(endpoint: Endpoint, method: string, params: unknown, options?: CallOptions): Promise<unknown> {
    const id = nextRpcId++;
    const headers = { ...options?.headers, 'a2a-version': A2A_PROTOCOL_VERSION };
    const answer = (await endpoint.transport.unary(
      endpoint.spec,
      { jsonrpc: '2.0', id, method, params },
      { ...options, headers, spans: A2A_CALL_SPANS },
    )) as Record<string, unknown>;
    if (!answer || typeof answer !== 'object' || answer.jsonrpc !== '2.0') {
      throw new A2aClientError('a2a_invalid_response', `${method} answered something that is not a JSON-RPC 2.0 response`);
    }
    const error = answer.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (error) {
      const code = typeof error.code === 'number' ? error.code : null;
      throw new A2aClientError(
        'a2a_rpc_error',
        `${method} failed: ${String(error.message ?? 'no message')} (JSON-RPC ${code})`,
        code,
        error.data,
      );
    }
    if (answer.id !== id)
      throw new A2aClientError('a2a_invalid_response', `${method} answered with id ${JSON.stringify(answer.id)}, not ${id}`);
    return answer.result;
  }
}

function isJsonRpc10(entry: AgentInterface): boolean {
  return entry.protocolBinding.toUpperCase() === JSONRPC_BINDING && /^1\.0(\.\d+)?$/.test(entry.protocolVersion.trim());
}

function remoteOf(task: NativeTask): RemoteTask | undefined {
  const record = remoteRecord(task);
  return record?.task_id ? { taskId: record.task_id, contextId: record.context_id } : undefined;
}
