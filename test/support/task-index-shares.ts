// The callers' shares of an A2A task index, as one table of tests run against every index (the
// memory one and the Redis one): each caller (its principal, or without one its tenant) holds
// at most `maxTasksPerCaller` tasks. A caller at its share makes room among its own finished
// tasks, or is refused alone (TaskQuotaError); it never refuses nor evicts another caller's
// tasks. When the whole index is full, the largest share gives up its oldest finished task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TaskIndexFullError,
  TaskQuotaError,
  type IndexedTask,
  type TaskIndex,
  type TaskScope,
} from '../../src/a2a/handler/task-index.js';

export interface ShareOptions {
  readonly maxTasks?: number;
  readonly maxTasksPerCaller?: number;
}

/** An index under test and its clock, which only the test moves. */
export interface ClockedIndex {
  readonly index: TaskIndex;
  advance(ms: number): void;
}

function task(id: string, owner: string | null, options: { active?: boolean; tenant?: string } = {}): IndexedTask {
  return {
    id,
    contextId: 'ctx',
    tenant: options.tenant ?? '',
    owner,
    active: options.active ?? false,
    task: {
      id,
      state: options.active ? 'working' : 'completed',
      metadata: { state_history: [{ state: 'completed', timestamp: '2026-01-01T00:00:00.000Z' }] },
    },
  };
}

const as = (principal: string | null, tenant = ''): TaskScope => ({ tenant, principal });

const isQuota = (quota: number) => (error: unknown) =>
  error instanceof TaskQuotaError && error.code === 'task_quota_exceeded' && error.quota === quota;

/** Registers the share tests; `make` builds a fresh, empty index with the given bounds. */
export function shareTests(make: (options: ShareOptions) => ClockedIndex): void {
  test('default share: one principal with 256 running tasks is refused alone; another is still taken', async () => {
    const { index, advance } = make({});
    for (let i = 0; i < 256; i++) {
      await index.add(task(`a${i}`, 'alice', { active: true }));
      advance(1);
    }
    await assert.rejects(index.add(task('a-more', 'alice', { active: true })), isQuota(256));
    await index.add(task('b', 'bob', { active: true }));
    assert.ok(await index.get(as('bob'), 'b'));
    assert.equal(await index.get(as('alice'), 'a-more'), undefined);
  });

  test("a caller at its share makes room among its own finished tasks, never another's", async () => {
    const { index, advance } = make({ maxTasks: 10, maxTasksPerCaller: 2 });
    await index.add(task('bob-done', 'bob'));
    advance(1);
    for (let i = 0; i < 20; i++) {
      await index.add(task(`a${i}`, 'alice'));
      advance(1);
    }
    assert.ok(await index.get(as('bob'), 'bob-done'), "bob's finished task is kept");
    assert.equal((await index.list(as('alice'), { limit: 100 })).total, 2, 'alice keeps her share, her newest');
    assert.ok(await index.get(as('alice'), 'a19'));
    assert.ok(await index.get(as('alice'), 'a18'));
  });

  test('running tasks are never evicted to make room: a caller whose share is all running is refused', async () => {
    const { index, advance } = make({ maxTasks: 10, maxTasksPerCaller: 2 });
    await index.add(task('run', 'alice', { active: true }));
    advance(1);
    await index.add(task('done', 'alice'));
    advance(1);
    await index.add(task('next', 'alice', { active: true }));
    assert.equal(await index.get(as('alice'), 'done'), undefined, 'the finished one made room');
    await assert.rejects(index.add(task('third', 'alice')), isQuota(2));
    assert.ok(await index.get(as('alice'), 'run'));
    assert.ok(await index.get(as('alice'), 'next'));
  });

  test('a caller at its share finds its finished task behind many running ones (the Redis index reads its share in slices)', async () => {
    const { index, advance } = make({ maxTasks: 100, maxTasksPerCaller: 40 });
    for (let i = 0; i < 39; i++) {
      await index.add(task(`run${i}`, 'alice', { active: true }));
      advance(1);
    }
    await index.add(task('done', 'alice'));
    advance(1);
    await index.add(task('next', 'alice', { active: true }));
    assert.equal(await index.get(as('alice'), 'done'), undefined, 'the one finished task, 40th of the share, made room');
    assert.ok(await index.get(as('alice'), 'run0'));
    await assert.rejects(index.add(task('more', 'alice')), isQuota(40));
  });

  test("the share is the principal's across tenants; without a principal, each tenant's", async () => {
    const { index, advance } = make({ maxTasks: 10, maxTasksPerCaller: 2 });
    await index.add(task('t1', 'alice', { active: true, tenant: 'one' }));
    advance(1);
    await index.add(task('t2', 'alice', { active: true, tenant: 'two' }));
    advance(1);
    await assert.rejects(index.add(task('t3', 'alice', { active: true, tenant: 'three' })), isQuota(2));
    for (const tenant of ['one', 'two', 'three']) {
      await index.add(task(`anon-${tenant}-1`, null, { active: true, tenant }));
      await index.add(task(`anon-${tenant}-2`, null, { active: true, tenant }));
      advance(1);
    }
    await assert.rejects(index.add(task('anon-one-3', null, { tenant: 'one' })), isQuota(2));
  });

  test('a full index: the largest share gives up its oldest finished task, not an older one of a small share', async () => {
    const { index, advance } = make({ maxTasks: 4, maxTasksPerCaller: 3 });
    await index.add(task('bob-old', 'bob'));
    advance(1);
    for (const id of ['a1', 'a2', 'a3']) {
      await index.add(task(id, 'alice'));
      advance(1);
    }
    await index.add(task('carol', 'carol'));
    assert.ok(await index.get(as('bob'), 'bob-old'), 'the oldest task overall, but the only one of its caller');
    assert.equal(await index.get(as('alice'), 'a1'), undefined, "the largest share's oldest finished task went");
    assert.ok(await index.get(as('carol'), 'carol'));
  });

  test('a full index of running tasks still refuses a new task with TaskIndexFullError', async () => {
    const { index, advance } = make({ maxTasks: 2, maxTasksPerCaller: 2 });
    await index.add(task('a', 'alice', { active: true }));
    advance(1);
    await index.add(task('b', 'bob', { active: true }));
    await assert.rejects(index.add(task('c', 'carol')), (error) => error instanceof TaskIndexFullError);
  });
}
