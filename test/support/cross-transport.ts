// Shared pieces of the cross-transport suite: the five transports and a listen URL for each,
// an agent server with clients that are all stopped together, a raw endpoint-table server,
// promises the test controls, and small assertion helpers. No mocks: every call crosses the
// real wire of its transport (or the process-local runtime registry).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Task, TaskState } from '../../generated/types/index.js';
import { validate, type NativeSchemaName } from '../../generated/validators/index.js';
import { AgentServer, type AgentServerOptions } from '../../src/agent/agent-server.js';
import { AgentClient, type AgentClientOptions } from '../../src/client/agent-client.js';
import type { TransportBinding } from '../../src/transport/binding.js';
import type { EndpointTable } from '../../src/transport/endpoint.js';
import { createTransport, loadBinding } from '../../src/transport/factory.js';
import { Transport, type TransportOptions } from '../../src/transport/transport.js';

export type TransportKind = 'http' | 'sse' | 'websocket' | 'grpc' | 'runtime';

/** Every scenario runs over each of these. */
export const TRANSPORTS: readonly TransportKind[] = ['http', 'sse', 'websocket', 'grpc', 'runtime'];

let counter = 0;

/** A fresh listen URL: port 0 on the loopback for networked transports, a unique runtime name. */
export function listenUrl(kind: TransportKind): string {
  switch (kind) {
    case 'http':
    case 'sse':
      return 'http://127.0.0.1:0';
    case 'websocket':
      return 'ws://127.0.0.1:0';
    case 'grpc':
      return 'grpc://127.0.0.1:0';
    case 'runtime':
      return `runtime://cross-${process.pid}-${++counter}-${randomUUID().slice(0, 8)}`;
  }
}

export type FixtureAgentOptions = Omit<AgentServerOptions, 'name' | 'transport' | 'url'> & {
  name?: string;
  /**
   * Told of every request the server's transport routes (method and path), when it looks the
   * endpoint up, before the request waits for any slot. On gRPC that lookup is the only sign of
   * a call waiting for one of the `maximum_concurrent_rpcs`: the dispatcher's metrics count a
   * call only once it has one.
   */
  onRoute?: (method: string, path: string) => void;
};

/** The real binding of `kind`, telling `onRoute` about each endpoint lookup of its servers. */
async function routeObservingBinding(
  kind: TransportKind,
  onRoute: (method: string, path: string) => void,
): Promise<TransportBinding> {
  const base = await loadBinding(kind);
  return {
    name: base.name,
    schemes: base.schemes,
    capabilities: base.capabilities,
    createClient: (context) => base.createClient(context),
    createServer(context) {
      const server = base.createServer(context);
      return {
        listen(url, dispatcher) {
          const route = dispatcher.route.bind(dispatcher);
          dispatcher.route = (method, path) => {
            onRoute(method, path);
            return route(method, path);
          };
          return server.listen(url, dispatcher);
        },
        close: () => server.close(),
      };
    },
  };
}

/** Something a scenario must stop before it ends. */
interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Everything one test starts. `close()` stops clients first, then servers; it is registered
 * with `t.after`, so a failing assertion still stops them all.
 */
export class Fixture {
  private readonly clients: AgentClient[] = [];
  private readonly servers: Stoppable[] = [];

  /** `signal`: the test's own, aborted when the test ends or times out. */
  constructor(
    readonly kind: TransportKind,
    readonly signal: AbortSignal,
  ) {}

  /** Starts an AgentServer on this fixture's transport. */
  async agent({ onRoute, ...options }: FixtureAgentOptions = {}): Promise<AgentServer> {
    const url = listenUrl(this.kind);
    // With onRoute, the agent gets a ready transport, built as AgentServer would build it.
    const transport = onRoute
      ? new Transport(await routeObservingBinding(this.kind, onRoute), url, {
          ...options.transportOptions,
          authenticator: options.authenticator,
        })
      : this.kind;
    const agent = new AgentServer({ name: 'cross-agent', ...options, transport, url });
    this.servers.push(agent);
    await agent.start();
    return agent;
  }

  /** Starts a bare transport serving `endpoints` (no agent around it). */
  async raw(endpoints: EndpointTable, options: TransportOptions = {}): Promise<Transport> {
    const transport = await createTransport(this.kind, listenUrl(this.kind), options);
    this.servers.push(transport);
    await transport.start(endpoints);
    return transport;
  }

  /** A client for `url`, naming its transport (sse and http share a scheme). */
  client(url: string, options: Omit<AgentClientOptions, 'transport'> = {}): AgentClient {
    // The native contract on every wire: no A2A probe before the first call (protocol auto would
    // ask http peers for their card first, which the request-counting scenarios would see).
    const client = new AgentClient(url, { protocol: 'parley', ...options, transport: this.kind });
    this.clients.push(client);
    return client;
  }

  async close(): Promise<void> {
    const failures: unknown[] = [];
    for (const client of this.clients.splice(0)) await client.close().catch((error: unknown) => failures.push(error));
    for (const server of this.servers.splice(0)) await server.stop().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  }
}

// --- tasks ---

export function uniqueId(prefix = 'task'): string {
  return `${prefix}-${randomUUID()}`;
}

export function userTask(id: string, text: string): Task {
  return { id, messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }] };
}

export function historyStates(task: Task): TaskState[] {
  return (task.metadata?.state_history ?? []).map((entry) => entry.state);
}

export function texts(parts: ReadonlyArray<{ type: string; content?: unknown }> | undefined): string[] {
  return (parts ?? []).filter((part) => part.type === 'text').map((part) => String(part.content));
}

// --- assertions ---

export function assertValid(schema: NativeSchemaName, value: unknown): void {
  const result = validate(schema, value);
  assert.ok(
    result.valid,
    `not a valid ${schema}: ${result.valid ? '' : JSON.stringify(result.errors)}\n${JSON.stringify(value)}`,
  );
}

/** Awaits `work`, which must fail; returns what it threw. */
export async function failure(work: Promise<unknown> | (() => Promise<unknown>)): Promise<Error & Record<string, any>> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    assert.ok(error instanceof Error, `threw a non-Error: ${String(error)}`);
    return error as Error & Record<string, any>;
  }
  assert.fail('expected a failure, but the call succeeded');
}

/** Asserts the error's class (by constructor) and, when given, its code. */
export function assertError(error: Error, type: abstract new (...args: any[]) => Error, code?: string): void {
  assert.ok(error instanceof type, `expected ${type.name}, got ${error.name}: ${error.message}`);
  if (code !== undefined) assert.equal((error as { code?: unknown }).code, code, `${error.name}: ${error.message}`);
}

export { collect, deferred, untilAborted } from './async.js';
