// A Redis set to evict keys loses acknowledged writes without a word (issue 28: with
// allkeys-lru, most of 1,500 acknowledged registrations were gone), so an agent and a registry
// refuse to start on one (docs/replicas.md, "A Redis that evicts"): RedisStoreError
// `redis_eviction_policy`, and `parley serve` exits 1 saying why. noeviction is always taken;
// volatile-* only by the registry, whose keys carry no TTL (an agent's idempotency records
// do). allowStoreEviction (--store-allow-eviction) starts anyway. A Redis that renames CONFIG is
// read through INFO; one that answers neither (an ACL denying both) is refused too, unless told
// to start anyway.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { RegistryServer } from '../../../src/registry/registry-server.js';
import { RedisStoreError } from '../../../src/stores/redis/redis-error.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';

const skip = redisInstalled ? false : 'redis-server is not installed';
const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/**
 * Runs `parley serve ...args` from source until it exits, or until it says it is ready, when it
 * is stopped (so a server that should have refused to start fails the test instead of holding it).
 */
async function serve(args: readonly string[], cwd: string): Promise<{ code: number | null; ready: boolean; output: string }> {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let ready = false;
  // 'close': the exit may come before its last lines were read from the pipes.
  const exited = once(child, 'close');
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (!ready && /^ready /m.test(output)) {
      ready = true;
      child.kill('SIGTERM');
    }
  });
  const [code] = await exited;
  return { code: code as number | null, ready, output };
}

const refused = (policy: RegExp) => (error: unknown) => {
  assert.ok(error instanceof RedisStoreError, String(error));
  assert.equal(error.code, 'redis_eviction_policy');
  assert.match(error.message, policy);
  assert.match(error.message, /--store-allow-eviction/);
  return true;
};

async function startsAgent(store: string, allowStoreEviction = false): Promise<void> {
  const agent = new AgentServer({ name: 'echo', store, allowStoreEviction });
  await agent.start();
  await agent.stop();
}

async function startsRegistry(store: string, allowStoreEviction = false): Promise<void> {
  const registry = new RegistryServer({ store, allowStoreEviction });
  await registry.start();
  await registry.stop();
}

describe('the eviction policy of the Redis a store opens', { skip }, () => {
  let redis: RedisServer;
  let admin: Redis;
  before(async () => {
    redis = await startRedis();
    admin = testRedis(redis.url);
  });
  after(async () => {
    admin?.disconnect();
    await redis?.dispose();
  });
  const policy = (name: string) => admin.config('SET', 'maxmemory-policy', name);

  for (const name of ['allkeys-lru', 'allkeys-lfu', 'allkeys-random']) {
    test(`${name}: the agent and the registry refuse to start`, async () => {
      await policy(name);
      await assert.rejects(startsAgent(redis.url), refused(new RegExp(`maxmemory-policy ${name}.*set it to noeviction`)));
      await assert.rejects(startsRegistry(redis.url), refused(new RegExp(`maxmemory-policy ${name}`)));
    });
  }

  for (const name of ['volatile-lru', 'volatile-ttl']) {
    test(`${name}: the agent refuses (its idempotency records carry a TTL), the registry starts (its keys carry none)`, async () => {
      await policy(name);
      await assert.rejects(startsAgent(redis.url), refused(new RegExp(`maxmemory-policy ${name}`)));
      await startsRegistry(redis.url);
    });
  }

  test('noeviction: both start', async () => {
    await policy('noeviction');
    await startsAgent(redis.url);
    await startsRegistry(redis.url);
  });

  test('allowStoreEviction: both start on an evicting Redis', async () => {
    await policy('allkeys-lru');
    await startsAgent(redis.url, true);
    await startsRegistry(redis.url, true);
  });

  test('parley serve: exits 1 naming the policy and the flag; --store-allow-eviction starts', async () => {
    await policy('allkeys-lru');
    for (const role of ['agent', 'registry']) {
      const refusedStart = await serve([role, '--url', 'http://127.0.0.1:0', '--store', redis.url], redis.dir);
      assert.equal(refusedStart.ready, false, refusedStart.output);
      assert.equal(refusedStart.code, 1, refusedStart.output);
      assert.match(refusedStart.output, /maxmemory-policy allkeys-lru.*--store-allow-eviction/);
      const allowed = await serve(
        [role, '--url', 'http://127.0.0.1:0', '--store', redis.url, '--store-allow-eviction'],
        redis.dir,
      );
      assert.equal(allowed.ready, true, allowed.output);
      const lonely = await serve([role, '--url', 'http://127.0.0.1:0', '--store-allow-eviction'], redis.dir);
      assert.equal(lonely.code, 2, `the flag needs --store: ${lonely.output}`);
    }
  });
});

describe('a Redis that hides CONFIG', { skip }, () => {
  test('the policy is read from INFO instead: an evicting one is still refused', async (t) => {
    const redis = await startRedis(['--maxmemory-policy', 'allkeys-lru', '--rename-command', 'CONFIG', '']);
    t.after(() => redis.dispose());
    await assert.rejects(startsAgent(redis.url), refused(/maxmemory-policy allkeys-lru/));
    await assert.rejects(startsRegistry(redis.url), refused(/maxmemory-policy allkeys-lru/));
  });

  test('a user denied CONFIG and INFO (an ACL) cannot read the policy: refused unless allowed', async (t) => {
    const redis = await startRedis();
    t.after(() => redis.dispose());
    const admin = testRedis(redis.url);
    await admin.call('ACL', 'SETUSER', 'limited', 'on', '>limited-secret', '~*', '&*', '+@all', '-config', '-info');
    admin.disconnect();
    const limited = redis.url.replace('redis://', 'redis://limited:limited-secret@');
    await assert.rejects(startsAgent(limited), refused(/cannot read the maxmemory-policy/));
    await assert.rejects(startsRegistry(limited), refused(/cannot read the maxmemory-policy/));
    await startsAgent(limited, true);
    await startsRegistry(limited, true);
  });
});
