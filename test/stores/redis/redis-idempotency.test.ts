// Shared idempotency records on a real redis-server, as two replicas (two connections) see
// them: one run per key across replicas, duplicates replaying its answer, a failed run
// releasing the key to a waiting duplicate, the TTL set on the record, the count and byte
// bounds evicting the oldest, an answer too large to keep not kept, Redis unreachable
// refusing the request before anything runs, and a Redis before 7.0 (which refuses the plain
// claim, SET with NX and GET) served by the claim script alone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type Redis, ReplyError } from 'ioredis';
import { RedisStoreError } from '../../../src/stores/redis/redis-error.js';
import { connectRedis, parseRedisUrl } from '../../../src/stores/redis/redis-connection.js';
import { defineIdempotencyScripts, RedisIdempotency } from '../../../src/stores/redis/redis-idempotency.js';
import type { UnaryOutcome } from '../../../src/transport/dispatcher.js';
import type { IdempotencyBounds } from '../../../src/transport/idempotency-store.js';
import { deferred } from '../../support/async.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';

const BOUNDS: IdempotencyBounds = { ttlSeconds: 60, maxEntries: 100, maxWeight: 1_000_000 };

function outcome(text: string): UnaryOutcome {
  return { kind: 'json', encoded: { text, bytes: Buffer.byteLength(text) }, replayed: false };
}

const always = () => true;
const bytes = (value: UnaryOutcome) => (value.kind === 'json' ? value.encoded.bytes : 0);
const textOf = (value: UnaryOutcome) => (value.kind === 'json' ? value.encoded.text : value.text);

describe('RedisIdempotency', { skip: redisInstalled ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer;
  const clients: Redis[] = [];
  let prefixes = 0;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const client of clients) client.disconnect();
    await redis?.dispose();
  });

  /** Two replicas' views of one prefix, each on its own connection. */
  async function replicas(bounds: IdempotencyBounds = BOUNDS) {
    const prefix = `id${++prefixes}:`;
    const made: Redis[] = [];
    const make = async () => {
      const client = await connectRedis(parseRedisUrl(redis.url));
      clients.push(client);
      made.push(client);
      defineIdempotencyScripts(client);
      return new RedisIdempotency(client, prefix, redis.url, bounds);
    };
    const a = await make();
    const b = await make();
    // Commands on one connection are answered in order: once B's PING is answered, the claim B
    // sent before it has been seen, so B is waiting on the run that owns the key.
    const bHasLooked = () => made[1]!.ping();
    return { a, b, prefix, bHasLooked };
  }

  test('concurrent duplicates on two replicas run once and share the answer', async () => {
    const { a, b, bHasLooked } = await replicas();
    const gate = deferred<void>();
    const started = deferred<void>();
    let runs = 0;
    const operation = async () => {
      runs++;
      started.resolve();
      await gate.promise;
      return outcome('{"n":1}');
    };
    const first = a.run('k', operation, always, bytes);
    // The duplicates start once the first run owns the key.
    await started.promise;
    const waiting = [b.run('k', operation, always, bytes), a.run('k', operation, always, bytes)];
    await bHasLooked();
    gate.resolve();
    const answers = await Promise.all([first, ...waiting]);
    assert.equal(runs, 1);
    assert.deepEqual(
      answers.map((answer) => [textOf(answer.value), answer.replayed]),
      [
        ['{"n":1}', false],
        ['{"n":1}', true],
        ['{"n":1}', true],
      ],
    );
  });

  test('a failed run releases the key: a duplicate waiting on another replica runs it afresh', async () => {
    const { a, b, bHasLooked } = await replicas();
    const gate = deferred<void>();
    const started = deferred<void>();
    const failing = a.run(
      'k',
      async () => {
        started.resolve();
        await gate.promise;
        throw new Error('boom');
      },
      always,
      bytes,
    );
    await started.promise;
    let retried = 0;
    const duplicate = b.run(
      'k',
      async () => {
        retried++;
        return outcome('"second"');
      },
      always,
      bytes,
    );
    await bHasLooked();
    gate.resolve();
    await assert.rejects(failing, /boom/);
    const answer = await duplicate;
    assert.equal(retried, 1);
    assert.deepEqual([textOf(answer.value), answer.replayed], ['"second"', false]);
  });

  test('a Redis before 7.0, which refuses SET with NX and GET, is served by the claim script alone', async () => {
    const prefix = `id${++prefixes}:`;
    const make = async () => {
      const client = await connectRedis(parseRedisUrl(redis.url));
      clients.push(client);
      defineIdempotencyScripts(client);
      // The server here is 7.0: the answer Redis 6.2 gives to NX with GET is made on the client.
      const call = client.call.bind(client) as (...args: unknown[]) => Promise<unknown>;
      let refused = 0;
      client.call = ((...args: unknown[]) => {
        if (args[0] === 'SET' && args.includes('NX') && args.includes('GET')) {
          refused += 1;
          return Promise.reject(new ReplyError('ERR syntax error'));
        }
        return call(...args);
      }) as typeof client.call;
      return { runner: new RedisIdempotency(client, prefix, redis.url, BOUNDS), refused: () => refused };
    };
    const a = await make();
    const b = await make();
    let runs = 0;
    const operation = (text: string) => async () => {
      runs += 1;
      return outcome(text);
    };
    const first = await a.runner.run('k', operation('one'), always, bytes);
    const second = await b.runner.run('k', operation('two'), always, bytes);
    const third = await a.runner.run('k', operation('three'), always, bytes);
    assert.equal(runs, 1);
    assert.deepEqual(
      [first, second, third].map((answer) => [textOf(answer.value), answer.replayed]),
      [
        ['one', false],
        ['one', true],
        ['one', true],
      ],
    );
    // Each runner tried the plain claim once, then used the script only.
    assert.deepEqual([a.refused(), b.refused()], [1, 1]);
  });

  test('a stored answer carries the TTL', async () => {
    const { a, prefix } = await replicas({ ...BOUNDS, ttlSeconds: 30 });
    await a.run('k', async () => outcome('1'), always, bytes);
    const id = createHash('sha256').update('k').digest('base64url');
    const probe = testRedis(redis.url);
    clients.push(probe);
    const ttl = await probe.pttl(`${prefix}idem:${id}`);
    assert.ok(ttl > 0 && ttl <= 30_000, `pttl ${ttl}`);
  });

  test('the count and byte bounds evict the oldest answers, on every replica', async () => {
    const { a, b } = await replicas({ ttlSeconds: 60, maxEntries: 2, maxWeight: 10 });
    let runs = 0;
    const run = (replica: RedisIdempotency, key: string, text: string) =>
      replica.run(
        key,
        async () => {
          runs++;
          return outcome(text);
        },
        always,
        bytes,
      );
    await run(a, 'one', '"1"');
    await run(b, 'two', '"2"');
    await run(a, 'three', '"3"');
    assert.equal(runs, 3);
    assert.equal((await run(b, 'three', 'x')).replayed, true);
    assert.equal((await run(b, 'two', 'x')).replayed, true);
    assert.equal((await run(b, 'one', '"1"')).replayed, false, 'the oldest went over the count');
    runs = 0;
    await run(a, 'big', '"123456"');
    assert.equal((await run(b, 'one', 'x')).replayed, false, '3 + 8 bytes is over 10: the older went');
    assert.equal((await run(b, 'big', 'x')).replayed, true);
    assert.equal((await run(a, 'huge', '"far too large"')).replayed, false);
    assert.equal((await run(b, 'huge', '"far too large"')).replayed, false, 'larger than the whole budget: not kept');
    assert.equal((await run(b, 'big', 'x')).replayed, true, 'and it evicted nothing');
  });

  test('an answer that is not replayable goes to the duplicates already waiting, and is not kept for later ones', async () => {
    const { a, b, bHasLooked } = await replicas();
    const gate = deferred<void>();
    const started = deferred<void>();
    let runs = 0;
    const operation = async () => {
      const n = ++runs;
      started.resolve();
      await gate.promise;
      return outcome(String(n));
    };
    const first = a.run('k', operation, () => false, bytes);
    await started.promise;
    const waiting = b.run('k', operation, () => false, bytes);
    await bHasLooked();
    gate.resolve();
    assert.deepEqual(
      (await Promise.all([first, waiting])).map((answer) => [textOf(answer.value), answer.replayed]),
      [
        ['1', false],
        ['1', true],
      ],
    );
    const later = await b.run('k', operation, () => false, bytes);
    assert.deepEqual([textOf(later.value), later.replayed], ['2', false]);
  });

  test('acting first (replayWhen): a retry on another replica runs again; a new answer replaces the stored one, a refusal replays it', async () => {
    const { a, b } = await replicas();
    const gone = new Error('nothing to act on');
    const refused = (error: unknown) => error === gone;
    let active = true;
    let runs = 0;
    const cancel = async () => {
      runs++;
      if (!active) throw gone;
      active = false;
      return outcome(`{"run":${runs}}`);
    };
    const answer = async (replica: RedisIdempotency) => {
      const { value, replayed } = await replica.run('k', cancel, always, bytes, refused);
      return [textOf(value), replayed];
    };
    assert.deepEqual(await answer(a), ['{"run":1}', false]);
    assert.deepEqual(await answer(b), ['{"run":1}', true]);
    active = true;
    assert.deepEqual(await answer(b), ['{"run":3}', false]);
    assert.deepEqual(await answer(a), ['{"run":3}', true]);
    assert.equal(runs, 4);
    // Without replayWhen the stored answer is replayed without running.
    assert.deepEqual(textOf((await a.run('k', cancel, always, bytes)).value), '{"run":3}');
    assert.equal(runs, 4);
    // Another failure is the caller's, and the stored answer stays.
    const broken = async (): Promise<UnaryOutcome> => {
      throw new Error('broken');
    };
    await assert.rejects(a.run('k', broken, always, bytes, refused), /broken/);
    assert.deepEqual(await answer(b), ['{"run":3}', true]);
  });

  test('Redis unreachable: a RedisStoreError before anything runs', async () => {
    const own = await startRedis();
    const client = await connectRedis(parseRedisUrl(own.url));
    clients.push(client);
    defineIdempotencyScripts(client);
    const store = new RedisIdempotency(client, 'down:', own.url, BOUNDS);
    await own.dispose();
    let runs = 0;
    await assert.rejects(
      store.run('k', async () => outcome(String(++runs)), always, bytes),
      (error) => error instanceof RedisStoreError && error.code === 'redis_unavailable',
    );
    assert.equal(runs, 0);
  });
});
