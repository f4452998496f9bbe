// AgentClient: talk to one agent over any transport. The transport follows from the URL
// scheme (http/https: http, ws/wss: websocket, grpc/grpcs: grpc, runtime: runtime) unless
// named; pass `transport: 'sse'` for streams over plain HTTP.
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
import { createTransport, transportForScheme } from '../transport/factory.js';
import type { OutboundOptions } from '../transport/outbound.js';
import type { Transport, TransportOptions } from '../transport/transport.js';

export interface AgentClientOptions extends TransportOptions {
  /** Transport name; by default inferred from the URL scheme. */
  readonly transport?: string;
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

  constructor(
    readonly url: string,
    private readonly options: AgentClientOptions = {},
  ) {
    transportForUrl(url, options.transport);
  }

  /** The underlying transport, created on first use. */
  transport(): Promise<Transport> {
    const { transport: name, ...options } = this.options;
    this.transportPromise ??= createTransport(transportForUrl(this.url, name), this.url, options);
    return this.transportPromise;
  }

  /** Submits a task (or a text, which becomes a one-message task) and returns it with its artifacts. */
  sendTask(task: Task | string, options?: OutboundOptions): Promise<Task> {
    return this.withApi((api) => api.sendTask(toTask(task), options));
  }

  /** Sends a message and returns the agent's answering message. */
  async sendMessage(message: string | Omit<Message, 'role'> & Partial<Pick<Message, 'role'>>, options?: OutboundOptions): Promise<Message> {
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

  /** Cancels an active task; returns the updated task. */
  cancel(taskId: string, reason?: string, options?: OutboundOptions): Promise<Task> {
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
    this.transportPromise = null;
    this.operations = null;
    if (pending) await (await pending).stop();
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
    throw new InvalidArgumentError(`cannot tell the transport from ${JSON.stringify(url)}; pass options.transport`, 'invalid_url');
  }
  return implied;
}

function toTask(task: Task | string): Task {
  if (typeof task !== 'string') return task;
  return { id: newId(), messages: [{ id: newId(), role: 'user', parts: [{ type: 'text', content: task }], timestamp: nowIso() }] };
}
