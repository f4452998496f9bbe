// AgentClient: talk to one agent over any transport. The transport follows from the URL
// scheme (http/https: http, ws/wss: websocket, grpc/grpcs: grpc, runtime: runtime) unless
// named; pass `transport: 'sse'` for streams over plain HTTP. Over http the peer may be an A2A
// 1.0 agent instead: `protocol` (default `auto`) says how tasks and cancellations go out.
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import type {
  AgentCard,
  ChatResponse,
  CompactHistoryRequest,
  CompactHistoryResult,
  Health,
  Message,
  StateRequest,
  StateResult,
  StreamEvent,
  Task,
} from '../../generated/types/index.js';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
import { observabilityHooks } from '../observability/hooks.js';
import { createTransport, transportForScheme } from '../transport/factory.js';
import type { OutboundOptions } from '../transport/outbound.js';
import type { Transport, TransportOptions } from '../transport/transport.js';
import { A2aPeer } from '../a2a/client/a2a-client.js';
import {
  checkProtocolOption,
  probeProtocol,
  PROTOCOL_CHOICE_TTL_MS,
  type PeerProtocol,
  type ProtocolOption,
} from '../a2a/client/protocol-choice.js';

export interface AgentClientOptions extends TransportOptions {
  /** Transport name; by default inferred from the URL scheme. */
  readonly transport?: string;
  /**
   * How tasks, messages and cancellations go out. `auto` (the default) asks an http(s) peer
   * for its native card and falls back to A2A 1.0 only on a 404 or 405 (the choice is kept 5
   * minutes); `parley` (or `native`) always uses the native routes; `a2a` always A2A JSON-RPC.
   * Other transports are always native.
   */
  readonly protocol?: ProtocolOption;
  /** Trust an A2A JSON-RPC interface the card advertises on another origin. Default false. */
  readonly a2aAllowCrossOrigin?: boolean;
}

/** A task that ended `failed`, raised by sendMessage (sendTask returns failed tasks as they are). */
export class TaskFailedError extends Error {
  readonly code = 'task_failed';
  constructor(readonly task: Task) {
    const reason = task.metadata?.state_history?.at(-1)?.reason;
    super(`task ${task.id} failed${reason ? `: ${reason}` : ''}`);
    this.name = 'TaskFailedError';
  }
}

export class AgentClient {
  private transportPromise: Promise<Transport> | null = null;
  private operations: AgentOperationsClient | null = null;
  private readonly protocolOption: ProtocolOption;
  /** The peer's protocol once known, and until when (auto choices expire). */
  private choice: { protocol: PeerProtocol; until: number } | null = null;
  private a2aPeer: A2aPeer | null = null;

  constructor(
    readonly url: string,
    private readonly options: AgentClientOptions = {},
  ) {
    const name = transportForUrl(url, options.transport);
    this.protocolOption = checkProtocolOption(options.protocol ?? 'auto');
    // Only the http transport can reach an A2A agent; every other one is native.
    if (this.protocolOption === 'parley' || this.protocolOption === 'native' || name.trim().toLowerCase() !== 'http') {
      if (this.protocolOption === 'a2a' && name.trim().toLowerCase() !== 'http') {
        throw new InvalidArgumentError(`protocol a2a needs the http transport, not ${name}`, 'invalid_argument');
      }
      this.choice = { protocol: 'parley', until: Number.POSITIVE_INFINITY };
    } else if (this.protocolOption === 'a2a') {
      this.choice = { protocol: 'a2a', until: Number.POSITIVE_INFINITY };
    }
  }

  /** The underlying transport, created on first use. */
  transport(): Promise<Transport> {
    const { transport: name, protocol: _protocol, a2aAllowCrossOrigin: _crossOrigin, ...options } = this.options;
    this.transportPromise ??= createTransport(transportForUrl(this.url, name), this.url, {
      hooks: observabilityHooks,
      ...options,
    });
    return this.transportPromise;
  }

  /** What the peer speaks: known at once unless `auto` has to ask (or ask again). */
  async protocol(options?: OutboundOptions): Promise<PeerProtocol> {
    const known = this.choice;
    if (known && known.until > Date.now()) return known.protocol;
    const found = await probeProtocol(await this.transport(), options);
    this.choice = { protocol: found, until: Date.now() + PROTOCOL_CHOICE_TTL_MS };
    return found;
  }

  /**
   * Submits a task (or a text, which becomes a one-message task) and returns it with its
   * artifacts. To an A2A agent it goes as SendMessage; the task keeps its id, and the remote
   * task's id, context, state and time are in `metadata.a2a_remote`.
   */
  sendTask(task: Task | string, options?: OutboundOptions): Promise<Task> {
    const known = this.choice;
    if (known?.protocol === 'parley' && known.until > Date.now())
      return this.withApi((api) => api.sendTask(toTask(task), options));
    return this.protocol(options).then((protocol) =>
      protocol === 'a2a'
        ? this.peer().sendTask(toTask(task), options)
        : this.withApi((api) => api.sendTask(toTask(task), options)),
    );
  }

  /** Sends a message and returns the agent's answering message. */
  async sendMessage(
    message: string | (Omit<Message, 'role'> & Partial<Pick<Message, 'role'>>),
    options?: OutboundOptions,
  ): Promise<Message> {
    const userMessage: Message =
      typeof message === 'string'
        ? { id: newId(), role: 'user', parts: [{ type: 'text', content: message }], timestamp: nowIso() }
        : { role: 'user', ...message };
    const task = await this.sendTask({ id: newId(), messages: [userMessage] }, options);
    if (task.state === 'failed') throw new TaskFailedError(task);
    const reply = [...(task.messages ?? [])].reverse().find((m) => m.role === 'agent' || m.role === 'assistant');
    if (reply) return reply;
    // No message, only artifacts: answer with their parts.
    return { id: newId(), role: 'agent', parts: (task.artifacts ?? []).flatMap((a) => a.parts), timestamp: nowIso() };
  }

  /** Submits a task and yields its events; ends with `task_completed`. */
  async *streamTask(task: Task | string, options?: OutboundOptions): AsyncGenerator<StreamEvent, void, undefined> {
    yield* (await this.api()).streamTask(toTask(task), options);
  }

  /**
   * Cancels an active task; returns the updated task. On an A2A agent the local id is looked
   * up in the local-to-remote map (A2aClientError `a2a_unknown_task` when it is not there);
   * it is never sent to the native route.
   */
  async cancel(taskId: string, reason?: string, options?: OutboundOptions): Promise<Task> {
    if ((await this.protocol(options)) === 'a2a') return this.peer().cancel(taskId, reason, options);
    return this.withApi((api) => api.cancelTask({ id: taskId, metadata: reason ? { reason } : {} }, options));
  }

  getCard(options?: OutboundOptions): Promise<AgentCard> {
    return this.withApi((api) => api.getCard(options));
  }

  health(options?: OutboundOptions): Promise<Health> {
    return this.withApi((api) => api.healthz(options));
  }

  readiness(options?: OutboundOptions): Promise<Health> {
    return this.withApi((api) => api.readyz(options));
  }

  compactHistory(request: CompactHistoryRequest, options?: OutboundOptions): Promise<CompactHistoryResult> {
    return this.withApi((api) => api.compactHistory(request, options));
  }

  describeState(request: StateRequest = {}, options?: OutboundOptions): Promise<StateResult> {
    return this.withApi((api) => api.describeState(request, options));
  }

  resetState(request: StateRequest = {}, options?: OutboundOptions): Promise<StateResult> {
    return this.withApi((api) => api.resetState(request, options));
  }

  compactState(request: StateRequest = {}, options?: OutboundOptions): Promise<StateResult> {
    return this.withApi((api) => api.compactState(request, options));
  }

  chat(message: string, sessionId?: string, options?: OutboundOptions): Promise<ChatResponse> {
    return this.withApi((api) => api.chat(sessionId ? { message, session_id: sessionId } : { message }, options));
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    const pending = this.transportPromise;
    const peer = this.a2aPeer;
    this.transportPromise = null;
    this.operations = null;
    this.a2aPeer = null;
    await peer?.close();
    if (pending) await (await pending).stop();
  }

  private peer(): A2aPeer {
    const { transport: _name, protocol: _protocol, a2aAllowCrossOrigin, ...transportOptions } = this.options;
    this.a2aPeer ??= new A2aPeer(this.url, {
      transportOptions: { hooks: observabilityHooks, ...transportOptions },
      allowCrossOrigin: a2aAllowCrossOrigin ?? false,
    });
    return this.a2aPeer;
  }

  private async api(): Promise<AgentOperationsClient> {
    return (this.operations ??= new AgentOperationsClient(await this.transport()));
  }

  /** Calls the typed client; once it exists, without waiting a turn for it. */
  private withApi<T>(use: (api: AgentOperationsClient) => Promise<T>): Promise<T> {
    const ready = this.operations;
    if (!ready) return this.api().then(use);
    try {
      return use(ready);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** The transport a URL implies, or the named one. */
export function transportForUrl(url: string, name?: string): string {
  if (name) return name;
  const implied = transportForScheme(url);
  if (!implied) {
    throw new InvalidArgumentError(
      `cannot tell the transport from ${JSON.stringify(url)}; pass options.transport`,
      'invalid_url',
    );
  }
  return implied;
}

function toTask(task: Task | string): Task {
  if (typeof task !== 'string') return task;
  return {
    id: newId(),
    messages: [{ id: newId(), role: 'user', parts: [{ type: 'text', content: task }], timestamp: nowIso() }],
  };
}
