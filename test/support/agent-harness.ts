// Test harness for the agent server: starts an AgentServer on a real transport (a socket on
// 127.0.0.1 for `http`, a process-local `runtime://` target otherwise), gives back a typed
// client for it, and helpers the agent tests share: a deterministic language model, promises
// the test controls, raw HTTP, and schema assertions. No mocks: every call crosses the wire.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { agentOperations } from '../../generated/operations/agent.js';
import type { Task, TaskState } from '../../generated/types/index.js';
import { validate, type NativeSchemaName } from '../../generated/validators/index.js';
import { AgentServer, type AgentServerOptions } from '../../src/agent/agent-server.js';
import type { ChatTurn, CompletionOptions, LanguageModel } from '../../src/llm/language-model.js';
import type { TransportBinding, TransportServer } from '../../src/transport/binding.js';
import type { Dispatcher } from '../../src/transport/dispatcher.js';
import { createTransport, loadBinding } from '../../src/transport/factory.js';
import { Transport, type TransportOptions } from '../../src/transport/transport.js';

export type TransportKind = 'http' | 'runtime';

/** Every agent test runs over both of these, unless a row is transport-specific. */
export const TRANSPORTS: readonly TransportKind[] = ['http', 'runtime'];

let counter = 0;

/** A fresh listen URL: port 0 for http, a unique name for runtime. */
export function listenUrl(kind: TransportKind): string {
  return kind === 'http' ? 'http://127.0.0.1:0' : `runtime://agent-test-${process.pid}-${++counter}-${randomUUID().slice(0, 8)}`;
}

export interface Harness {
  readonly kind: TransportKind;
  readonly agent: AgentServer;
  /** Typed client over a client transport of the same kind, pointed at the agent. */
  readonly client: AgentOperationsClient;
  /** The client's transport (for calls with options the generated client does not type). */
  readonly clientTransport: Transport;
  /** The address the agent actually listens on. */
  readonly url: string;
  /** Another independent client (a second caller), created on demand and closed with the harness. */
  newClient(options?: TransportOptions): Promise<AgentOperationsClient>;
  /** Stops the clients and the agent. Safe to repeat. */
  close(): Promise<void>;
}

export type HarnessOptions = Omit<AgentServerOptions, 'name' | 'transport' | 'url'> & { name?: string };

/** Starts an agent on `kind` with `options` and connects a client to it. */
export async function startAgent(
  kind: TransportKind,
  options: HarnessOptions = {},
  clientOptions: TransportOptions = {},
): Promise<Harness> {
  const agent = new AgentServer({ name: 'test-agent', ...options, transport: kind, url: listenUrl(kind) });
  await agent.start();
  const clients: Transport[] = [];
  const newTransport = async (opts: TransportOptions) => {
    const transport = await createTransport(kind, agent.url, opts);
    clients.push(transport);
    return transport;
  };
  const clientTransport = await newTransport(clientOptions);
  return {
    kind,
    agent,
    client: new AgentOperationsClient(clientTransport),
    clientTransport,
    url: agent.url,
    newClient: async (opts = {}) => new AgentOperationsClient(await newTransport(opts)),
    close: async () => {
      for (const transport of clients) await transport.stop();
      await agent.stop();
    },
  };
}

/** Submits a task with an explicit idempotency key, bypassing the one derived from its id. */
export function sendTaskWithKey(transport: Transport, task: Task, idempotencyKey: string): Promise<Task> {
  return transport.unary(agentOperations.sendTask, task, { idempotencyKey }) as Promise<Task>;
}

// --- tasks ---

export function userTask(id: string, text: string, extra: Partial<Task> = {}): Task {
  return { id, messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }], ...extra };
}

export function uniqueId(prefix = 'task'): string {
  return `${prefix}-${randomUUID()}`;
}

export function historyStates(task: Task): TaskState[] {
  return (task.metadata?.state_history ?? []).map((entry) => entry.state);
}

/** Texts of a list of parts (or of a message's / artifact's parts). */
export function texts(parts: ReadonlyArray<{ type: string; content?: unknown }> | undefined): string[] {
  return (parts ?? []).filter((part) => part.type === 'text').map((part) => String(part.content));
}

// --- assertions ---

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function assertIsoTimestamp(value: unknown, what = 'timestamp'): asserts value is string {
  assert.equal(typeof value, 'string', `${what} is a string`);
  assert.match(value as string, ISO_UTC, `${what} is ISO 8601 UTC`);
  assert.ok(!Number.isNaN(Date.parse(value as string)), `${what} parses`);
}

export function assertValid(schema: NativeSchemaName, value: unknown): void {
  const result = validate(schema, value);
  assert.ok(
    result.valid,
    `not a valid ${schema}: ${result.valid ? '' : JSON.stringify(result.errors)}\n${JSON.stringify(value)}`,
  );
}

/** Asserts that `promise` rejects with a transport error carrying this status (and code). */
export async function rejectsWithStatus(promise: Promise<unknown>, status: number, code?: string): Promise<Error> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  const error = caught as Error & { statusCode?: unknown; code?: unknown };
  assert.equal(error.name, 'TransportRemoteError', `expected a remote error, got ${error.name}: ${error.message}`);
  assert.equal(error.statusCode, status, error.message);
  if (code !== undefined) assert.equal(error.code, code, error.message);
  return error;
}

// --- promises the test controls ---

export { aborted, collect, deferred, untilAborted, type Deferred } from './async.js';

// --- a deterministic language model ---

/**
 * Replies `echo: <last user turn>`; streams the same reply word by word (the pieces concatenate
 * to the whole). Records every conversation it was given.
 */
export class EchoModel implements LanguageModel {
  readonly calls: ChatTurn[][] = [];

  constructor(readonly name = 'echo-model') {}

  reply(turns: readonly ChatTurn[]): string {
    const last = [...turns].reverse().find((turn) => turn.role === 'user');
    return `echo: ${last?.content ?? ''}`;
  }

  async complete(turns: readonly ChatTurn[], options?: CompletionOptions): Promise<string> {
    options?.signal?.throwIfAborted();
    this.calls.push([...turns]);
    return this.reply(turns);
  }

  async *stream(turns: readonly ChatTurn[], options?: CompletionOptions): AsyncIterable<string> {
    this.calls.push([...turns]);
    const words = this.reply(turns).split(' ');
    for (let i = 0; i < words.length; i++) {
      options?.signal?.throwIfAborted();
      yield i < words.length - 1 ? `${words[i]} ` : words[i]!;
    }
  }
}

// --- bindings with hooks, for lifecycle tests ---

export interface BindingHooks {
  /** Runs before the real server listens; may block to hold start() in progress. */
  beforeListen?(dispatcher: Dispatcher): Promise<void> | void;
  /** Runs after the real server closed; a rejection makes stop() fail. */
  afterClose?(): Promise<void> | void;
}

/** The real binding of `kind`, with hooks around listen and close. Counts listens. */
export async function hookedBinding(kind: TransportKind, hooks: BindingHooks): Promise<TransportBinding & { listens: number }> {
  const base = await loadBinding(kind);
  const binding = {
    name: base.name,
    schemes: base.schemes,
    capabilities: base.capabilities,
    listens: 0,
    createClient: base.createClient.bind(base),
    createServer(context: Parameters<TransportBinding['createServer']>[0]): TransportServer {
      const real = base.createServer(context);
      return {
        async listen(url: string, dispatcher: Dispatcher) {
          binding.listens++;
          await hooks.beforeListen?.(dispatcher);
          return real.listen(url, dispatcher);
        },
        async close() {
          await real.close();
          await hooks.afterClose?.();
        },
      };
    },
  };
  return binding;
}

// --- raw HTTP ---

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json(): any;
}

export interface RawRequest {
  readonly method?: string;
  readonly path: string;
  /** Sent as is: a string or Buffer, or chunks written one by one (chunked encoding). */
  readonly body?: string | Buffer | readonly (string | Buffer)[];
  readonly headers?: Record<string, string>;
}

/** One request over node:http on a fresh connection, whatever the answer. */
export function rawHttp(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const target = new URL(request.path, baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(request.headers ?? {}) };
    const body = request.body;
    if (typeof body === 'string' || Buffer.isBuffer(body)) headers['content-length'] = Buffer.byteLength(body);
    const req = httpRequest(target, { method: request.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    // The server may answer (413) and close before it read the whole body: that is fine.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (Array.isArray(body)) {
      for (const chunk of body) req.write(chunk);
      req.end();
    } else {
      req.end(body as string | Buffer | undefined);
    }
  });
}

export { Transport };
