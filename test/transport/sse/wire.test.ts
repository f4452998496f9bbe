// The sse server's bytes, read by peers that are not parley: a raw HTTP/1.1 exchange over
// node:net, and node's own fetch (undici) with the event-stream reader of @a2a-js/sdk.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parseSseStream } from '@a2a-js/sdk';
import { agentOperations } from '../../../generated/operations/agent.js';
import type { Task } from '../../../generated/types/index.js';
import { validate } from '../../../generated/validators/index.js';
import type { Authenticator } from '../../../src/auth/authenticator.js';
import type { StreamItem } from '../../../src/transport/endpoint.js';
import { createTransport } from '../../../src/transport/factory.js';
import type { Transport } from '../../../src/transport/transport.js';
import {
  aborted,
  dataLines,
  deferred,
  parseRawResponse,
  rawRequest,
  requestHead,
  startServer,
  taskEvents,
} from '../../support/sse-peers.js';

const task: Task = { id: 'task-raw', messages: [] };

function assertSseFrame(frame: unknown): void {
  const checked = validate('sse-frame', frame);
  assert.ok(checked.valid, `not an sse-frame: ${JSON.stringify(checked.valid ? null : checked.errors)}`);
}

describe('sse server, raw HTTP/1.1 peer', () => {
  let server: Transport;
  const seen: string[] = [];
  const hangingAborted = deferred();

  before(async () => {
    server = await startServer({
      limits: { maxEventBytes: 2048, maxConcurrentStreams: 1 },
      async *stream(data, context): AsyncIterable<StreamItem> {
        const { id } = data as Task;
        seen.push(id);
        if (id === 'explodes') {
          yield taskEvents(data as Task)[0]!;
          throw new Error('the engine broke');
        }
        if (id === 'too-big') {
          yield taskEvents(data as Task)[0]!;
          yield { result: { type: 'task_message', padding: 'x'.repeat(4096) }, final: false };
          return;
        }
        if (id === 'hangs') {
          yield taskEvents(data as Task)[0]!;
          await aborted(context.signal);
          hangingAborted.resolve();
          return;
        }
        yield* taskEvents(data as Task);
      },
    });
  });

  after(() => server.stop());

  it('answers POST /tasks/stream with one exact data line per event, ending with the final one', async () => {
    const res = await rawRequest(server.url, 'POST', '/tasks/stream', { 'X-Svc-Request-ID': 'raw-1' }, JSON.stringify(task));
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/event-stream');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.equal(res.headers['x-svc-request-id'], 'raw-1');
    const expected = taskEvents(task)
      .map(
        (item) =>
          `data: {"jsonrpc":"2.0","id":"raw-1","ok":true,"result":${JSON.stringify(item.result)},"error":null,"final":${item.final}}\n\n`,
      )
      .join('');
    assert.equal(res.body, expected);
    const frames = dataLines(res.body).map((line) => JSON.parse(line));
    for (const frame of frames) assertSseFrame(frame);
    assert.deepEqual(
      frames.map((frame) => frame.final),
      [false, false, true],
    );
  });

  it('makes up a request id when the caller sends none, and uses it in the header and every frame', async () => {
    const res = await rawRequest(server.url, 'POST', '/tasks/stream', {}, JSON.stringify(task));
    const id = res.headers['x-svc-request-id'];
    assert.ok(id && id.length > 0);
    for (const frame of dataLines(res.body).map((line) => JSON.parse(line))) assert.equal(frame.id, id);
  });

  it('ends a stream whose handler throws with one final error frame', async () => {
    const res = await rawRequest(
      server.url,
      'POST',
      '/tasks/stream',
      { 'X-Svc-Request-ID': 'raw-2' },
      JSON.stringify({ id: 'explodes' }),
    );
    assert.equal(res.status, 200);
    const frames = dataLines(res.body).map((line) => JSON.parse(line));
    assert.equal(frames.length, 2);
    assert.equal(frames[0].ok, true);
    assert.deepEqual(frames[1], {
      jsonrpc: '2.0',
      id: 'raw-2',
      ok: false,
      result: null,
      error: { code: 'internal', message: 'the engine broke', status: 500, request_id: 'raw-2' },
      final: true,
    });
    assertSseFrame(frames[1]);
  });

  it('turns an event over max_event_bytes into a final error frame instead of sending it', async () => {
    const res = await rawRequest(
      server.url,
      'POST',
      '/tasks/stream',
      { 'X-Svc-Request-ID': 'raw-3' },
      JSON.stringify({ id: 'too-big' }),
    );
    const frames = dataLines(res.body).map((line) => JSON.parse(line));
    assert.equal(frames.length, 2);
    assert.equal(frames[1].ok, false);
    assert.equal(frames[1].final, true);
    assert.equal(frames[1].error.code, 'response_too_large');
    assert.equal(frames[1].error.details.limit, 2048);
    assert.ok(!res.body.includes('xxxx'), 'no part of the oversize event went out');
  });

  it('refuses an invalid body with a JSON 400 before any event, without running the handler', async () => {
    const before = seen.length;
    const res = await rawRequest(server.url, 'POST', '/tasks/stream', { 'X-Svc-Request-ID': 'raw-4' }, JSON.stringify({ id: 5 }));
    assert.equal(res.status, 400);
    assert.match(res.headers['content-type']!, /^application\/json/);
    assert.equal(res.headers['x-svc-request-id'], 'raw-4');
    const body = JSON.parse(res.body);
    assert.equal(body.error.code, 'invalid_request');
    assert.equal(body.error.status, 400);
    assert.equal(body.error.request_id, 'raw-4');
    assert.equal(seen.length, before);
  });

  it('refuses a body that is not JSON with a JSON 400', async () => {
    const res = await rawRequest(server.url, 'POST', '/tasks/stream', {}, '{"id": "broken"');
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).error.code, 'invalid_json');
  });

  it('answers an unknown path with a JSON 404 and a wrong method with a 405', async () => {
    const missing = await rawRequest(server.url, 'POST', '/tasks/streams', {}, JSON.stringify(task));
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).error.code, 'not_found');
    const wrongMethod = await rawRequest(server.url, 'GET', '/tasks/stream', {}, null);
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.allow, 'POST');
  });

  it('serves unary routes on the same port as http would (JSON and HTML)', async () => {
    const sent = await rawRequest(server.url, 'POST', '/tasks/', { 'X-Svc-Request-ID': 'raw-5' }, JSON.stringify(task));
    assert.equal(sent.status, 200);
    assert.match(sent.headers['content-type']!, /^application\/json/);
    assert.deepEqual(JSON.parse(sent.body), { ...task, state: 'completed' });
    const page = await rawRequest(server.url, 'GET', '/status', {}, null);
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type']!, /^text\/html/);
  });

  it('releases the stream when the caller disconnects mid-stream, and keeps serving', async () => {
    const before = server.health().metrics;
    const target = new URL(server.url);
    const socket = connect(Number(target.port), target.hostname);
    const firstFrame = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (/\r\n\r\n[\s\S]*data: [^\n]*\n\n/.test(text)) resolve(text);
      });
      socket.on('error', reject);
    });
    const body = JSON.stringify({ id: 'hangs' });
    socket.write(requestHead(target, 'POST', '/tasks/stream', {}, body) + body);
    assert.match(await firstFrame, /"task_status"/);
    socket.destroy();
    // The handler learns of it through its signal.
    await hangingAborted.promise;
    // Only one stream slot: this stream can only run once the abandoned one gave its slot back.
    const res = await rawRequest(server.url, 'POST', '/tasks/stream', {}, JSON.stringify(task));
    assert.equal(dataLines(res.body).length, 3);
    const metrics = server.health().metrics;
    assert.equal(metrics.active_streams, 0);
    assert.equal(metrics.streams_failed - before.streams_failed, 1);
    assert.equal(metrics.streams_completed - before.streams_completed, 1);
  });
});

describe('sse server, authentication before the stream opens', () => {
  let server: Transport;
  let handlerRuns = 0;
  const authenticator: Authenticator = {
    scheme: { type: 'apiKey' },
    async authenticate(credentials) {
      if (credentials !== 'good-key') throw new Error('Invalid API key');
      return { principal_id: 'api-key-good-key', token: credentials };
    },
    async refreshToken(context) {
      return context;
    },
  };

  before(async () => {
    server = await startServer({
      authenticator,
      async *stream(data) {
        handlerRuns++;
        yield* taskEvents(data as Task);
      },
    });
  });

  after(() => server.stop());

  it('answers missing or rejected credentials with a JSON 401, never an event stream', async () => {
    for (const headers of [{}, { 'X-API-Key': 'bad-key' }] as Record<string, string>[]) {
      const res = await rawRequest(server.url, 'POST', '/tasks/stream', headers, JSON.stringify(task));
      assert.equal(res.status, 401);
      assert.match(res.headers['content-type']!, /^application\/json/);
      assert.ok(res.headers['www-authenticate']);
      assert.equal(JSON.parse(res.body).error.code, 'unauthenticated');
    }
    assert.equal(handlerRuns, 0);
    const ok = await rawRequest(server.url, 'POST', '/tasks/stream', { Authorization: 'ApiKey good-key' }, JSON.stringify(task));
    assert.equal(ok.status, 200);
    assert.equal(dataLines(ok.body).length, 3);
    assert.equal(handlerRuns, 1);
  });

  it('lets a parley client with the right credentials stream, and refuses one with wrong ones', async () => {
    const good = await createTransport('sse', server.url, { authenticator, credentials: 'good-key' });
    const bad = await createTransport('sse', server.url, {
      authenticator: { ...authenticator, authenticate: async (c) => ({ principal_id: 'x', token: c }) },
      credentials: 'bad-key',
    });
    try {
      const events: unknown[] = [];
      for await (const event of good.stream(agentOperations.streamTask, task)) events.push(event);
      assert.equal(events.length, 3);
      await assert.rejects(
        async () => {
          for await (const _ of bad.stream(agentOperations.streamTask, task)) assert.fail('no event may arrive');
        },
        { name: 'TransportRemoteError', statusCode: 401, code: 'unauthenticated' },
      );
    } finally {
      await good.stop();
      await bad.stop();
    }
  });
});

describe('sse server heartbeat', { timeout: 20_000 }, () => {
  let server: Transport;
  const gate = deferred();

  before(async () => {
    server = await startServer({
      keepaliveInterval: 0.01,
      async *stream(data): AsyncIterable<StreamItem> {
        const [first, , last] = taskEvents(data as Task);
        yield first!;
        await gate.promise;
        yield last!;
      },
    });
  });

  after(() => server.stop());

  it('sends keepalive comments while no event is due, between whole frames', async () => {
    const target = new URL(server.url);
    const socket = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      socket.on('end', resolve);
      socket.on('error', reject);
    });
    const sawKeepalive = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (Buffer.concat(chunks).includes(': keepalive\n\n')) resolve();
      });
    });
    const body = JSON.stringify(task);
    socket.write(requestHead(target, 'POST', '/tasks/stream', { 'X-Svc-Request-ID': 'beat' }, body) + body);
    // The handler holds the final event back until a comment has come through.
    await sawKeepalive;
    gate.resolve();
    await ended;
    const res = parseRawResponse(Buffer.concat(chunks));
    const frames = res.body.split('\n\n').filter((part) => part !== '');
    assert.ok(frames.some((part) => part === ': keepalive'));
    assert.deepEqual(
      frames.filter((part) => part.startsWith('data: ')).map((part) => JSON.parse(part.slice(6)).final),
      [false, true],
    );
    assert.deepEqual(
      frames.filter((part) => !part.startsWith('data: ')),
      frames.filter((part) => part === ': keepalive'),
    );
  });
});

describe('sse server, read by an independent event-stream client (fetch + @a2a-js/sdk)', () => {
  let server: Transport;

  before(async () => {
    server = await startServer();
  });

  after(() => server.stop());

  it('parses into the same envelopes, one per event', async () => {
    const response = await fetch(`${server.url}/tasks/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-svc-request-id': 'fetch-1' },
      body: JSON.stringify(task),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const envelopes = [];
    for await (const event of parseSseStream(response)) {
      assert.equal(event.type, 'message');
      envelopes.push(JSON.parse(event.data));
    }
    assert.deepEqual(
      envelopes,
      taskEvents(task).map((item) => ({
        jsonrpc: '2.0',
        id: 'fetch-1',
        ok: true,
        result: item.result,
        error: null,
        final: item.final,
      })),
    );
  });
});

describe('raw response parsing helper', () => {
  it('reads a chunked response the way the tests expect', () => {
    const raw = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nA: 1\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n');
    assert.deepEqual(parseRawResponse(raw), { status: 200, headers: { 'transfer-encoding': 'chunked', a: '1' }, body: 'abcde' });
    assert.throws(() => parseRawResponse(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab')));
  });
});
