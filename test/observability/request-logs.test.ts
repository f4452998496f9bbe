// Request logs on every transport: an agent with an API key authenticator logs to a stream the
// test captures while real clients call it. Every line must be JSON; each request gets one line
// with its request id (the one the client sent), operation, transport, status (200, 400, 401,
// 404), a numeric duration and, once authenticated, the principal; streams log when they end.
// Neither the API key nor any body text may appear in any line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentOperations } from '../../generated/operations/agent.js';
import type { OperationSpec } from '../../generated/operations/spec.js';
import type { Task } from '../../generated/types/index.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { TransportRemoteError } from '../../src/transport/errors.js';
import { createTransport } from '../../src/transport/factory.js';
import type { Transport } from '../../src/transport/transport.js';
import { rejection } from '../support/transport-fixtures.js';

const KEY = 'sk-logs-0123456789-never-logged';
const BODY = 'body text that stays out of the logs';

const LISTEN: Readonly<Record<string, string>> = {
  http: 'http://127.0.0.1:0',
  sse: 'http://127.0.0.1:0',
  websocket: 'ws://127.0.0.1:0',
  grpc: 'grpc://127.0.0.1:0',
  runtime: 'runtime://request-logs',
};

type Line = Record<string, unknown>;

function task(id: string): Task {
  return { id, messages: [{ role: 'user', parts: [{ type: 'text', content: BODY }] }] };
}

/** No such route on any agent. */
const NOWHERE: OperationSpec = { ...agentOperations.getCard, name: 'nowhere', path: '/nowhere' };

for (const transport of Object.keys(LISTEN)) {
  test(`${transport}: one JSON line per request, with its id, operation, status, duration and principal`, async (t) => {
    const written: string[] = [];
    const agent = new AgentServer({
      name: 'logged',
      transport,
      url: LISTEN[transport],
      authenticator: new ApiKeyAuthenticator({ validKeys: { [KEY]: [] } }),
      // The request id as the handler got it from the wire, so the client can read it back.
      handler: (context) => ({ text: context.request.requestId }),
      logger: { level: 'info', destination: { write: (line: string) => void written.push(line) } },
    });
    await agent.start();
    t.after(() => agent.stop());
    const connect = async (credentials?: string): Promise<Transport> => {
      const options = credentials ? { authenticator: new ApiKeyAuthenticator({ validKeys: { [KEY]: [] } }), credentials } : {};
      const client = await createTransport(transport, agent.url, options);
      t.after(() => client.stop());
      return client;
    };
    const caller = await connect(KEY);
    const lines = () => written.map((text) => JSON.parse(text) as Line);
    const requestLine = (requestId: unknown) => {
      const found = lines().filter((line) => line.request_id === requestId);
      assert.equal(found.length, 1, `one line for ${String(requestId)}: ${written.join('')}`);
      return found[0]!;
    };
    const checkCommon = (line: Line, level: number, operation: string | null, status: number, error?: string) => {
      assert.equal(line.level, level, JSON.stringify(line));
      assert.equal(line.transport, transport);
      assert.equal(line.operation, operation);
      assert.equal(line.status, status);
      assert.equal(line.error, error);
      assert.equal(typeof line.duration_ms, 'number');
      assert.ok((line.duration_ms as number) >= 0);
    };

    // 200: the id in the answer is the one the client sent; the principal is the key's.
    const served = (await caller.unary(agentOperations.sendTask, task('served'))) as Task;
    const sentId = served.artifacts?.[0]?.parts.find((part) => part.type === 'text')?.content;
    const ok = requestLine(sentId);
    checkCommon(ok, 30, 'sendTask', 200);
    assert.deepEqual([ok.msg, ok.method, ok.path, ok.principal], ['request', 'POST', '/tasks/', 'api-key-sk-logs-']);

    // 400: a body that does not match the task schema.
    const invalid = await rejection(caller.unary(agentOperations.sendTask, { id: 42, secret: BODY }));
    assert.ok(invalid instanceof TransportRemoteError, String(invalid));
    checkCommon(requestLine(invalid.requestId), 40, 'sendTask', 400, 'invalid_request');

    // 404 from a handler: cancel of a task that does not exist.
    const unknown = await rejection(caller.unary(agentOperations.cancelTask, { id: 'no-such-task', metadata: {} }));
    assert.ok(unknown instanceof TransportRemoteError, String(unknown));
    const notFound = requestLine(unknown.requestId);
    checkCommon(notFound, 40, 'cancelTask', 404, 'not_found');
    assert.equal(notFound.principal, 'api-key-sk-logs-');

    // 404 for a route no table has, refused before dispatch.
    const lost = await rejection(caller.unary(NOWHERE, undefined));
    assert.ok(lost instanceof TransportRemoteError, String(lost));
    assert.equal(lost.statusCode, 404);
    const line = requestLine(lost.requestId);
    checkCommon(line, 40, null, 404, 'not_found');
    assert.deepEqual([line.method, line.path], ['GET', '/nowhere']);

    // 401: no credentials. Websocket checks them on the handshake, which carries no request id:
    // its line is the refused connection's.
    const anonymous = await connect();
    const refused = await rejection(anonymous.unary(agentOperations.sendTask, task('anonymous')));
    assert.ok(refused instanceof TransportRemoteError, String(refused));
    // The grpc client reports the call's gRPC status; the line has the same HTTP-like status everywhere.
    assert.equal(refused.statusCode, transport === 'grpc' ? 'UNAUTHENTICATED' : 401);
    if (transport === 'websocket') {
      const handshakes = lines().filter((line) => line.status === 401);
      assert.equal(handshakes.length, 1, written.join(''));
      checkCommon(handshakes[0]!, 40, null, 401, 'unauthenticated');
      assert.deepEqual([handshakes[0]!.request_id, handshakes[0]!.method], [null, 'GET']);
    } else {
      const line = requestLine(refused.requestId);
      checkCommon(line, 40, 'sendTask', 401, 'unauthenticated');
      assert.equal(line.principal, undefined);
    }

    // A stream logs one line when it ends, with the events it sent.
    if (transport !== 'http') {
      let streamedId: unknown;
      for await (const event of caller.stream(agentOperations.streamTask, task('streamed'))) {
        const done = event as { type?: string; task?: Task };
        if (done.type === 'task_completed') {
          streamedId = done.task?.artifacts?.[0]?.parts.find((part) => part.type === 'text')?.content;
        }
      }
      const line = requestLine(streamedId);
      checkCommon(line, 30, 'streamTask', 200);
      assert.equal(line.msg, 'stream');
      assert.equal(line.principal, 'api-key-sk-logs-');
      assert.ok((line.events as number) >= 2, JSON.stringify(line));
    }

    await agent.stop();
    const messages = lines().map((line) => line.msg);
    assert.deepEqual([messages[0], ...messages.slice(-2)], ['listening', 'stopping', 'stopped']);
    assert.equal(lines()[0]!.url, agent.url);
    for (const text of written) {
      assert.ok(text.endsWith('\n'), 'one line per entry');
      assert.doesNotMatch(text, /sk-logs-0123456789/, 'no credential in the logs');
      assert.ok(!text.includes(BODY), `no body text in the logs: ${text}`);
    }
  });
}

test('http: the request id a caller sent in X-Svc-Request-ID is the one logged, refused or served', async (t) => {
  const written: string[] = [];
  const agent = new AgentServer({
    name: 'logged',
    transport: 'http',
    url: 'http://127.0.0.1:0',
    logger: { level: 'info', destination: { write: (line: string) => void written.push(line) } },
  });
  await agent.start();
  t.after(() => agent.stop());
  const served = await fetch(`${agent.url}/.well-known/agent.json`, { headers: { 'x-svc-request-id': 'card-1' } });
  assert.equal(served.status, 200);
  const refused = await fetch(`${agent.url}/tasks/`, {
    method: 'POST',
    headers: { 'x-svc-request-id': 'bad-json-1', 'content-type': 'application/json' },
    body: '{"not json',
  });
  assert.equal(refused.status, 400);
  const lines = written.map((text) => JSON.parse(text) as Line).filter((line) => line.msg === 'request');
  assert.deepEqual(
    lines.map((line) => [line.request_id, line.operation, line.status, line.error]),
    [
      ['card-1', 'getCard', 200, undefined],
      ['bad-json-1', 'sendTask', 400, 'invalid_json'],
    ],
  );
});

test('a server without the logger option logs nothing and loads no logger', async (t) => {
  const agent = new AgentServer({ name: 'quiet', transport: 'runtime', url: 'runtime://quiet-logs' });
  await agent.start();
  t.after(() => agent.stop());
  const dispatcher = (agent.transport as unknown as { dispatcher: { logging: boolean } }).dispatcher;
  assert.equal(dispatcher.logging, false);
});
