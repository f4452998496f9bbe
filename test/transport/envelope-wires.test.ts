// The same envelopes through every framed wire, with real peers on 127.0.0.1: raw servers
// (node:http for sse, `ws` for websocket, grpc-js with pass-through JSON for grpc) answer a
// stream with one frame, good or bad, and parley's client must reach the same verdict on each;
// then the same bad requests go to parley's servers, which must refuse them alike. The rules
// themselves are tabled in envelope.test.ts.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { status as GrpcCode } from '@grpc/grpc-js';
import { TransportProtocolError, TransportRemoteError } from '../../src/transport/errors.js';
import { MAX_JSON_DEPTH } from '../../src/core/json/depth.js';
import { collect } from '../support/async.js';
import { client, echoTask, ops, rawServer, rejection, runtimeUrl, serve, stream, table } from '../support/transport-fixtures.js';
import { jsonClient, passThroughService, statusOf, unaryCall } from '../support/grpc-peers.js';
import { RawPeer, rawWsServer } from '../support/websocket-peers.js';

/** What a stream's single answer frame holds, given the request id; a string is sent as is. */
type Answer = (id: string) => unknown;

const answers: Array<{ name: string; frame: Answer; accepted: unknown[] | null }> = [
  {
    name: 'a valid final frame',
    frame: (id) => ({ id, ok: true, result: { n: 1 }, error: null, final: true }),
    accepted: [{ n: 1 }],
  },
  {
    name: 'a null id (the spec allows it)',
    frame: () => ({ id: null, ok: true, result: { n: 1 }, final: true }),
    accepted: [{ n: 1 }],
  },
  { name: 'ok without result (result defaults to null)', frame: (id) => ({ id, ok: true, final: true }), accepted: [null] },
  { name: 'no final', frame: (id) => ({ id, ok: true, result: { n: 1 } }), accepted: null },
  { name: 'a numeric id', frame: () => ({ id: 7, ok: true, result: { n: 1 }, final: true }), accepted: null },
  { name: 'a wrong id', frame: () => ({ id: 'someone-else', ok: true, result: { n: 1 }, final: true }), accepted: null },
  { name: 'no ok', frame: (id) => ({ id, result: { n: 1 }, final: true }), accepted: null },
  { name: 'ok false without error', frame: (id) => ({ id, ok: false, result: null, final: true }), accepted: null },
  { name: 'not an object', frame: () => '[1,2]', accepted: null },
];

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A raw server per wire that answers every stream with `frame`, then ends it. */
const peers: Record<string, (t: { after(fn: () => unknown): void }, frame: Answer) => Promise<string>> = {
  async sse(t, frame) {
    const raw = await rawServer(t, (req, res) => {
      const id = String(req.headers['x-svc-request-id']);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${text(frame(id))}\n\n`);
    });
    return raw.url;
  },
  async websocket(t, frame) {
    const raw = await rawWsServer(t, (socket, received) => socket.send(text(frame(received.json.id))));
    return raw.url;
  },
  async grpc(t, frame) {
    const server = new grpc.Server();
    const identity = (bytes: Buffer) => bytes;
    // Pass-through both ways: the answer goes out as exactly the bytes the case wrote.
    const service = { Stream: { ...passThroughService.Stream, responseSerialize: identity } };
    server.addService(service as any, {
      Stream(call: grpc.ServerWritableStream<any, any>) {
        call.write(Buffer.from(text(frame(call.request.id))));
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    t.after(() => server.forceShutdown());
    return `grpc://127.0.0.1:${port}`;
  },
};

describe('one response envelope rule on every wire', () => {
  for (const { name, frame, accepted } of answers) {
    it(`${name}: ${accepted ? 'accepted' : 'a protocol error'} on sse, websocket and grpc`, async (t) => {
      for (const wire of Object.keys(peers)) {
        const url = await peers[wire]!(t, frame);
        const transport = await client(t, wire, url, { retry: { maxAttempts: 1 } });
        const outcome = collect(transport.stream(ops.streamTask, { id: 'task-1' }));
        if (accepted) {
          assert.deepEqual(await outcome, accepted, wire);
        } else {
          const error = await rejection(outcome);
          assert.ok(error instanceof TransportProtocolError, `${wire}: ${String(error)}`);
        }
      }
    });
  }
});

/** A task whose `metadata` nests so that the body is `depth` levels deep. */
function nestedTask(depth: number): { id: string; metadata: unknown } {
  let value: unknown = 'leaf';
  for (let level = 1; level < depth; level++) value = { inner: value };
  return { id: 'deep', metadata: value };
}

/** Text nesting `depth` arrays, built as text: such a value cannot pass through JSON.stringify. */
const deepArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('one request rule on every server', () => {
  const endpoints = () =>
    table(
      echoTask(),
      stream(ops.streamTask, async function* () {
        yield { result: { n: 1 }, final: true };
      }),
    );

  it(`a body nested ${MAX_JSON_DEPTH} levels is served and one level more refused, on every wire`, async (t) => {
    for (const [wire, url] of [
      ['http', 'http://127.0.0.1:0'],
      ['sse', 'http://127.0.0.1:0'],
      ['websocket', 'ws://127.0.0.1:0'],
      ['grpc', 'grpc://127.0.0.1:0'],
      ['runtime', runtimeUrl('deep')],
    ] as const) {
      const server = await serve(t, wire, url, endpoints());
      const caller = await client(t, wire, server.url, { retry: { maxAttempts: 1 } });
      const served = (await caller.unary(ops.sendTask, nestedTask(MAX_JSON_DEPTH))) as { id: string };
      assert.equal(served.id, 'deep', wire);
      const error = await rejection(caller.unary(ops.sendTask, nestedTask(MAX_JSON_DEPTH + 1)));
      assert.ok(error instanceof TransportRemoteError, `${wire}: ${String(error)}`);
      // gRPC ends such a call with INVALID_ARGUMENT, as it does a message too deep to parse.
      assert.equal(error.code, wire === 'grpc' ? 'invalid_argument' : 'invalid_request', wire);
    }
  });

  it('a websocket frame with params or data nested thousands deep is refused, and the server keeps serving', async (t) => {
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', endpoints(), { limits: { maxRequestBytes: 2048 } });
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    const deep = deepArrays(5000);
    // The second frame is over the size limit, so its payload is measured on its own.
    for (const frame of [
      `{"id":"p","method":"POST","path":"/tasks/","data":{"id":"t"},"params":{"a":${deep}}}`,
      `{"id":"d","method":"POST","path":"/tasks/","data":{"id":"t","x":${deep}},"params":{}}`,
    ]) {
      peer.send(frame);
      const answer = (await peer.next()).json;
      assert.equal(answer.ok, false);
      assert.equal(answer.error.code, 'invalid_request');
      assert.equal(answer.error.details.limit, MAX_JSON_DEPTH);
    }
    const [served] = await peer.call({ id: 'after', method: 'POST', path: '/tasks/', data: { id: 'ok' } });
    assert.equal(served.ok, true);
  });

  it('an http body nested thousands deep gets 400 invalid_request', async (t) => {
    const server = await serve(t, 'http', 'http://127.0.0.1:0', endpoints());
    const body = `{"id":"t","metadata":${deepArrays(5000)}}`;
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}/tasks/`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error.code, 'invalid_request');
  });

  const badEnvelopes: Array<{ name: string; envelope: Record<string, unknown> }> = [
    { name: 'no id', envelope: { method: 'POST', path: '/tasks/', data: { id: 't' } } },
    { name: 'a lower-case method', envelope: { id: 'r', method: 'post', path: '/tasks/', data: { id: 't' } } },
    { name: 'a query string in the path', envelope: { id: 'r', method: 'POST', path: '/tasks/?x=1', data: { id: 't' } } },
    { name: 'no path', envelope: { id: 'r', method: 'POST', data: { id: 't' } } },
  ];

  for (const { name, envelope } of badEnvelopes) {
    it(`an envelope with ${name} is refused ok:false invalid_request on websocket and grpc`, async (t) => {
      const ws = await serve(t, 'websocket', 'ws://127.0.0.1:0', endpoints());
      const peer = await RawPeer.open(ws.url);
      t.after(() => peer.close());
      peer.send(envelope);
      const frame = (await peer.next()).json;
      const server = await serve(t, 'grpc', 'grpc://127.0.0.1:0', endpoints());
      const message = await unaryCall(jsonClient(t, server.url), 'Invoke', envelope);
      for (const [wire, answer] of [
        ['websocket', frame],
        ['grpc', message],
      ]) {
        assert.equal(answer.ok, false, wire);
        assert.equal(answer.final, true, wire);
        assert.equal(answer.error.code, 'invalid_request', wire);
      }
    });
  }

  it('grpc refuses a too deep envelope with INVALID_ARGUMENT before and at the parser', async (t) => {
    const server = await serve(t, 'grpc', 'grpc://127.0.0.1:0', endpoints());
    for (const depth of [MAX_JSON_DEPTH + 1, 5000]) {
      const envelope = `{"id":"r","method":"POST","path":"/tasks/","data":{"id":"t","x":${deepArrays(depth)}}}`;
      const error = await statusOf(unaryCall(rawJsonClient(t, server.url), 'Invoke', Buffer.from(envelope)));
      assert.equal(error.code, GrpcCode.INVALID_ARGUMENT, String(depth));
    }
  });
});

/** A grpc-js client sending the given JSON bytes under plain application/grpc, reading JSON back. */
function rawJsonClient(t: { after(fn: () => unknown): void }, url: string): any {
  const Client = grpc.makeGenericClientConstructor(
    { Invoke: { ...passThroughService.Invoke, requestSerialize: (bytes: Buffer) => bytes } } as any,
    'SvcTransport',
  );
  const instance = new Client(new URL(url).host, grpc.credentials.createInsecure()) as any;
  t.after(() => instance.close());
  return instance;
}
