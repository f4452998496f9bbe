// One table of behaviour rows for every store of A2A push-notification configs (memory and
// Redis): scoped lookups, replace by id, idempotent delete, listing by id, the three bounds
// (per task, per caller's share, in all) with replacement never counted, and expiry with the
// task (ttl after the last put or touch). Each row gets a fresh store and moves its clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PushConfigQuotaError,
  type PushConfigBounds,
  type PushConfigStore,
  type StoredPushConfig,
} from '../../src/a2a/push/push-config-store.js';
import type { TaskScope } from '../../src/a2a/handler/task-index.js';

export interface ClockedPushStore {
  readonly store: PushConfigStore;
  advance(ms: number): void;
}

function config(
  taskId: string,
  id: string,
  scope: TaskScope = { tenant: '', principal: null },
  url = 'https://hooks.example/a',
): StoredPushConfig {
  return { tenant: scope.tenant, owner: scope.principal, taskId, id, url, token: '', authentication: null };
}

const anyone: TaskScope = { tenant: '', principal: null };
const alice: TaskScope = { tenant: 't', principal: 'alice' };

function quota(limit: string) {
  return (error: unknown) =>
    error instanceof PushConfigQuotaError && error.limit === limit && error.code === 'push_config_quota_exceeded';
}

export function pushConfigStoreRows(make: (bounds?: PushConfigBounds) => ClockedPushStore): void {
  test('a config is found only by its own tenant, principal and task', async () => {
    const { store } = make();
    await store.put(config('task', 'c1', alice));
    assert.equal((await store.get(alice, 'task', 'c1'))?.url, 'https://hooks.example/a');
    assert.equal(await store.get({ tenant: 't', principal: 'bob' }, 'task', 'c1'), undefined);
    assert.equal(await store.get({ tenant: 'u', principal: 'alice' }, 'task', 'c1'), undefined);
    assert.equal(await store.get({ tenant: 't', principal: null }, 'task', 'c1'), undefined);
    assert.equal(await store.get(alice, 'other-task', 'c1'), undefined);
    assert.deepEqual(await store.list({ tenant: 't', principal: 'bob' }, 'task'), []);
    assert.equal(await store.delete({ tenant: 't', principal: 'bob' }, 'task', 'c1'), false);
    assert.ok(await store.get(alice, 'task', 'c1'), "another caller's delete removed nothing");
  });

  test('put with a known id replaces the config; list is ordered by id', async () => {
    const { store } = make();
    await store.put(config('task', 'b'));
    await store.put(config('task', 'a'));
    await store.put(config('task', 'b', anyone, 'https://hooks.example/b2'));
    const listed = await store.list(anyone, 'task');
    assert.deepEqual(
      listed.map((item) => [item.id, item.url]),
      [
        ['a', 'https://hooks.example/a'],
        ['b', 'https://hooks.example/b2'],
      ],
    );
  });

  test('the whole config comes back as stored (token and authentication)', async () => {
    const { store } = make();
    const full: StoredPushConfig = {
      ...config('task', 'c', alice),
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    };
    await store.put(full);
    assert.deepEqual(await store.get(alice, 'task', 'c'), full);
    assert.deepEqual(await store.touch(alice, 'task'), [full]);
  });

  test('delete is idempotent and frees the slot', async () => {
    const { store } = make({ maxConfigsPerTask: 1 });
    await store.put(config('task', 'a'));
    assert.equal(await store.delete(anyone, 'task', 'a'), true);
    assert.equal(await store.delete(anyone, 'task', 'a'), false);
    assert.equal(await store.get(anyone, 'task', 'a'), undefined);
    await store.put(config('task', 'b'));
    assert.deepEqual(
      (await store.list(anyone, 'task')).map((item) => item.id),
      ['b'],
    );
  });

  test('a task holds at most maxConfigsPerTask configs; replacing one is not a new one', async () => {
    const { store } = make({ maxConfigsPerTask: 2 });
    await store.put(config('task', 'a'));
    await store.put(config('task', 'b'));
    await assert.rejects(store.put(config('task', 'c')), quota('task'));
    await store.put(config('task', 'b', anyone, 'https://hooks.example/again'));
    await store.put(config('other', 'c'));
    assert.equal((await store.list(anyone, 'task')).length, 2);
  });

  test("a caller's share holds at most maxConfigsPerCaller over its tasks, over every tenant; others are not refused", async () => {
    const { store } = make({ maxConfigsPerCaller: 2 });
    await store.put(config('t1', 'a', alice));
    await store.put(config('t2', 'a', { tenant: 'other', principal: 'alice' }));
    await assert.rejects(store.put(config('t3', 'a', alice)), quota('caller'));
    await store.put(config('t3', 'a', { tenant: 't', principal: 'bob' }));
    await store.delete(alice, 't1', 'a');
    await store.put(config('t3', 'a', alice));
  });

  test('the store holds at most maxConfigs in all', async () => {
    const { store } = make({ maxConfigs: 2 });
    await store.put(config('t1', 'a', alice));
    await store.put(config('t2', 'a', { tenant: 't', principal: 'bob' }));
    await assert.rejects(store.put(config('t3', 'a', { tenant: 't', principal: 'carol' })), quota('store'));
  });

  test("a task's configs expire ttlMs after its last put or touch, and then free their slots", async () => {
    const { store, advance } = make({ ttlMs: 1000, maxConfigsPerCaller: 1 });
    await store.put(config('task', 'a'));
    advance(1000);
    assert.ok(await store.get(anyone, 'task', 'a'), 'exactly ttlMs old is still kept');
    assert.equal((await store.touch(anyone, 'task')).length, 1);
    advance(1000);
    assert.ok(await store.get(anyone, 'task', 'a'), 'the touch extended it');
    advance(1);
    assert.equal(await store.get(anyone, 'task', 'a'), undefined);
    assert.deepEqual(await store.touch(anyone, 'task'), [], 'an expired task is not brought back by a touch');
    await store.put(config('another', 'b'));
  });

  test('expired configs of other tasks are swept when a bound is reached', async () => {
    const { store, advance } = make({ ttlMs: 1000, maxConfigs: 1 });
    await store.put(config('old', 'a', alice));
    advance(1001);
    await store.put(config('new', 'a', { tenant: 't', principal: 'bob' }));
    assert.equal(await store.get(alice, 'old', 'a'), undefined);
  });

  test('list does not extend the configs; touch does', async () => {
    const { store, advance } = make({ ttlMs: 1000 });
    await store.put(config('task', 'a'));
    advance(600);
    await store.list(anyone, 'task');
    advance(600);
    assert.deepEqual(await store.list(anyone, 'task'), []);
  });
}
