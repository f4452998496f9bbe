// The browser-origin check (src/transport/browser-origin.ts) on real agents on 127.0.0.1: a
// request carrying another site's `Origin` is refused with 403 before its body is read or its
// handler runs, on native routes, the A2A JSON-RPC and REST bindings, and the WebSocket
// handshake; the server's own origin, listed origins and requests without an Origin pass.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentServer } from '../../src/agent/agent-server.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import { BrowserOrigins, normalizeAllowedOrigin } from '../../src/transport/browser-origin.js';
import { ResolvedConfig } from '../../src/transport/config.js';
import { ConfigError } from '../../src/core/errors.js';
import { rawHttp, userTask } from '../support/agent-harness.js';
import { RawPeer, refusedHandshake } from '../support/websocket-peers.js';

const FOREIGN = 'http://evil.example';

/** An agent whose handler counts its runs, on `transport`, with `allowedOrigins`. */
async function countingAgent(t: { after(fn: () => unknown): void }, transport = 'http', allowedOrigins?: string[]) {
  const runs: string[] = [];
  const handler: AgentHandler = ({ input }) => {
    runs.push(input);
    return { text: `done: ${input}` };
  };
  const scheme = transport === 'websocket' ? 'ws' : 'http';
  const agent = new AgentServer({
    name: 'origin-agent',
    handler,
    a2a: transport === 'http',
    transport,
    url: `${scheme}://127.0.0.1:0`,
    transportOptions: allowedOrigins ? { allowedOrigins } : {},
  });
  await agent.start();
  t.after(() => agent.stop());
  return { agent, runs, port: new URL(agent.url).port };
}

/** A POST /tasks/ as a page's `fetch(url, { method: 'POST', body: blob })` sends it: no content type. */
function postTask(url: string, id: string, headers: Record<string, string>) {
  return rawHttp(url, { method: 'POST', path: '/tasks/', body: JSON.stringify(userTask(id, id)), headers });
}

describe('browser origin: native http routes', () => {
  test('a foreign Origin on POST /tasks/ without a content type is refused with 403 and the handler never runs', async (t) => {
    const { agent, runs } = await countingAgent(t);
    const answer = await postTask(agent.url, 'foreign', { origin: FOREIGN });
    assert.equal(answer.status, 403);
    const { error } = answer.json();
    assert.equal(error.code, 'forbidden');
    assert.equal(error.status, 403);
    assert.match(error.message, /http:\/\/evil\.example/);
    assert.match(error.message, /allowed_origins/);
    assert.deepEqual(runs, []);
  });

  test('on the sse transport too: a foreign Origin is refused and the handler never runs', async (t) => {
    const { agent, runs } = await countingAgent(t, 'sse');
    const answer = await postTask(agent.url, 'over-sse', { origin: FOREIGN });
    assert.equal(answer.status, 403);
    assert.equal(answer.json().error.code, 'forbidden');
    assert.deepEqual(runs, []);
    assert.equal((await postTask(agent.url, 'no-origin', {})).status, 200);
    assert.deepEqual(runs, ['no-origin']);
  });

  test('Origin: null (a sandboxed frame, a file) is refused', async (t) => {
    const { agent, runs } = await countingAgent(t);
    const answer = await postTask(agent.url, 'null-origin', { origin: 'null' });
    assert.equal(answer.status, 403);
    assert.deepEqual(runs, []);
  });

  test('a GET from a foreign origin is refused too', async (t) => {
    const { agent } = await countingAgent(t);
    const answer = await rawHttp(agent.url, { path: '/tasks/', headers: { origin: FOREIGN } });
    assert.equal(answer.status, 403);
  });

  const passing: [string, (port: string) => Record<string, string>][] = [
    ['no Origin (curl, Node, SDK clients)', () => ({})],
    ['the server’s own origin', (port) => ({ origin: `http://127.0.0.1:${port}` })],
    ['its own origin in other letter case', (port) => ({ origin: `HTTP://127.0.0.1:${port}` })],
    ['a host name the Host header names too', (port) => ({ origin: `http://localhost:${port}`, host: `LocalHost:${port}` })],
  ];
  for (const [name, headers] of passing) {
    test(`passes: ${name}`, async (t) => {
      const { agent, runs, port } = await countingAgent(t);
      const answer = await postTask(agent.url, 'ok', headers(port));
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(runs, ['ok']);
    });
  }

  test('another port of the same host is another origin', async (t) => {
    const { agent, runs, port } = await countingAgent(t);
    const answer = await postTask(agent.url, 'x', { origin: `http://127.0.0.1:${Number(port) + 1}` });
    assert.equal(answer.status, 403);
    assert.deepEqual(runs, []);
  });

  test('an origin listed in allowed_origins passes; another is still refused', async (t) => {
    const { agent, runs } = await countingAgent(t, 'http', ['http://localhost:5173']);
    assert.equal((await postTask(agent.url, 'listed', { origin: 'http://localhost:5173' })).status, 200);
    assert.equal((await postTask(agent.url, 'other', { origin: 'http://localhost:5174' })).status, 403);
    assert.deepEqual(runs, ['listed']);
  });

  test('"*" in allowed_origins lets any origin through, null included', async (t) => {
    const { agent, runs } = await countingAgent(t, 'http', ['*']);
    assert.equal((await postTask(agent.url, 'a', { origin: FOREIGN })).status, 200);
    assert.equal((await postTask(agent.url, 'b', { origin: 'null' })).status, 200);
    assert.deepEqual(runs, ['a', 'b']);
  });
});

describe('browser origin: the A2A bindings', () => {
  const send = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'SendMessage',
    params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
  });

  test('JSON-RPC: a foreign Origin gets 403 with a JSON-RPC error, and no task runs', async (t) => {
    const { agent, runs } = await countingAgent(t);
    const answer = await rawHttp(agent.url, { method: 'POST', path: '/', body: send, headers: { origin: FOREIGN } });
    assert.equal(answer.status, 403);
    const body = answer.json();
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /evil\.example.*allowed_origins/);
    assert.deepEqual(runs, []);
  });

  test('JSON-RPC: the same call without an Origin runs the task', async (t) => {
    const { agent, runs } = await countingAgent(t);
    const answer = await rawHttp(agent.url, { method: 'POST', path: '/', body: send, headers: { 'a2a-version': '1.0' } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json().error, undefined, answer.text);
    assert.deepEqual(runs, ['hello']);
  });

  test('REST: a foreign Origin gets 403 PERMISSION_DENIED in the binding’s error shape', async (t) => {
    const { agent, runs } = await countingAgent(t);
    const body = JSON.stringify({ message: { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'rest' }] } });
    const answer = await rawHttp(agent.url, {
      method: 'POST',
      path: '/a2a/rest/message:send',
      body,
      headers: { origin: FOREIGN },
    });
    assert.equal(answer.status, 403);
    const { error } = answer.json();
    assert.equal(error.code, 403);
    assert.equal(error.status, 'PERMISSION_DENIED');
    assert.match(error.message, /allowed_origins/);
    assert.deepEqual(runs, []);
  });
});

describe('browser origin: the websocket handshake', () => {
  test('a foreign Origin is refused with HTTP 403 and never upgraded', async (t) => {
    const { agent, runs } = await countingAgent(t, 'websocket');
    const refused = await refusedHandshake(agent.url, { origin: FOREIGN });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
    assert.match(refused.body.error.message, /allowed_origins/);
    assert.deepEqual(runs, []);
  });

  test('`ws` with a foreign `origin` option is refused', async (t) => {
    const { agent } = await countingAgent(t, 'websocket');
    await assert.rejects(RawPeer.open(agent.url, { origin: 'https://evil.example' }), /403/);
  });

  const passing: [string, (port: string) => string | undefined, string[]?][] = [
    ['no Origin', () => undefined],
    ['the server’s own origin', (port) => `http://127.0.0.1:${port}`],
    ['a listed origin', () => 'https://app.example.com', ['https://app.example.com']],
  ];
  for (const [name, origin, allowed] of passing) {
    test(`opens and answers: ${name}`, async (t) => {
      const { agent, runs, port } = await countingAgent(t, 'websocket', allowed);
      const given = origin(port);
      const peer = await RawPeer.open(agent.url, given ? { origin: given } : {});
      t.after(() => peer.close());
      const frames = await peer.call({ id: 'r1', method: 'POST', path: '/tasks/', data: userTask('ws-task', 'over ws') });
      assert.equal(frames.at(-1).ok, true, JSON.stringify(frames));
      assert.deepEqual(runs, ['over ws']);
    });
  }
});

describe('BrowserOrigins.refusal', () => {
  const none = new BrowserOrigins([]);
  const rows: [string, string, string | undefined, boolean][] = [
    ['same host and port', 'http://127.0.0.1:8080', '127.0.0.1:8080', true],
    ['https default port written in Host', 'https://agent.example', 'agent.example:443', true],
    ['http default port written in Host', 'http://agent.example', 'agent.example:80', true],
    ['Host without port, Origin with the default', 'http://agent.example:80', 'agent.example', true],
    ['Host port that is not the scheme default', 'https://agent.example', 'agent.example:80', false],
    ['host names compare without case', 'http://Agent.Example:9000', 'agent.example:9000', true],
    ['IPv6 with port', 'http://[::1]:8080', '[::1]:8080', true],
    ['IPv6 other port', 'http://[::1]:8081', '[::1]:8080', false],
    ['another host', 'http://evil.example:8080', '127.0.0.1:8080', false],
    ['no Host header', 'http://127.0.0.1:8080', undefined, false],
    ['another scheme', 'chrome-extension://abc', 'abc', false],
    ['null', 'null', '127.0.0.1:8080', false],
    ['an Origin with a path is malformed', 'http://127.0.0.1:8080/x', '127.0.0.1:8080', false],
  ];
  for (const [name, origin, host, allowed] of rows) {
    test(name, () => assert.equal(none.refusal(origin, host) === null, allowed));
  }
});

describe('allowed_origins in the transport config', () => {
  test('entries are kept in the form browsers send', () => {
    const config = new ResolvedConfig({ allowedOrigins: ['HTTPS://App.Example.com:443', 'http://localhost:5173/', '*'] });
    assert.deepEqual(config.allowedOrigins, ['https://app.example.com', 'http://localhost:5173', '*']);
    assert.deepEqual(config.toJSON().allowed_origins, ['https://app.example.com', 'http://localhost:5173', '*']);
    assert.deepEqual(new ResolvedConfig().allowedOrigins, []);
  });

  for (const bad of ['app.example.com', 'http://app.example.com/path', 'ftp://files.example', 'null', '']) {
    test(`refuses ${JSON.stringify(bad)}, naming the field`, () => {
      assert.throws(
        () => new ResolvedConfig({ allowedOrigins: [bad] }),
        (error: unknown) =>
          error instanceof ConfigError && error.field === 'allowedOrigins' && error.message.includes(JSON.stringify(bad)),
      );
    });
  }

  test('normalizeAllowedOrigin drops a written default port', () => {
    assert.equal(normalizeAllowedOrigin('http://example.com:80', 'x'), 'http://example.com');
  });
});
