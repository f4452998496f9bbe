// The outbound side (spec: "Outbound protocol choice", A2A rules 6 and 7, "Timeouts and
// timers"): `auto` probes the native card and only a 404 or 405 means A2A; auth, server and
// connection errors are raised and never remembered; `a2a` against a parley agent with the
// boundary on keeps the local id, and cancels a task waiting for input through the mapping.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentClient } from '../../src/client/agent-client.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { needsInput } from '../../src/agent/handler.js';
import { BoundedCache } from '../../src/a2a/client/bounded-cache.js';
import { protocolChoices } from '../../src/a2a/client/protocol-choice.js';
import { TransportConnectionError, TransportRemoteError } from '../../src/transport/errors.js';
import { startA2aAgent } from './support.js';

/** A server that answers every request with `status` (and counts them). */
async function statusServer(t: { after(fn: () => unknown): void }, status: number): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

function client(
  t: { after(fn: () => unknown): void },
  url: string,
  options?: ConstructorParameters<typeof AgentClient>[1],
): AgentClient {
  const made = new AgentClient(url, options);
  t.after(() => made.close());
  return made;
}

describe('outbound protocol choice', () => {
  test('auto against a parley agent stays native, even with the A2A boundary on', async (t) => {
    const { url } = await startA2aAgent(t);
    const parley = client(t, url);
    const task = await parley.sendTask('hello');
    assert.equal(await parley.protocol(), 'parley');
    assert.equal(task.metadata!.a2a_remote, undefined);
  });

  for (const status of [401, 500, 503]) {
    test(`a ${status} on the native card is raised and not taken as evidence`, async (t) => {
      const peer = await statusServer(t, status);
      await assert.rejects(
        client(t, peer.url).sendTask('x'),
        (error) => error instanceof TransportRemoteError && error.statusCode === status,
      );
      assert.equal(protocolChoices.get(peer.url), undefined);
    });
  }

  test('an authentication failure against a parley agent is raised, not a move to A2A', async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: new ApiKeyAuthenticator({ validKeys: { 'good-key-0001': [] } }) });
    await assert.rejects(
      client(t, url).sendTask('x'),
      (error) => error instanceof TransportRemoteError && error.statusCode === 401,
    );
    assert.equal(protocolChoices.get(url), undefined);
  });

  test('a connection failure is raised and not remembered', async (t) => {
    const peer = await statusServer(t, 200);
    const url = peer.url.replace(/:\d+$/, ':1');
    await assert.rejects(
      client(t, url, { retry: { maxAttempts: 1 } }).sendTask('x'),
      (error) => error instanceof TransportConnectionError,
    );
    assert.equal(protocolChoices.get(url), undefined);
  });

  test('a 405 on the native card is definitive: A2A is tried next', async (t) => {
    const peer = await statusServer(t, 405);
    await assert.rejects(client(t, peer.url).sendTask('x'));
    assert.equal(protocolChoices.get(peer.url), 'a2a');
  });

  test('protocol parley never probes; protocol a2a is refused on other transports', async (t) => {
    const peer = await statusServer(t, 404);
    await assert.rejects(
      client(t, peer.url, { protocol: 'parley' }).sendTask('x'),
      (error) => error instanceof TransportRemoteError && error.statusCode === 404,
    );
    assert.equal(peer.hits(), 1, 'straight to the task route');
    assert.throws(() => new AgentClient('ws://127.0.0.1:1', { protocol: 'a2a' }), RangeError);
    assert.throws(() => new AgentClient('http://127.0.0.1:1', { protocol: 'carrier-pigeon' as never }), RangeError);
  });
});

describe('parley client, protocol a2a, against a parley agent with the boundary on', () => {
  test('keeps the local id, continues a task waiting for input, and cancels one by local id', async (t) => {
    const handler = ({ task, input }: { task: { messages?: unknown[] }; input: string }) =>
      (task.messages?.length ?? 0) === 1 ? needsInput(`which ${input}?`) : `got ${input}`;
    const { url } = await startA2aAgent(t, { handler });
    const parley = client(t, url, { protocol: 'a2a' });
    const asked = await parley.sendTask({
      id: 'mine-1',
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'city' }] }],
    });
    assert.equal(asked.id, 'mine-1');
    assert.equal(asked.state, 'input-required');
    const remoteId = (asked.metadata!.a2a_remote as { task_id: string }).task_id;
    asked.messages!.push({ role: 'user', parts: [{ type: 'text', content: 'Paris' }] });
    const answered = await parley.sendTask(asked);
    assert.equal(answered.state, 'completed');
    assert.equal((answered.metadata!.a2a_remote as { task_id: string }).task_id, remoteId, 'the same remote task went on');
    const second = await parley.sendTask({
      id: 'mine-2',
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'colour' }] }],
    });
    const canceled = await parley.cancel('mine-2', 'no longer needed');
    assert.equal(canceled.id, 'mine-2');
    assert.equal(canceled.state, 'canceled');
    assert.notEqual((second.metadata!.a2a_remote as { task_id: string }).task_id, 'mine-2');
  });
});

describe('BoundedCache', () => {
  test('entries expire after the TTL; over the cap the oldest goes first', () => {
    let now = 0;
    const cache = new BoundedCache<string, number>({ ttlMs: 100, maxEntries: 2, now: () => now });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.get('b'), 2);
    now = 100;
    assert.equal(cache.get('c'), 3, 'exactly the TTL is still fresh');
    now = 101;
    assert.equal(cache.get('c'), undefined);
  });
});
