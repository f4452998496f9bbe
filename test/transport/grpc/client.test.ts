// The parley grpc client: against a parley server (both codecs), against connect's own
// client for the JSON codec, and against an independent @grpc/grpc-js server that reads and
// writes the spec's pass-through JSON messages, for the status-to-error mapping.
import assert from 'node:assert/strict';
import { createServer as createHttp2Server } from 'node:http2';
import { createServer as createNetServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { SvcTransport } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { InvalidArgumentError } from '../../../src/core/errors.js';
import { ResolvedConfig } from '../../../src/transport/config.js';
import {
  TransportConnectionError,
  TransportError,
  TransportLimitError,
  TransportProtocolError,
  TransportRemoteError,
  TransportTimeoutError,
} from '../../../src/transport/errors.js';
import { GrpcClient } from '../../../src/transport/grpc/client.js';
import { TransportMetrics } from '../../../src/transport/metrics.js';
import { Outbound } from '../../../src/transport/outbound.js';
import { createTransport } from '../../../src/transport/factory.js';
import type { TransportOptions } from '../../../src/transport/transport.js';
import { client, gate, instantRetry, rejection, stream, table, unary, waitFor } from '../../support/transport-fixtures.js';
import {
  agentEndpoints,
  aborted,
  INVOKE_PATH,
  keyAuthenticator,
  ops,
  passThroughService,
  serveGrpc,
} from '../../support/grpc-peers.js';
import { collect } from '../../support/async.js';
import { hasOpenssl, makeServerCertificate } from '../../support/certificates.js';

/** The shared client pipeline over `grpcClient`, to `url`, without credentials or tracing. */
function outboundOver(url: string, config: ResolvedConfig, grpcClient: GrpcClient): Outbound {
  return new Outbound({
    name: 'grpc',
    url: () => url,
    config,
    metrics: new TransportMetrics(true),
    client: () => grpcClient,
    authHeaders: async () => ({}),
    tracing: () => null,
  });
}

describe('parley client <-> parley server', () => {
  it('unary and stream with the default (JSON) codec', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const transport = await client(t, 'grpc', server.url);
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'c1', messages: [] }), {
      id: 'c1',
      messages: [],
      state: 'completed',
    });
    assert.deepEqual(await collect(transport.stream(ops.streamTask, { id: 'c2' })), [
      { type: 'task_status', state: 'working', task_id: 'c2' },
      { type: 'task_status', state: 'working', step: 2 },
      { type: 'task_completed', task: { id: 'c2', state: 'completed' } },
    ]);
    const metrics = server.health().metrics;
    assert.equal(metrics.requests_succeeded, 1);
    assert.equal(metrics.streams_completed, 1);
  });

  it('unary and stream with the binary protobuf codec', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const config = new ResolvedConfig();
    const grpcClient = new GrpcClient(
      { name: 'grpc', config, metrics: new TransportMetrics(true), clientTls: () => ({}) },
      { codec: 'proto' },
    );
    t.after(() => grpcClient.close());
    const outbound = outboundOver(server.url, config, grpcClient);
    assert.deepEqual(await outbound.unary(ops.sendTask, { id: 'p1' }), { id: 'p1', state: 'completed' });
    const events = await collect(outbound.stream(ops.streamTask, { id: 'p2' }));
    assert.equal(events.length, 3);
    const error = await rejection(outbound.unary(ops.getCard, undefined));
    assert.ok(error instanceof TransportRemoteError);
    assert.equal(error.statusCode, 404);
  });

  it("connect's own client with the JSON codec (useBinaryFormat: false)", async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const transport = createGrpcTransport({ baseUrl: `http://${new URL(server.url).host}`, useBinaryFormat: false });
    const connectClient = createClient(SvcTransport, transport);
    const response = await connectClient.invoke({ id: 'cj', method: 'GET', path: '/healthz' });
    assert.equal(response.id, 'cj');
    assert.equal(response.ok, true);
    assert.equal(response.final, true);
    const events = [];
    for await (const event of connectClient.stream({
      id: 'cs',
      method: 'POST',
      path: '/tasks/stream',
      data: { kind: { case: 'structValue', value: { fields: { id: { kind: { case: 'stringValue', value: 'x' } } } } } },
    })) {
      events.push(event.final);
    }
    assert.deepEqual(events, [false, false, true]);
  });

  it('an ok:false envelope becomes a remote error with the wire error object', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const transport = await client(t, 'grpc', server.url);
    const error = await rejection(transport.unary(ops.getCard, undefined));
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.statusCode, 404);
    assert.equal(error.code, 'not_found');
    assert.equal(error.retryable, false);
    assert.ok(error.requestId);
  });

  it('a request the server finds too large is a limit error, never retried', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { limits: { maxRequestBytes: 64 } });
    const transport = await client(t, 'grpc', server.url, { retry: instantRetry(3) });
    const error = await rejection(transport.unary(ops.sendTask, { id: 'z'.repeat(200) }));
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.equal(error.code, 'payload_too_large');
    assert.equal(transport.metrics.snapshot().retries, 0);
    assert.equal(server.health().metrics.requests_started, 1);
  });

  it('a stream that fails after its first event ends with a remote error', async (t) => {
    const endpoints = table(
      stream(ops.streamTask, async function* () {
        yield { result: { type: 'task_status' }, final: false };
        throw new Error('engine broke');
      }),
    );
    const server = await serveGrpc(t, endpoints);
    const transport = await client(t, 'grpc', server.url);
    const seen: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of transport.stream(ops.streamTask, { id: 's' })) seen.push(event);
      })(),
    );
    assert.deepEqual(seen, [{ type: 'task_status' }]);
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.code, 'internal');
    assert.equal(error.statusCode, 500);
  });

  it('credentials travel as metadata; a rejected one is UNAUTHENTICATED and not retried', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints, { authenticator: keyAuthenticator });
    const good = await client(t, 'grpc', server.url, { authenticator: keyAuthenticator, credentials: 'good' });
    assert.deepEqual(await good.unary(ops.sendTask, { id: 'a1' }), { id: 'a1', state: 'completed' });
    assert.equal((await collect(good.stream(ops.streamTask, { id: 'a2' }))).length, 3);
    const bad = await client(t, 'grpc', server.url, { retry: instantRetry(3) });
    const error = await rejection(bad.unary(ops.sendTask, { id: 'a3' }, { headers: { 'x-api-key': 'bad' } }));
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.statusCode, 'UNAUTHENTICATED');
    assert.equal(error.retryable, false);
    assert.equal(bad.metrics.snapshot().retries, 0);
    const streamError = await rejection(collect(bad.stream(ops.streamTask, { id: 'a4' })));
    assert.equal(streamError.statusCode, 'UNAUTHENTICATED');
  });

  it('a refused connection is a retryable connection error', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const url = server.url;
    await server.stop();
    const transport = await client(t, 'grpc', url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'r' }));
    assert.ok(error instanceof TransportConnectionError, String(error));
    assert.equal(error.retryable, true);
  });

  it('a passed deadline is a timeout error, and the server sees the call go away', async (t) => {
    const left = gate();
    const endpoints = table(
      unary(ops.sendTask, async (_task, context) => {
        await aborted(context.signal);
        left.open();
        return {};
      }),
    );
    const server = await serveGrpc(t, endpoints);
    const transport = await client(t, 'grpc', server.url);
    // Long enough for a loaded machine to get the call to the handler, whose end the test awaits.
    const error = await rejection(transport.unary(ops.sendTask, { id: 'slow' }, { timeoutMs: 1_000 }));
    assert.ok(error instanceof TransportTimeoutError, String(error));
    await left.promise;
  });

  it('a server URL without a port is refused', async () => {
    const transport = await createTransport('grpc', 'grpc://127.0.0.1');
    const error = await rejection(transport.start(agentEndpoints().endpoints));
    assert.ok(error instanceof InvalidArgumentError, String(error));
    assert.equal(transport.health().status, 'stopped');
  });
});

describe('lifecycle', () => {
  it('stop lets an in-flight call finish, then refuses new connections', async (t) => {
    const entered = gate();
    const release = gate();
    const endpoints = table(
      unary(ops.sendTask, async (task) => {
        entered.open();
        await release.promise;
        return { ...task, state: 'completed' };
      }),
    );
    const server = await serveGrpc(t, endpoints, { grpc: { gracefulShutdownTimeout: 30 } });
    const transport = await client(t, 'grpc', server.url);
    const inFlight = transport.unary(ops.sendTask, { id: 'during-stop' });
    await entered.promise;
    let stopped = false;
    const stopping = server.stop().then(() => (stopped = true));
    // Let the stop reach its wait for in-flight calls; it must not finish before the call.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(server.ready, false);
    assert.equal(stopped, false);
    release.open();
    assert.deepEqual(await inFlight, { id: 'during-stop', state: 'completed' });
    await stopping;
    const fresh = await client(t, 'grpc', server.url);
    assert.ok((await rejection(fresh.unary(ops.sendTask, { id: 'late' }))) instanceof TransportConnectionError);
  });

  it('a call still running after graceful_shutdown_timeout is cut off', async (t) => {
    const fixture = agentEndpoints();
    const server = await serveGrpc(t, fixture.endpoints, { grpc: { gracefulShutdownTimeout: 0.05 } });
    const transport = await client(t, 'grpc', server.url);
    const events = transport.stream(ops.streamTask, { id: 'hold' })[Symbol.asyncIterator]();
    await events.next();
    await fixture.heldStreamStarted;
    await server.stop();
    const error = await rejection(events.next());
    assert.ok(error instanceof TransportError, String(error));
    assert.equal(server.health().metrics.active_streams, 0);
  });

  it('maximum_concurrent_rpcs: excess calls wait for a slot', async (t) => {
    const order: string[] = [];
    const first = gate();
    const endpoints = table(
      unary(ops.sendTask, async (task) => {
        order.push(`start ${task.id}`);
        if (task.id === 'first') await first.promise;
        order.push(`end ${task.id}`);
        return task;
      }),
    );
    // The service looks each call's route up before it waits for a slot: counting lookups
    // tells when the second call has reached the server.
    let lookups = 0;
    const lookUp = endpoints.get.bind(endpoints);
    endpoints.get = (key) => {
      lookups++;
      return lookUp(key);
    };
    const server = await serveGrpc(t, endpoints, { grpc: { maximumConcurrentRpcs: 1 } });
    const transport = await client(t, 'grpc', server.url);
    const a = transport.unary(ops.sendTask, { id: 'first' });
    await waitFor(() => order.length === 1, 'the first call to start');
    const b = transport.unary(ops.sendTask, { id: 'second' });
    await waitFor(() => lookups >= 2, 'the second call to reach the server');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['start first'], 'the second call must not start before the first ends');
    first.open();
    await Promise.all([a, b]);
    assert.deepEqual(order, ['start first', 'end first', 'start second', 'end second']);
  });

  // A held stream takes the only room the server leaves; the cancellation still goes through.
  const fullServers: ReadonlyArray<readonly [string, TransportOptions]> = [
    ['control-plane calls never wait for an RPC slot', { grpc: { maximumConcurrentRpcs: 1 } }],
    [
      // One HTTP/2 stream per connection: the held stream takes the work connection's only one.
      'a cancellation goes through while the work connection is at its HTTP/2 stream limit',
      { grpc: { channelOptions: { 'grpc.max_concurrent_streams': 1 } } },
    ],
  ];
  for (const [name, options] of fullServers) {
    it(name, async (t) => {
      const fixture = agentEndpoints();
      const server = await serveGrpc(t, fixture.endpoints, options);
      const transport = await client(t, 'grpc', server.url);
      const held = transport.stream(ops.streamTask, { id: 'hold' })[Symbol.asyncIterator]();
      await held.next();
      await fixture.heldStreamStarted;
      assert.deepEqual(await transport.unary(ops.cancelTask, { id: 'hold' }, { timeoutMs: 5000 }), {
        id: 'hold',
        state: 'canceled',
      });
      await held.return?.();
      await waitFor(() => server.health().metrics.active_streams === 0, 'the held stream to end');
    });
  }

  it("the client's stop ends its calls in flight: they fail, and the server sees them go", async (t) => {
    const fixture = agentEndpoints();
    const unaryEntered = gate();
    const unaryLeft = gate();
    fixture.endpoints.set(
      'POST /tasks/',
      unary(ops.sendTask, async (_task, context) => {
        unaryEntered.open();
        await aborted(context.signal);
        unaryLeft.open();
        return {};
      }),
    );
    const server = await serveGrpc(t, fixture.endpoints);
    const transport = await client(t, 'grpc', server.url);
    const held = transport.stream(ops.streamTask, { id: 'hold' })[Symbol.asyncIterator]();
    await held.next();
    await fixture.heldStreamStarted;
    const inFlight = rejection(transport.unary(ops.sendTask, { id: 'held' }));
    await unaryEntered.promise;
    await transport.stop();
    for (const error of [await rejection(held.next()), await inFlight]) {
      assert.ok(error instanceof TransportConnectionError, String(error));
      assert.match(error.message, /closed before the answer was complete/);
    }
    await unaryLeft.promise;
    await waitFor(() => server.health().metrics.active_streams === 0, 'the held stream to end on the server');
  });

  it("the client's stop closes a connection still in its TLS handshake (a peer that never answers)", async (t) => {
    const closed: Array<Promise<void>> = [];
    const sockets: Socket[] = [];
    // Reads what the client sends (so it sees the client close), never answers.
    const silent = createNetServer((socket) => {
      socket.on('error', () => undefined);
      socket.resume();
      sockets.push(socket);
      closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      silent.close();
    });
    const { port } = silent.address() as { port: number };
    const transport = await client(t, 'grpc', `grpcs://127.0.0.1:${port}`);
    // Long enough for a loaded machine to connect, which the test checks.
    const error = await rejection(transport.unary(ops.sendTask, { id: 'tls' }, { timeoutMs: 1_000 }));
    assert.ok(error instanceof TransportTimeoutError, String(error));
    assert.equal(closed.length, 1);
    await transport.stop();
    await Promise.all(closed);
  });

  it('a closed client refuses a call as a connection error', async (t) => {
    const server = await serveGrpc(t, agentEndpoints().endpoints);
    const config = new ResolvedConfig();
    const grpcClient = new GrpcClient({ name: 'grpc', config, metrics: new TransportMetrics(true), clientTls: () => ({}) });
    const outbound = outboundOver(server.url, config, grpcClient);
    assert.deepEqual(await outbound.unary(ops.sendTask, { id: 'before' }), { id: 'before', state: 'completed' });
    await grpcClient.close();
    const error = await rejection(outbound.unary(ops.sendTask, { id: 'after' }));
    assert.ok(error instanceof TransportConnectionError, String(error));
    assert.match(error.message, /closed before the call was made/);
  });

  it('serves grpcs: with the TLS settings', { skip: !hasOpenssl() && 'openssl is not installed' }, async (t) => {
    const certificate = makeServerCertificate();
    t.after(() => certificate.remove());
    const { certfile, keyfile } = certificate.server;
    const server = await serve(t, 'grpcs://127.0.0.1:0', { tls: { certfile, keyfile } });
    assert.match(server.url, /^grpcs:/);
    const trusting = await client(t, 'grpc', server.url, { tls: { cafile: certificate.cafile } });
    assert.deepEqual(await trusting.unary(ops.sendTask, { id: 'tls' }), { id: 'tls', state: 'completed' });
    assert.equal((await collect(trusting.stream(ops.streamTask, { id: 'tls-s' }))).length, 3);
    const untrusting = await client(t, 'grpc', server.url);
    const error = await rejection(untrusting.unary(ops.sendTask, { id: 'tls' }));
    assert.ok(error instanceof TransportConnectionError, String(error));
    assert.equal(error.retryable, false);
  });
});

async function serve(t: { after(fn: () => unknown): void }, url: string, options: object) {
  const transport = await createTransport('grpc', url, options);
  await transport.start(agentEndpoints().endpoints);
  t.after(() => transport.stop());
  return transport;
}

interface Received {
  readonly request: any;
  readonly metadata: Record<string, unknown>;
  /** The deadline the call carried (grpc-timeout), as grpc-js reads it; Infinity without one. */
  readonly deadline: grpc.Deadline;
  /** When the call arrived (Date.now()). */
  readonly at: number;
}

/** The envelopes the peer's Stream writes by default: two events, the second final. */
const twoEvents = (request: any): unknown[] => [
  { id: request.id, ok: true, result: { n: 1 }, final: false },
  { id: request.id, ok: true, result: { n: 2 }, final: true },
];

/** A grpc-js server reading and writing pass-through JSON messages, as a spec peer would. */
async function jsonPeer(
  t: { after(fn: () => unknown): void },
  answer: (request: any, n: number) => { error: Partial<grpc.StatusObject> } | { envelope: unknown },
  events: (request: any) => unknown[] = twoEvents,
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = new grpc.Server();
  server.addService(passThroughService as any, {
    Invoke(call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) {
      received.push({ request: call.request, metadata: call.metadata.getMap(), deadline: call.getDeadline(), at: Date.now() });
      const outcome = answer(call.request, received.length);
      if ('error' in outcome) callback(outcome.error as grpc.ServiceError);
      else callback(null, outcome.envelope);
    },
    Stream(call: grpc.ServerWritableStream<any, any>) {
      received.push({ request: call.request, metadata: call.metadata.getMap(), deadline: call.getDeadline(), at: Date.now() });
      for (const envelope of events(call.request)) call.write(envelope);
      call.end();
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  t.after(() => server.forceShutdown());
  return { url: `grpc://127.0.0.1:${port}`, received };
}

describe('parley client against a grpc-js pass-through JSON server', () => {
  it('sends exactly the spec envelope and metadata, and reads the JSON answer', async (t) => {
    const peer = await jsonPeer(t, (request) => ({
      envelope: { id: request.id, ok: true, result: { echoed: request.data }, final: true },
    }));
    const transport = await client(t, 'grpc', peer.url, { authenticator: keyAuthenticator, credentials: 'good' });
    assert.deepEqual(await transport.unary(ops.sendTask, { id: 'spec-1' }, { params: { trace: 'on' } }), {
      echoed: { id: 'spec-1' },
    });
    const [{ request, metadata }] = peer.received;
    assert.deepEqual(Object.keys(request).sort(), ['data', 'id', 'idempotency_key', 'method', 'params', 'path']);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/tasks/');
    assert.deepEqual(request.data, { id: 'spec-1' });
    assert.deepEqual(request.params, { trace: 'on' });
    assert.equal(metadata['x-svc-request-id'], request.id);
    assert.equal(metadata['idempotency-key'], request.idempotency_key);
    assert.equal(metadata['x-api-key'], 'good');
    assert.equal(metadata.authorization, 'ApiKey good');
    assert.deepEqual(await collect(transport.stream(ops.streamTask, { id: 'spec-s' })), [{ n: 1 }, { n: 2 }]);
    assert.equal(peer.received[1]!.request.idempotency_key, undefined);
  });

  it('grpc.channelOptions reach the client channel too', async (t) => {
    const peer = await jsonPeer(t, (request) => ({ envelope: { id: request.id, ok: true, result: 1, final: true } }));
    const transport = await client(t, 'grpc', peer.url, {
      grpc: { channelOptions: { 'grpc.primary_user_agent': 'parley-test' } },
    });
    assert.equal(await transport.unary(ops.sendTask, { id: 'ua' }), 1);
    assert.match(String(peer.received[0]!.metadata['user-agent']), /^parley-test /);
  });

  it('a unary call tells the server its deadline (grpc-timeout); a stream, whose deadline restarts at each event, does not', async (t) => {
    const peer = await jsonPeer(t, (request) => ({ envelope: { id: request.id, ok: true, result: 1, final: true } }));
    const transport = await client(t, 'grpc', peer.url);
    assert.equal(await transport.unary(ops.sendTask, { id: 'due' }, { timeoutMs: 30_000 }), 1);
    await collect(transport.stream(ops.streamTask, { id: 'open-ended' }, { timeoutMs: 30_000 }));
    const [unaryCall, streamCall] = peer.received;
    const left = Number(unaryCall!.deadline) - unaryCall!.at;
    assert.ok(left > 0 && left <= 30_000, `the server's deadline is ${left} ms away`);
    assert.equal(streamCall!.deadline, Number.POSITIVE_INFINITY);
  });

  it('a consumer that stops reading holds the server back (flow control), then reads every event', async (t) => {
    const total = 400;
    const event = (request: any, n: number) =>
      Buffer.from(JSON.stringify({ id: request.id, ok: true, result: { n, pad: 'x'.repeat(32 * 1024) }, final: n === total }));
    let written = 0;
    const server = new grpc.Server();
    const service = {
      ...passThroughService,
      Stream: { ...passThroughService.Stream, responseSerialize: (bytes: Buffer) => bytes },
    };
    server.addService(service as any, {
      Invoke(call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) {
        callback(null, { id: call.request.id, ok: true, result: 'probe', final: true });
      },
      async Stream(call: grpc.ServerWritableStream<any, Buffer>) {
        for (let n = 1; n <= total; n++) {
          written = n;
          if (!call.write(event(call.request, n))) await new Promise((resolve) => call.once('drain', resolve));
        }
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    t.after(() => server.forceShutdown());
    const transport = await client(t, 'grpc', `grpc://127.0.0.1:${port}`, { limits: { maxEventBytes: 64 * 1024 } });
    const events = transport.stream(ops.streamTask, { id: 'slow' })[Symbol.asyncIterator]();
    assert.equal(((await events.next()).value as { n: number }).n, 1);
    // Nothing more is read while 200 round trips go over the same connection: held back by
    // the HTTP/2 window, the server gets no further than the buffers on the way hold (about 32
    // of these events); a client that read ahead would let it write on (past 200 here).
    for (let trip = 0; trip < 200; trip++) await transport.unary(ops.sendTask, { id: 'probe' });
    assert.ok(written < total / 4, `the server wrote ${written} of ${total} events to a consumer that read one`);
    let last = 1;
    for (let next = await events.next(); !next.done; next = await events.next()) {
      last = (next.value as { n: number }).n;
    }
    assert.equal(last, total);
  });

  it('INTERNAL and RESOURCE_EXHAUSTED are retryable; the retry keeps the id and key', async (t) => {
    const peer = await jsonPeer(t, (request, n) =>
      n === 1
        ? { error: { code: grpc.status.INTERNAL, details: 'try again' } }
        : n === 2
          ? { error: { code: grpc.status.RESOURCE_EXHAUSTED, details: 'busy' } }
          : { envelope: { id: request.id, ok: true, result: 'third time', final: true } },
    );
    const transport = await client(t, 'grpc', peer.url, { retry: instantRetry(3) });
    assert.equal(await transport.unary(ops.sendTask, { id: 'retry-me' }), 'third time');
    assert.equal(peer.received.length, 3);
    assert.equal(new Set(peer.received.map((r) => r.request.id)).size, 1);
    assert.equal(new Set(peer.received.map((r) => r.request.idempotency_key)).size, 1);
    assert.equal(transport.metrics.snapshot().retries, 2);
  });

  const cases: Array<[string, number, new (...args: any[]) => TransportError, boolean]> = [
    ['UNAVAILABLE', grpc.status.UNAVAILABLE, TransportConnectionError, true],
    ['DEADLINE_EXCEEDED', grpc.status.DEADLINE_EXCEEDED, TransportTimeoutError, true],
    ['RESOURCE_EXHAUSTED', grpc.status.RESOURCE_EXHAUSTED, TransportRemoteError, true],
    ['INTERNAL', grpc.status.INTERNAL, TransportRemoteError, true],
    ['UNAUTHENTICATED', grpc.status.UNAUTHENTICATED, TransportRemoteError, false],
    ['PERMISSION_DENIED', grpc.status.PERMISSION_DENIED, TransportRemoteError, false],
    ['NOT_FOUND', grpc.status.NOT_FOUND, TransportRemoteError, false],
  ];
  for (const [name, code, kind, retryable] of cases) {
    it(`${name} -> ${kind.name}, retryable ${retryable}, statusCode ${name}`, async (t) => {
      const peer = await jsonPeer(t, () => ({ error: { code, details: `status ${name}` } }));
      const transport = await client(t, 'grpc', peer.url);
      const error = await rejection(transport.unary(ops.sendTask, { id: 'x' }));
      assert.ok(error instanceof kind, `${name}: ${String(error)}`);
      assert.equal(error.retryable, retryable);
      assert.equal(error.statusCode, name);
    });
  }

  it('an answer for another request id is a protocol error', async (t) => {
    const peer = await jsonPeer(t, () => ({ envelope: { id: 'someone-else', ok: true, result: 1, final: true } }));
    const transport = await client(t, 'grpc', peer.url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'x' }));
    assert.ok(error instanceof TransportProtocolError, String(error));
    assert.equal(error.retryable, false);
  });

  it('a stream event for another request id is a protocol error, and the stream is not retried', async (t) => {
    const unused = () => ({ error: { code: grpc.status.UNIMPLEMENTED } });
    const peer = await jsonPeer(t, unused, (request) => [
      { id: request.id, ok: true, result: { n: 1 }, final: false },
      // A null id is allowed (spec: Events, "each envelope's non-null id must equal the request id").
      { id: null, ok: true, result: { n: 2 }, final: false },
      { id: 'someone-else', ok: true, result: { n: 3 }, final: false },
      { id: request.id, ok: true, result: { n: 4 }, final: true },
    ]);
    const transport = await client(t, 'grpc', peer.url, { retry: instantRetry(3) });
    const seen: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of transport.stream(ops.streamTask, { id: 's' })) seen.push(event);
      })(),
    );
    assert.ok(error instanceof TransportProtocolError, String(error));
    assert.equal(error.retryable, false);
    assert.match(error.message, /someone-else/);
    assert.deepEqual(seen, [{ n: 1 }, { n: 2 }], 'the events before the stray one were delivered, nothing after it');
    assert.equal(peer.received.length, 1);
    const metrics = transport.metrics.snapshot();
    assert.equal(metrics.streams_failed, 1);
    assert.equal(metrics.retries, 0);
    assert.equal(metrics.active_streams, 0);
  });

  // A connection that failed lends its Node error only to the calls that failed with it: a
  // status the server answered on a newer connection is that status, whatever the old one did.
  it("a status answered on a new connection is not blamed on an older connection's reset", async (t) => {
    // The first connection goes to a server holding a stream, every later one to a server
    // answering Invoke with NOT_FOUND once told to.
    const holding = new grpc.Server();
    holding.addService(passThroughService as any, {
      Invoke: (_call: unknown, callback: grpc.sendUnaryData<any>) => callback({ code: grpc.status.UNIMPLEMENTED }),
      Stream(call: grpc.ServerWritableStream<any, any>) {
        call.write({ id: call.request.id, ok: true, result: { n: 1 }, final: false });
      },
    });
    const invoked = gate();
    const release = gate();
    let invokes = 0;
    const answering = new grpc.Server();
    answering.addService(passThroughService as any, {
      async Invoke(_call: unknown, callback: grpc.sendUnaryData<any>) {
        invokes++;
        invoked.open();
        await release.promise;
        callback({ code: grpc.status.NOT_FOUND, details: 'no such task' });
      },
      Stream: (call: grpc.ServerWritableStream<any, any>) => call.end(),
    });
    const insecure = grpc.ServerCredentials.createInsecure();
    const first = holding.createConnectionInjector(insecure);
    const later = answering.createConnectionInjector(insecure);
    const sockets: Socket[] = [];
    const listener = createNetServer((socket) => {
      socket.on('error', () => undefined);
      sockets.push(socket);
      (sockets.length === 1 ? first : later).injectConnection(socket);
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      holding.forceShutdown();
      answering.forceShutdown();
      for (const socket of sockets) socket.destroy();
      listener.close();
    });
    const { port } = listener.address() as { port: number };
    const transport = await client(t, 'grpc', `grpc://127.0.0.1:${port}`, { retry: instantRetry(3) });
    const held = transport.stream(ops.streamTask, { id: 'on-a' })[Symbol.asyncIterator]();
    await held.next();
    // GOAWAY on the first connection: its stream carries on, the next call opens a second one.
    first.drain(60_000);
    const answer = rejection(transport.unary(ops.sendTask, { id: 'on-b' }));
    await invoked.promise;
    // Then the first connection is reset; once its stream has failed the client has seen it.
    sockets[0]!.resetAndDestroy();
    await rejection(held.next());
    release.open();
    const error = await answer;
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.statusCode, 'NOT_FOUND');
    assert.equal(error.retryable, false);
    assert.equal(invokes, 1);
  });

  it('an ok:false envelope keeps the peer error object', async (t) => {
    const peer = await jsonPeer(t, (request) => ({
      envelope: { id: request.id, ok: false, error: { code: 'busy', message: 'come back later', status: 503 }, final: true },
    }));
    const transport = await client(t, 'grpc', peer.url);
    const error = await rejection(transport.unary(ops.sendTask, { id: 'x' }));
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.code, 'busy');
    assert.equal(error.statusCode, 503);
    assert.equal(error.retryable, true);
  });
});

// grpc-js refuses an answer over the channel's own receive limit (grpc.max_receive_message_length)
// with a RESOURCE_EXHAUSTED of its own making. The same answer would be refused on every attempt,
// so that is a limit error like an http answer over max_response_bytes, never retried; a
// RESOURCE_EXHAUSTED the server sent stays the spec's retryable remote error.
describe("an answer over the client's own receive limit", () => {
  const small = { maxRequestBytes: 1024, maxResponseBytes: 1024, maxEventBytes: 1024 };
  // What options.ts derives from `small`: the largest limit times six, plus 64 KiB of envelope room.
  const receiveLimit = 1024 * 6 + 64 * 1024;

  it('is a response_too_large limit error, and the handler runs once even with retries', async (t) => {
    let calls = 0;
    const endpoints = table(
      unary(ops.sendTask, (task) => {
        calls++;
        return { ...task, state: 'completed', pad: 'x'.repeat(100_000) };
      }),
    );
    const server = await serveGrpc(t, endpoints);
    const transport = await client(t, 'grpc', server.url, { limits: small, retry: instantRetry(3) });
    const error = await rejection(transport.unary(ops.sendTask, { id: 'big' }));
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.equal(error.code, 'response_too_large');
    assert.equal(error.statusCode, 500);
    assert.equal(error.retryable, false);
    assert.equal(error.kind, 'response');
    assert.equal(error.limit, receiveLimit);
    assert.ok(error.size > receiveLimit, `size ${error.size}`);
    assert.match(error.message, new RegExp(`${error.size} bytes .*${receiveLimit}-byte receive limit`));
    assert.ok(error.requestId);
    // The server's idempotency cache would answer a retry without the handler: the calls that
    // reached the server are counted too.
    assert.equal(calls, 1);
    assert.equal(server.health().metrics.requests_started, 1);
    assert.equal(transport.metrics.snapshot().retries, 0);
  });

  it('is not retried against a grpc-js server either (every call reaches its handler)', async (t) => {
    const peer = await jsonPeer(t, (request) => ({
      envelope: { id: request.id, ok: true, result: { pad: 'x'.repeat(100_000) }, final: true },
    }));
    const transport = await client(t, 'grpc', peer.url, { limits: small, retry: instantRetry(3) });
    const error = await rejection(transport.unary(ops.sendTask, { id: 'big' }));
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.equal(error.code, 'response_too_large');
    assert.equal(error.retryable, false);
    assert.equal(error.limit, receiveLimit);
    assert.equal(peer.received.length, 1);
    assert.equal(transport.metrics.snapshot().retries, 0);
  });

  it('a compressed answer that inflates past the limit is a limit error too', async (t) => {
    // grpc-js servers do not compress answers: a bare HTTP/2 server sends one gzip message, a
    // few hundred bytes on the wire (under the limit) that inflate to 100 KB (over it).
    const paths: unknown[] = [];
    const server = createHttp2Server();
    server.on('stream', (stream, headers) => {
      paths.push(headers[':path']);
      let body = '';
      stream.on('data', (chunk: Buffer) => (body += chunk.subarray(body ? 0 : 5).toString('utf8')));
      stream.on('end', () => {
        const { id } = JSON.parse(body) as { id: string };
        const payload = gzipSync(JSON.stringify({ id, ok: true, result: { pad: 'x'.repeat(100_000) }, final: true }));
        const prefix = Buffer.alloc(5);
        prefix.writeUInt8(1, 0);
        prefix.writeUInt32BE(payload.length, 1);
        stream.respond(
          { ':status': 200, 'content-type': 'application/grpc', 'grpc-encoding': 'gzip' },
          { waitForTrailers: true },
        );
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(Buffer.concat([prefix, payload]));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const { port } = server.address() as { port: number };
    const transport = await client(t, 'grpc', `grpc://127.0.0.1:${port}`, { limits: small, retry: instantRetry(3) });
    const error = await rejection(transport.unary(ops.sendTask, { id: 'zipped' }));
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.equal(error.code, 'response_too_large');
    assert.equal(error.retryable, false);
    assert.equal(error.limit, receiveLimit);
    assert.match(error.message, /more than 71680 bytes once decompressed/);
    assert.deepEqual(paths, [INVOKE_PATH]);
  });

  it('a stream event over an explicit grpc.max_receive_message_length is a limit error too', async (t) => {
    let calls = 0;
    const endpoints = table(
      stream(ops.streamTask, async function* () {
        calls++;
        yield { result: { n: 1 }, final: false };
        yield { result: { pad: 'x'.repeat(10_000) }, final: true };
      }),
    );
    const server = await serveGrpc(t, endpoints);
    const transport = await client(t, 'grpc', server.url, {
      retry: instantRetry(3),
      grpc: { channelOptions: { 'grpc.max_receive_message_length': 4096 } },
    });
    const seen: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of transport.stream(ops.streamTask, { id: 's' })) seen.push(event);
      })(),
    );
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.equal(error.code, 'response_too_large');
    assert.equal(error.retryable, false);
    assert.equal(error.kind, 'event');
    assert.equal(error.limit, 4096);
    assert.ok(error.size > 4096, `size ${error.size}`);
    assert.deepEqual(seen, [{ n: 1 }]);
    assert.equal(calls, 1);
  });

  it("a RESOURCE_EXHAUSTED the server sent stays retryable, even in grpc-js's own words with this client's limit", async (t) => {
    // What a grpc-js server answers when our request is over its receive limit, here naming
    // exactly the client's own limit: the server's status, so the spec's retryable remote error.
    const details = `Received message larger than max (${receiveLimit + 10} vs ${receiveLimit})`;
    const peer = await jsonPeer(t, () => ({ error: { code: grpc.status.RESOURCE_EXHAUSTED, details } }));
    const transport = await client(t, 'grpc', peer.url, { limits: small, retry: instantRetry(3) });
    const error = await rejection(transport.unary(ops.sendTask, { id: 'busy' }));
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.ok(!(error instanceof TransportLimitError));
    assert.equal(error.statusCode, 'RESOURCE_EXHAUSTED');
    assert.equal(error.code, 'resource_exhausted');
    assert.equal(error.retryable, true);
    assert.equal(peer.received.length, 3);
    assert.equal(transport.metrics.snapshot().retries, 2);
  });
});
