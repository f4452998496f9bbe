// The store of A2A push-notification configs on a real redis-server keeps the rows every store
// keeps (test/support/push-config-store-rows.ts); the clock is the test's and each row has its
// own key prefix. One row more: a config put through one connection is read through another,
// as two replicas do.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { definePushConfigScripts, RedisPushConfigStore } from '../../../src/stores/redis/redis-push-config-store.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { pushConfigStoreRows } from '../../support/push-config-store-rows.js';

describe('RedisPushConfigStore', { skip: redisInstalled ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer;
  let client: Redis;
  let prefixes = 0;
  before(async () => {
    redis = await startRedis();
    client = testRedis(redis.url);
    definePushConfigScripts(client);
  });
  after(async () => {
    client?.disconnect();
    await redis?.dispose();
  });

  pushConfigStoreRows((bounds = {}) => {
    let now = 1_000_000;
    const store = new RedisPushConfigStore(client, `push${++prefixes}:`, redis.url, bounds, () => now);
    return { store, advance: (ms) => (now += ms) };
  });

  test('a config put through one connection is found through another (two replicas)', async () => {
    const other = testRedis(redis.url);
    definePushConfigScripts(other);
    try {
      const prefix = `push${++prefixes}:`;
      const scope = { tenant: '', principal: 'alice' };
      const one = new RedisPushConfigStore(client, prefix, redis.url);
      const two = new RedisPushConfigStore(other, prefix, redis.url);
      await one.put({
        tenant: '',
        owner: 'alice',
        taskId: 'task',
        id: 'c',
        url: 'https://hooks.example/',
        token: 't',
        authentication: null,
      });
      assert.deepEqual(
        (await two.touch(scope, 'task')).map((config) => config.token),
        ['t'],
      );
    } finally {
      other.disconnect();
    }
  });
});
