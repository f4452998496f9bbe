// Spec "Idempotency and correlation": how the client derives a key, and what the server's
// cache does with it (namespacing by route and by principal, ownership, waiting duplicates,
// replay until TTL, release on failure, bounded by count and by bytes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OperationSpec } from '../../generated/operations/spec.js';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { RegistryOperationsClient } from '../../generated/clients/registry.js';
import { registryOperations } from '../../generated/operations/registry.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { IdempotencyCache } from '../../src/transport/idempotency-cache.js';
import { idempotencyKeyFor } from '../../src/transport/idempotency-key.js';
import {
  answer,
  bytesOf,
  client,
  gate,
  header,
  ops,
  rawRequest,
  rawServer,
  rejection,
  runtimeUrl,
  serve,
  table,
  unary,
  waitFor,
} from '../support/transport-fixtures.js';

// ---- client side: which key a request carries ------------------------------------------------

const keyed: OperationSpec = { ...ops.sendTask, name: 'keyed', path: '/keyed' };
const streamingIdempotent: OperationSpec = { ...ops.sendTask, streaming: true };

const derivations: Array<[string, OperationSpec, unknown, string | null]> = [
  // [label, spec, payload, expected key ('REQ' = the request id)]
  ['id first', keyed, { id: 'i', task_id: 't', agent_url: 'a' }, 'i'],
  ['then task_id', keyed, { task_id: 't', agent_url: 'a' }, 't'],
  ['then agent_url', keyed, { agent_url: 'http://agent' }, 'http://agent'],
  ['else the request id', keyed, { other: 1 }, 'REQ'],
  ['an empty id falls through', keyed, { id: '', task_id: 't' }, 't'],
  ['no payload (card retrieval)', ops.getCard, undefined, 'REQ'],
  ['task submission', ops.sendTask, { id: 'task-1' }, 'task-1'],
  ['cancellation', ops.cancelTask, { id: 'task-1' }, 'task-1'],
  ['state description without ids', ops.describeState, { scope: 'agent' }, 'REQ'],
  ['registry unregister', registryOperations.unregister, { agent_url: 'http://a' }, 'http://a'],
  ['registry heartbeat', registryOperations.heartbeat, { agent_url: 'http://b' }, 'http://b'],
  ['not idempotent: state reset', ops.resetState, { id: 'x' }, null],
  ['not idempotent: state compaction', ops.compactState, { id: 'x' }, null],
  ['not idempotent: registry register', registryOperations.register, { name: 'n', url: 'u' }, null],
  ['streams carry none', ops.streamTask, { id: 'x' }, null],
  ['an idempotent spec marked streaming carries none', streamingIdempotent, { id: 'x' }, null],
];
for (const [label, spec, payload, expected] of derivations) {
  test(`idempotency key: ${label}`, () => {
    assert.equal(idempotencyKeyFor(spec, payload, 'request-id-1'), expected === 'REQ' ? 'request-id-1' : expected);
  });
}

test('http: keys travel in the Idempotency-Key header as derived; none for non-idempotent calls', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 200, { ok: true }));
  const transport = await client(t, 'http', peer.url);
  const agent = new AgentOperationsClient(transport);
  const registry = new RegistryOperationsClient(transport);
  await agent.sendTask({ id: 'task-7' });
  await agent.cancelTask({ id: 'task-7' });
  await agent.describeState({ scope: 'agent' });
  await agent.resetState({ scope: 'agent' });
  await registry.heartbeat({ agent_url: 'http://peer' });
  await agent.getCard();
  const seen = peer.requests.map((r) => [r.path, header(r, 'idempotency-key'), header(r, 'x-svc-request-id')]);
  assert.deepEqual(
    seen.map(([path, key]) => [path, key]),
    [
      ['/tasks/', 'task-7'],
      ['/tasks/cancel', 'task-7'],
      ['/state/describe', seen[2]![2]],
      ['/state/reset', undefined],
      ['/agents/heartbeat', 'http://peer'],
      ['/.well-known/agent.json', seen[5]![2]],
    ],
  );
  const requestIds = new Set(seen.map(([, , id]) => id));
  assert.equal(requestIds.size, 6, 'every logical request has its own request id');
});

test('http: an explicit idempotencyKey option replaces the derived one', async (t) => {
  const peer = await rawServer(t, (_req, res) => answer(res, 200, { id: 'x' }));
  const transport = await client(t, 'http', peer.url);
  await transport.unary(ops.sendTask, { id: 'x' }, { idempotencyKey: 'resubmit-2' });
  assert.equal(header(peer.requests[0]!, 'idempotency-key'), 'resubmit-2');
});

test('runtime: the handler sees the derived key in its request context', async (t) => {
  const url = runtimeUrl('idem-ctx');
  const keys: Array<string | null> = [];
  await serve(
    t,
    'runtime',
    url,
    table(
      unary(ops.sendTask, (task, context) => (keys.push(context.idempotencyKey), task)),
      unary(
        ops.resetState,
        (_r, context) => (keys.push(context.idempotencyKey), { operation: 'reset', state: {}, changed: true }),
      ),
    ),
  );
  const api = new AgentOperationsClient(await client(t, 'runtime', url));
  await api.sendTask({ id: 'rt-1' });
  await api.resetState({});
  assert.deepEqual(keys, ['rt-1', null]);
});

// ---- the server cache on its own (injected clock) ---------------------------------------------

test('cache: keys are namespaced by method and path', () => {
  const keys = new Set([
    IdempotencyCache.key('POST', '/tasks/', 'k'),
    IdempotencyCache.key('POST', '/tasks/cancel', 'k'),
    IdempotencyCache.key('DELETE', '/agents/', 'k'),
    IdempotencyCache.key('GET', '/agents/', 'k'),
  ]);
  assert.equal(keys.size, 4);
});

test('cache: keys are namespaced by principal; no principal, or a principal shaped like a key, is a namespace of its own', () => {
  const keys = new Set([
    IdempotencyCache.key('POST', '/tasks/', 'k', null),
    IdempotencyCache.key('POST', '/tasks/', 'k', 'alice'),
    IdempotencyCache.key('POST', '/tasks/', 'k', 'bob'),
    IdempotencyCache.key('POST', '/tasks/', 'k', '-'),
    IdempotencyCache.key('POST', '/tasks/', '"alice" k', null),
    IdempotencyCache.key('POST', '/tasks/', 'k', 'alice k'),
  ]);
  assert.equal(keys.size, 6);
  assert.equal(IdempotencyCache.key('POST', '/tasks/', 'k', 'alice'), IdempotencyCache.key('POST', '/tasks/', 'k', 'alice'));
});

test('cache: the first caller owns; a concurrent duplicate waits and gets the same result', async () => {
  const cache = new IdempotencyCache(300, { maxEntries: 10, maxWeight: 1_000 });
  const hold = gate();
  let runs = 0;
  const operation = async () => {
    runs++;
    await hold.promise;
    return { run: runs };
  };
  const owner = cache.run('k', operation);
  const duplicate = cache.run('k', operation);
  hold.open();
  const [a, b] = await Promise.all([owner, duplicate]);
  assert.equal(runs, 1);
  assert.deepEqual(a, { value: { run: 1 }, replayed: false });
  assert.deepEqual(b, { value: { run: 1 }, replayed: true });
  assert.equal(a.value, b.value);
});

test('cache: later duplicates are replayed until the TTL runs out, then run again', async () => {
  let now = 1_000_000;
  const cache = new IdempotencyCache(10, { maxEntries: 10, maxWeight: 1_000 }, () => now);
  let runs = 0;
  const operation = async () => ++runs;
  assert.deepEqual(await cache.run('k', operation), { value: 1, replayed: false });
  now += 9_999;
  assert.deepEqual(await cache.run('k', operation), { value: 1, replayed: true });
  now += 1;
  assert.deepEqual(await cache.run('k', operation), { value: 2, replayed: false });
  assert.equal(runs, 2);
});

test('cache: over many turnovers, and with results expired out of turn, the newest stay and the oldest go', async () => {
  let now = 1_000_000;
  const cache = new IdempotencyCache(10, { maxEntries: 5, maxWeight: 1_000 }, () => now);
  const runs = new Map<string, number>();
  const op = (key: string) => async () => {
    runs.set(key, (runs.get(key) ?? 0) + 1);
    return key;
  };
  for (let i = 0; i < 40; i++) await cache.run(`early${i}`, op(`early${i}`));
  // The last five expire and are evicted as they are asked for again (and run again).
  now += 10_000;
  for (let i = 35; i < 40; i++) assert.equal((await cache.run(`early${i}`, op(`early${i}`))).replayed, false);
  for (let i = 0; i < 1_000; i++) await cache.run(`k${i}`, op(`k${i}`));
  assert.equal(cache.size, 5);
  for (let i = 995; i < 1_000; i++) assert.equal((await cache.run(`k${i}`, op(`k${i}`))).replayed, true, `k${i}`);
  assert.equal((await cache.run('k994', op('k994'))).replayed, false);
  assert.equal((await cache.run('early39', op('early39'))).replayed, false);
  assert.equal(runs.get('k994'), 2);
  assert.equal(runs.get('k995'), 1);
});

test('cache: a failed operation is released, not stored; waiting duplicates run it again', async () => {
  const cache = new IdempotencyCache(300, { maxEntries: 10, maxWeight: 1_000 });
  const hold = gate();
  let runs = 0;
  const operation = async () => {
    runs++;
    if (runs === 1) {
      await hold.promise;
      throw new Error('first run failed');
    }
    return runs;
  };
  const owner = cache.run('k', operation);
  const duplicate = cache.run('k', operation);
  hold.open();
  await assert.rejects(owner, /first run failed/);
  assert.deepEqual(await duplicate, { value: 2, replayed: false });
  assert.deepEqual(await cache.run('k', operation), { value: 2, replayed: true });
  assert.equal(runs, 2);
});

test('cache: acting first (replayWhen), a later duplicate runs again; its new result replaces the stored one, a refusal replays it', async () => {
  let now = 1_000_000;
  const cache = new IdempotencyCache(10, { maxEntries: 10, maxWeight: 1_000 }, () => now);
  const gone = new Error('nothing to act on');
  const refused = (error: unknown) => error === gone;
  let active = true;
  let runs = 0;
  // A cancel: answers while there is something to cancel, refuses once there is not.
  const cancel = async () => {
    runs++;
    if (!active) throw gone;
    active = false;
    return `canceled by run ${runs}`;
  };
  assert.deepEqual(await cache.run('k', cancel, undefined, undefined, refused), { value: 'canceled by run 1', replayed: false });
  // A retry: nothing left to act on, so the stored answer.
  assert.deepEqual(await cache.run('k', cancel, undefined, undefined, refused), { value: 'canceled by run 1', replayed: true });
  // The work came back (a task that runs again): the retry acts on it, and its answer is kept.
  active = true;
  assert.deepEqual(await cache.run('k', cancel, undefined, undefined, refused), { value: 'canceled by run 3', replayed: false });
  assert.deepEqual(await cache.run('k', cancel, undefined, undefined, refused), { value: 'canceled by run 3', replayed: true });
  assert.equal(cache.size, 1);
  // Any other failure is the caller's, and leaves the stored answer in place.
  const broken = async () => {
    throw new Error('broken');
  };
  await assert.rejects(cache.run('k', broken, undefined, undefined, refused), /broken/);
  assert.deepEqual(await cache.run('k', cancel, undefined, undefined, refused), { value: 'canceled by run 3', replayed: true });
  // Past the TTL there is nothing to replay: the refusal is the answer.
  now += 10_000;
  await assert.rejects(cache.run('k', cancel, undefined, undefined, refused), /nothing to act on/);
  assert.equal(cache.size, 0);
});

test('cache: acting first, duplicates that come during the run share it', async () => {
  const cache = new IdempotencyCache(300, { maxEntries: 10, maxWeight: 1_000 });
  const refused = () => true;
  assert.equal((await cache.run('k', async () => 'first', undefined, undefined, refused)).value, 'first');
  const hold = gate();
  let runs = 0;
  const operation = async () => {
    runs++;
    await hold.promise;
    return 'second';
  };
  const owner = cache.run('k', operation, undefined, undefined, refused);
  const duplicate = cache.run('k', operation, undefined, undefined, refused);
  hold.open();
  assert.deepEqual(await Promise.all([owner, duplicate]), [
    { value: 'second', replayed: false },
    { value: 'second', replayed: true },
  ]);
  assert.equal(runs, 1);
  assert.equal(cache.size, 1);
});

test('cache: bounded by total weight; the oldest entries are evicted until the new one fits', async () => {
  const cache = new IdempotencyCache(300, { maxEntries: 100, maxWeight: 10 });
  const runs: string[] = [];
  const op = (key: string) => async () => (runs.push(key), key);
  const weigh = (value: string) => Number(value.slice(1));
  await cache.run('a4', op('a4'), undefined, weigh);
  await cache.run('b4', op('b4'), undefined, weigh);
  assert.equal(cache.weight, 8);
  await cache.run('c5', op('c5'), undefined, weigh);
  assert.equal(cache.weight, 9, 'a4 went to make room for c5; b4 and c5 fit');
  assert.equal(cache.size, 2);
  assert.equal((await cache.run('b4', op('b4'), undefined, weigh)).replayed, true);
  assert.equal((await cache.run('c5', op('c5'), undefined, weigh)).replayed, true);
  assert.equal((await cache.run('a4', op('a4'), undefined, weigh)).replayed, false, 'a4 was evicted');
  assert.deepEqual(runs, ['a4', 'b4', 'c5', 'a4']);
});

test('cache: a result heavier than the whole budget is shared with concurrent duplicates but not stored', async () => {
  const cache = new IdempotencyCache(300, { maxEntries: 100, maxWeight: 10 });
  await cache.run(
    'small',
    async () => 'kept',
    undefined,
    () => 3,
  );
  const hold = gate();
  let runs = 0;
  const big = async () => {
    runs++;
    await hold.promise;
    return `big ${runs}`;
  };
  const owner = cache.run('big', big, undefined, () => 11);
  const duplicate = cache.run('big', big, undefined, () => 11);
  hold.open();
  assert.deepEqual(await owner, { value: 'big 1', replayed: false });
  assert.deepEqual(await duplicate, { value: 'big 1', replayed: true });
  assert.equal(cache.weight, 3, 'nothing was evicted for it and it was not kept');
  assert.equal((await cache.run('small', async () => 'again')).replayed, true);
  assert.deepEqual(await cache.run('big', big, undefined, () => 11), { value: 'big 2', replayed: false });
});

test('cache: bounded; the oldest entry is evicted first', async () => {
  const cache = new IdempotencyCache(300, { maxEntries: 2, maxWeight: 1_000 });
  const runs: string[] = [];
  const op = (key: string) => async () => (runs.push(key), key);
  await cache.run('a', op('a'));
  await cache.run('b', op('b'));
  await cache.run('c', op('c'));
  assert.equal(cache.size, 2);
  assert.equal((await cache.run('b', op('b'))).replayed, true);
  assert.equal((await cache.run('c', op('c'))).replayed, true);
  assert.equal((await cache.run('a', op('a'))).replayed, false, 'a was evicted');
  assert.deepEqual(runs, ['a', 'b', 'c', 'a']);
});

// ---- the server cache behind a real transport ------------------------------------------------

/** An http server whose sendTask and cancelTask count their invocations. */
async function countingServer(t: Parameters<typeof serve>[0], options = {}, hold?: Promise<void>) {
  const runs = { send: 0, cancel: 0, reset: 0 };
  const server = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table(
      unary(ops.sendTask, async (task) => {
        const run = ++runs.send;
        if (hold) await hold;
        if (task.metadata?.fail === run) throw new Error(`run ${run} fails`);
        return { ...task, state: 'completed', metadata: { ...task.metadata, run } };
      }),
      unary(ops.cancelTask, (request) => ({ id: request.id, state: 'canceled', metadata: { run: ++runs.cancel } })),
      unary(ops.resetState, () => ({ operation: 'reset', state: {}, changed: true, metadata: { run: ++runs.reset } })),
    ),
    options,
  );
  return { server, runs };
}

test('server: the same key on two routes runs both', async (t) => {
  const { server, runs } = await countingServer(t);
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  assert.equal((await api.sendTask({ id: 'same' })).state, 'completed');
  assert.equal((await api.cancelTask({ id: 'same' })).state, 'canceled');
  assert.deepEqual(runs, { send: 1, cancel: 1, reset: 0 });
});

test('server: concurrent duplicates wait for the first and get its result; the handler runs once', async (t) => {
  const hold = gate();
  const { server, runs } = await countingServer(t, {}, hold.promise);
  // Two separate callers (two client transports), same task id.
  const one = new AgentOperationsClient(await client(t, 'http', server.url));
  const two = new AgentOperationsClient(await client(t, 'http', server.url));
  const first = one.sendTask({ id: 'dup' });
  await waitFor(() => runs.send === 1, 'owner running');
  const second = two.sendTask({ id: 'dup' });
  const third = two.sendTask({ id: 'dup' });
  await waitFor(() => server.health().metrics.requests_started === 3, 'duplicates arrived');
  assert.equal(runs.send, 1);
  hold.open();
  const results = await Promise.all([first, second, third]);
  assert.equal(runs.send, 1);
  for (const result of results) assert.deepEqual(result, { id: 'dup', state: 'completed', metadata: { run: 1 } });
});

test('server: a later duplicate is replayed until the TTL runs out, then runs again', async (t) => {
  // Long enough for a loaded machine's two calls to fall inside it.
  const { server, runs } = await countingServer(t, { idempotencyTtl: 1 });
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  assert.equal((await api.sendTask({ id: 'ttl' })).metadata?.run, 1);
  // Replayed even though the body differs: the key decides.
  assert.equal((await api.sendTask({ id: 'ttl', messages: [] })).metadata?.run, 1);
  assert.equal(runs.send, 1);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  assert.equal((await api.sendTask({ id: 'ttl' })).metadata?.run, 2);
  assert.equal(runs.send, 2);
});

test('server: a failed operation is released and runs again on the next request', async (t) => {
  const { server, runs } = await countingServer(t);
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  const error = await rejection(api.sendTask({ id: 'flaky', metadata: { fail: 1 } }));
  assert.equal(error.statusCode, 500);
  const ok = await api.sendTask({ id: 'flaky', metadata: { fail: 1 } });
  assert.equal(ok.metadata?.run, 2);
  // ...and that success is now stored.
  assert.equal((await api.sendTask({ id: 'flaky' })).metadata?.run, 2);
  assert.equal(runs.send, 2);
});

test('server: the cache is bounded by idempotency_cache_size, oldest evicted first', async (t) => {
  const { server, runs } = await countingServer(t, { idempotencyCacheSize: 2 });
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  for (const id of ['a', 'b', 'c']) await api.sendTask({ id });
  assert.equal(runs.send, 3);
  assert.equal((await api.sendTask({ id: 'c' })).metadata?.run, 3, 'c replayed');
  assert.equal((await api.sendTask({ id: 'b' })).metadata?.run, 2, 'b replayed');
  assert.equal((await api.sendTask({ id: 'a' })).metadata?.run, 4, 'a was evicted and ran again');
  assert.equal(runs.send, 4);
});

test('server: the cache is bounded by idempotency_cache_bytes, counting the encoded answers, oldest evicted first', async (t) => {
  // Each answer is the task back with a 1,000-character note: a little over 1 KB encoded.
  const note = 'x'.repeat(1_000);
  const { server, runs } = await countingServer(t, { idempotencyCacheBytes: 2_500 });
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  const first = await api.sendTask({ id: 'a', metadata: { note } });
  assert.ok(bytesOf(first) > 1_000 && bytesOf(first) < 1_250, `an answer is ${bytesOf(first)} bytes`);
  await api.sendTask({ id: 'b', metadata: { note } });
  await api.sendTask({ id: 'c', metadata: { note } });
  assert.equal(runs.send, 3);
  assert.equal((await api.sendTask({ id: 'c' })).metadata?.run, 3, 'c replayed');
  assert.equal((await api.sendTask({ id: 'b' })).metadata?.run, 2, 'b replayed');
  assert.equal((await api.sendTask({ id: 'a' })).metadata?.run, 4, 'a was evicted to keep the bytes in budget, and ran again');
  assert.equal(runs.send, 4);
});

test('server: an answer larger than idempotency_cache_bytes is not stored; a later duplicate runs again', async (t) => {
  const { server, runs } = await countingServer(t, { idempotencyCacheBytes: 500 });
  const api = new AgentOperationsClient(await client(t, 'http', server.url));
  assert.equal((await api.sendTask({ id: 'small' })).metadata?.run, 1);
  assert.equal((await api.sendTask({ id: 'large', metadata: { note: 'y'.repeat(1_000) } })).metadata?.run, 2);
  assert.equal((await api.sendTask({ id: 'large' })).metadata?.run, 3, 'the large answer was not kept');
  assert.equal((await api.sendTask({ id: 'small' })).metadata?.run, 1, 'and nothing was evicted for it');
  assert.equal(runs.send, 3);
});

test('server: a key on a non-idempotent route is ignored; every request runs', async (t) => {
  const { server, runs } = await countingServer(t);
  for (let i = 0; i < 2; i++) {
    const res = await rawRequest(server.url, {
      method: 'POST',
      path: '/state/reset',
      headers: { 'idempotency-key': 'same' },
      body: '{}',
    });
    assert.equal(res.status, 200);
  }
  assert.equal(runs.reset, 2);
});

test('server: requests without a key are never deduplicated', async (t) => {
  const { server, runs } = await countingServer(t);
  for (let i = 0; i < 2; i++) {
    const res = await rawRequest(server.url, { method: 'POST', path: '/tasks/', body: '{"id":"nokey"}' });
    assert.equal(res.status, 200);
  }
  assert.equal(runs.send, 2);
});

test('runtime: duplicates are suppressed with the in-process namespaced key', async (t) => {
  const url = runtimeUrl('idem-rt');
  let runs = 0;
  await serve(t, 'runtime', url, table(unary(ops.sendTask, (task) => ({ ...task, metadata: { run: ++runs } }))));
  const api = new AgentOperationsClient(await client(t, 'runtime', url));
  const a = await api.sendTask({ id: 'rt-dup' });
  const b = await api.sendTask({ id: 'rt-dup' });
  assert.deepEqual(a, b);
  assert.equal(runs, 1);
  await api.sendTask({ id: 'rt-other' });
  assert.equal(runs, 2);
});

// ---- replay never crosses principals -----------------------------------------------------------

/** Accepts the credentials `alice` and `bob`, each its own principal. */
const twoPrincipals: Authenticator = {
  scheme: { type: 'apiKey', scheme: null, description: 'test keys', metadata: {} },
  authenticate: async (credentials) => {
    if (credentials !== 'alice' && credentials !== 'bob') throw new Error('Invalid API key');
    return { principal_id: `principal-${credentials}`, token: credentials, expires_at: null, metadata: {} };
  },
  refreshToken: async (context) => context,
};

const LISTEN: Record<string, string> = {
  http: 'http://127.0.0.1:0',
  sse: 'http://127.0.0.1:0',
  websocket: 'ws://127.0.0.1:0',
  grpc: 'grpc://127.0.0.1:0',
};

for (const kind of ['http', 'sse', 'websocket', 'grpc', 'runtime']) {
  test(`${kind}: the same key from another principal runs for that principal; each is replayed its own answer`, async (t) => {
    const url = kind === 'runtime' ? runtimeUrl('idem-principal') : LISTEN[kind]!;
    let runs = 0;
    const server = await serve(
      t,
      kind,
      url,
      table(
        unary(ops.sendTask, (task, context) => ({
          ...task,
          state: 'completed',
          metadata: { run: ++runs, for: context.security?.principal_id },
        })),
      ),
      { authenticator: twoPrincipals },
    );
    const as = async (credentials: string) =>
      new AgentOperationsClient(await client(t, kind, server.url, { authenticator: twoPrincipals, credentials }));
    const alice = await as('alice');
    const bob = await as('bob');
    assert.deepEqual((await alice.sendTask({ id: 'shared-id' })).metadata, { run: 1, for: 'principal-alice' });
    assert.deepEqual(
      (await bob.sendTask({ id: 'shared-id' })).metadata,
      { run: 2, for: 'principal-bob' },
      "bob did not get alice's answer",
    );
    assert.deepEqual(
      (await alice.sendTask({ id: 'shared-id' })).metadata,
      { run: 1, for: 'principal-alice' },
      'alice replayed hers',
    );
    assert.deepEqual((await bob.sendTask({ id: 'shared-id' })).metadata, { run: 2, for: 'principal-bob' }, 'bob replayed his');
    assert.equal(runs, 2);
  });
}
