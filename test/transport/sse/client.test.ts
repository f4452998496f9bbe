// The parley sse client against the parley sse server, over real sockets: events in order,
// errors in the taxonomy, unary calls exactly as on http, health, stream slots, and TLS.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AgentOperationsClient } from '../../../generated/clients/agent.js';
import { agentOperations } from '../../../generated/operations/agent.js';
import type { Task } from '../../../generated/types/index.js';
import type { Authenticator } from '../../../src/auth/authenticator.js';
import { routeKey, type StreamItem } from '../../../src/transport/endpoint.js';
import { TransportLimitError, TransportRemoteError } from '../../../src/transport/errors.js';
import { createTransport } from '../../../src/transport/factory.js';
import type { Transport } from '../../../src/transport/transport.js';
import { aborted, deferred, type Deferred, endpointTable, nextTurn, startServer, taskEvents } from '../../support/sse-peers.js';
import { collect } from '../../support/async.js';
import { makeServerCertificate, type ServerCertificate } from '../../support/certificates.js';

const TIMEOUT = { timeout: 20_000 };
const task: Task = { id: 'task-1', messages: [] };

describe('sse client and server', TIMEOUT, () => {
  let server: Transport;
  const clients: Transport[] = [];
  const hangingAborted = deferred();

  async function client(name = 'sse', options = {}): Promise<Transport> {
    const transport = await createTransport(name, server.url, options);
    clients.push(transport);
    return transport;
  }

  before(async () => {
    server = await startServer({
      limits: { maxEventBytes: 2 * 1024 * 1024 },
      async *stream(data, context): AsyncIterable<StreamItem> {
        const { id, metadata } = data as Task & { metadata?: { count?: number; size?: number } };
        switch (id) {
          case 'explodes':
            yield taskEvents(data as Task)[0]!;
            throw new Error('the engine broke');
          case 'too-big':
            yield { result: { type: 'task_message', padding: 'x'.repeat(3 * 1024 * 1024) }, final: false };
            return;
          case 'large': {
            // Events much larger than a socket buffer: the writer has to wait for drain and
            // the reader has to join frames from many chunks.
            const count = metadata?.count ?? 1;
            for (let n = 0; n < count; n++) {
              yield {
                result: { type: 'task_message', n, padding: String(n % 10).repeat(metadata?.size ?? 1) },
                final: n === count - 1,
              };
            }
            return;
          }
          case 'hangs':
            yield taskEvents(data as Task)[0]!;
            await aborted(context.signal);
            hangingAborted.resolve();
            return;
          default:
            yield* taskEvents(data as Task);
        }
      },
    });
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.stop()));
    await server.stop();
  });

  it('receives every event in order and stops at the final one (typed client)', async () => {
    const api = new AgentOperationsClient(await client());
    assert.deepEqual(
      await collect(api.streamTask(task)),
      taskEvents(task).map((item) => item.result),
    );
  });

  it('resolves the aliases json-rpc and SSE-JSON-RPC to the sse transport', async () => {
    for (const name of ['json-rpc', 'SSE-JSON-RPC', 'Sse']) {
      const transport = await client(name);
      assert.equal(transport.name, 'sse');
      assert.equal(transport.health().transport, 'sse');
      const events = await collect(transport.stream(agentOperations.streamTask, { id: `alias-${name}` }));
      assert.equal(events.length, 3);
      assert.equal((events[2] as { type: string }).type, 'task_completed');
    }
  });

  it('reports a handler that throws mid-stream as a remote error, counted as a failed stream on both sides', async () => {
    const transport = await client();
    const serverBefore = server.health().metrics;
    const events: unknown[] = [];
    await assert.rejects(
      async () => {
        for await (const event of transport.stream(agentOperations.streamTask, { id: 'explodes' })) events.push(event);
      },
      (error: unknown) => {
        assert.ok(error instanceof TransportRemoteError);
        assert.equal(error.statusCode, 500);
        assert.equal(error.code, 'internal');
        assert.match(error.message, /the engine broke/);
        return true;
      },
    );
    assert.equal(events.length, 1);
    const serverAfter = server.health().metrics;
    assert.equal(serverAfter.streams_failed - serverBefore.streams_failed, 1);
    assert.equal(serverAfter.active_streams, 0);
    const clientMetrics = transport.health().metrics;
    assert.equal(clientMetrics.streams_failed, 1);
    assert.equal(clientMetrics.active_streams, 0);
  });

  it('counts a stream that reached its final event as completed on both sides', async () => {
    const transport = await client();
    const serverBefore = server.health().metrics;
    await collect(transport.stream(agentOperations.streamTask, { id: 'counted' }));
    // A unary call after the stream: the server has finished its bookkeeping by then.
    await new AgentOperationsClient(transport).healthz();
    const serverAfter = server.health().metrics;
    assert.equal(serverAfter.streams_completed - serverBefore.streams_completed, 1);
    assert.equal(serverAfter.streams_failed - serverBefore.streams_failed, 0);
    assert.equal(transport.health().metrics.streams_completed, 1);
  });

  it('refuses an invalid body with HTTP 400 before any event', async () => {
    const transport = await client();
    await assert.rejects(collect(transport.stream(agentOperations.streamTask, { id: 7 })), {
      name: 'TransportRemoteError',
      statusCode: 400,
      code: 'invalid_request',
    });
  });

  it('turns an event over max_event_bytes into a TransportLimitError', async () => {
    const transport = await client();
    await assert.rejects(collect(transport.stream(agentOperations.streamTask, { id: 'too-big' })), (error: unknown) => {
      assert.ok(error instanceof TransportLimitError);
      assert.equal(error.limit, 2 * 1024 * 1024);
      assert.equal(error.retryable, false);
      return true;
    });
  });

  it('holds the client to its own max_event_bytes when the server allows more', async () => {
    const transport = await client('sse', { limits: { maxEventBytes: 64 * 1024 } });
    const events: unknown[] = [];
    await assert.rejects(
      async () => {
        const request = { id: 'large', metadata: { count: 2, size: 512 * 1024 } };
        for await (const event of transport.stream(agentOperations.streamTask, request)) events.push(event);
      },
      { name: 'TransportLimitError' },
    );
    assert.equal(events.length, 0);
  });

  it('carries events far larger than the socket buffers intact', async () => {
    const transport = await client();
    const size = 700 * 1024;
    const events = (await collect(
      transport.stream(agentOperations.streamTask, { id: 'large', metadata: { count: 6, size } }),
    )) as Array<{ n: number; padding: string }>;
    assert.deepEqual(
      events.map((event) => event.n),
      [0, 1, 2, 3, 4, 5],
    );
    for (const event of events) assert.equal(event.padding, String(event.n % 10).repeat(size));
  });

  it('answers a stream on an unknown path with a 404 remote error', async () => {
    const transport = await client();
    const nowhere = { ...agentOperations.streamTask, path: '/tasks/nowhere' };
    await assert.rejects(collect(transport.stream(nowhere, task)), {
      name: 'TransportRemoteError',
      statusCode: 404,
      code: 'not_found',
    });
  });

  it('stops the server side when the caller aborts mid-stream', async () => {
    const transport = await client();
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const events: unknown[] = [];
    await assert.rejects(
      async () => {
        for await (const event of transport.stream(agentOperations.streamTask, { id: 'hangs' }, { signal: controller.signal })) {
          events.push(event);
          controller.abort(reason);
        }
      },
      (error) => error === reason,
    );
    assert.equal(events.length, 1);
    await hangingAborted.promise;
    // The server still serves, and no stream is left open once it has.
    await collect(transport.stream(agentOperations.streamTask, { id: 'after-abort' }));
    await new AgentOperationsClient(transport).healthz();
    assert.equal(server.health().metrics.active_streams, 0);
    assert.equal(transport.health().metrics.active_streams, 0);
  });

  it('makes unary calls exactly as the http transport does', async () => {
    const http = await createTransport('http', 'http://127.0.0.1:0');
    await http.start(endpointTable({ health: () => ({ status: 'ready' }) }));
    try {
      const httpClient = await createTransport('http', http.url);
      clients.push(httpClient);
      const viaHttp = new AgentOperationsClient(httpClient);
      const viaSse = new AgentOperationsClient(await client());
      const submitted = { id: 'unary-1', messages: [] };
      assert.deepEqual(await viaSse.sendTask(submitted), await viaHttp.sendTask(submitted));
      assert.deepEqual(await viaSse.sendTask(submitted), { ...submitted, state: 'completed' });
      const page = await viaSse.getStatusPage();
      assert.equal(page, await viaHttp.getStatusPage());
      assert.match(page, /<title>status<\/title>/);
      const sseError = await viaSse.sendTask({ id: 5 } as unknown as Task).catch((error: unknown) => error);
      const httpError = await viaHttp.sendTask({ id: 5 } as unknown as Task).catch((error: unknown) => error);
      assert.ok(sseError instanceof TransportRemoteError && httpError instanceof TransportRemoteError);
      assert.deepEqual(
        [sseError.statusCode, sseError.code, sseError.message, sseError.retryable],
        [httpError.statusCode, httpError.code, httpError.message, httpError.retryable],
      );
    } finally {
      await http.stop();
    }
  });

  it('reports sse capabilities in its health: streaming, not bidirectional', async () => {
    const transport = await client();
    const local = transport.health();
    assert.equal(local.capabilities.streaming, true);
    assert.equal(local.capabilities.bidirectional, false);
    assert.deepEqual(local.capabilities, {
      networked: true,
      streaming: true,
      tls: true,
      bidirectional: false,
      persistent_connections: true,
    });
    const remote = await new AgentOperationsClient(transport).healthz();
    assert.equal(remote.transport, 'sse');
    assert.equal(remote.ready, true);
    assert.equal(remote.url, server.url);
    assert.deepEqual(remote.capabilities, local.capabilities);
  });
});

describe('sse stream slots', TIMEOUT, () => {
  let server: Transport;
  const clients: Transport[] = [];
  const log: string[] = [];
  const arrived = new Map<string, Deferred>();
  const gates = new Map<string, Deferred>();
  const authenticator: Authenticator = {
    scheme: { type: 'http', scheme: 'bearer' },
    // Authentication runs before the dispatcher waits for a stream slot, so it tells the test
    // that a request has reached the server.
    async authenticate(credentials) {
      arrived.get(credentials)?.resolve();
      return { principal_id: credentials, token: credentials };
    },
    async refreshToken(context) {
      return context;
    },
  };

  const clientAuthenticator: Authenticator = {
    ...authenticator,
    authenticate: async (credentials) => ({ principal_id: credentials, token: credentials }),
  };

  before(async () => {
    server = await startServer({
      authenticator,
      limits: { maxConcurrentStreams: 1 },
      async *stream(data): AsyncIterable<StreamItem> {
        const { id } = data as Task;
        log.push(`${id} started`);
        yield { result: { type: 'task_status', task_id: id }, final: false };
        await gates.get(id)?.promise;
        log.push(`${id} finished`);
        yield { result: { type: 'task_completed', task_id: id }, final: true };
      },
    });
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.stop()));
    await server.stop();
  });

  it('makes a second stream wait for the first one when max_concurrent_streams is 1', async () => {
    for (const id of ['first', 'second']) {
      arrived.set(id, deferred());
      gates.set(id, deferred());
    }
    const make = async (id: string) => {
      // The client gets its own authenticator: the server's one marks arrivals.
      const transport = await createTransport('sse', server.url, { authenticator: clientAuthenticator, credentials: id });
      clients.push(transport);
      return transport.stream(agentOperations.streamTask, { id })[Symbol.asyncIterator]();
    };
    const first = await make('first');
    assert.equal(((await first.next()).value as { type: string }).type, 'task_status');
    const second = await make('second');
    const secondDone = (async () => {
      const events: unknown[] = [];
      for (let step = await second.next(); !step.done; step = await second.next()) events.push(step.value);
      return events;
    })();
    await arrived.get('second')!.promise;
    await nextTurn();
    assert.deepEqual(log, ['first started'], 'the second stream must not start while the first holds the only slot');
    assert.equal(server.health().metrics.active_streams, 1);
    gates.get('first')!.resolve();
    gates.get('second')!.resolve();
    const rest = [];
    for (let step = await first.next(); !step.done; step = await first.next()) rest.push(step.value);
    assert.equal(rest.length, 1);
    assert.equal((await secondDone).length, 2);
    assert.deepEqual(log, ['first started', 'first finished', 'second started', 'second finished']);
  });
});

describe('sse cancellation while a stream is open', TIMEOUT, () => {
  let server: Transport;
  let client: Transport;
  const cancelled = deferred();

  before(async () => {
    const endpoints = endpointTable({
      async *stream(data): AsyncIterable<StreamItem> {
        const [first, , last] = taskEvents(data as Task);
        yield first!;
        await cancelled.promise;
        yield { ...last!, result: { ...(last!.result as object), state: 'canceled' } };
      },
    });
    endpoints.set(routeKey('POST', '/tasks/cancel'), {
      spec: agentOperations.cancelTask,
      unary: async (request) => {
        cancelled.resolve();
        return { id: (request as { id: string }).id, state: 'canceled' };
      },
    });
    server = await startServer({ endpoints });
    // One request slot, one socket for unary calls: the open stream must not hold it.
    client = await createTransport('sse', server.url, { limits: { maxConcurrentRequests: 1 } });
  });

  after(async () => {
    await client.stop();
    await server.stop();
  });

  it('reaches the agent with a cancel request while the task stream holds its connection', async () => {
    const api = new AgentOperationsClient(client);
    const events = api.streamTask(task)[Symbol.asyncIterator]();
    assert.equal((await events.next()).value?.type, 'task_status');
    assert.deepEqual(await api.cancelTask({ id: task.id, metadata: {} }), { id: task.id, state: 'canceled' });
    const last = await events.next();
    assert.equal(last.value?.type, 'task_completed');
    assert.equal((last.value as { state?: string }).state, 'canceled');
    assert.equal((await events.next()).done, true);
  });
});

describe('sse over https', TIMEOUT, () => {
  let certificate: ServerCertificate;
  let server: Transport;
  let client: Transport;

  before(async () => {
    certificate = makeServerCertificate();
    const { certfile, keyfile } = certificate.server;
    server = await createTransport('sse', 'https://127.0.0.1:0', { tls: { certfile, keyfile } });
    await server.start(endpointTable());
    client = await createTransport('sse', server.url, { tls: { cafile: certificate.cafile } });
  });

  after(async () => {
    await client?.stop();
    await server?.stop();
    certificate?.remove();
  });

  it('streams over TLS with the server certificate trusted through cafile', async () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(
      await collect(client.stream(agentOperations.streamTask, task)),
      taskEvents(task).map((item) => item.result),
    );
  });

  it('refuses a server whose certificate it does not trust', async () => {
    const untrusting = await createTransport('sse', server.url);
    try {
      await assert.rejects(collect(untrusting.stream(agentOperations.streamTask, task)), { name: 'TransportConnectionError' });
    } finally {
      await untrusting.stop();
    }
  });
});
