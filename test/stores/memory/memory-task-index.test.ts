// The A2A task index (spec: "A2A task index", "Timeouts and timers"): one hour, at most 1,024
// tasks, expired and oldest inactive removed first, active tasks never evicted, a new task
// refused when every slot is active, and every lookup scoped to tenant and principal. The
// clock is the test's, so time passes without waiting.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryTaskIndex } from '../../../src/stores/memory/memory-task-index.js';
import { TaskIndexFullError, type IndexedTask, type TaskScope } from '../../../src/a2a/handler/task-index.js';
import { shareTests } from '../../support/task-index-shares.js';

const scope: TaskScope = { tenant: '', principal: null };

function entry(
  id: string,
  options: { active?: boolean; tenant?: string; owner?: string | null; at?: string; contextId?: string } = {},
): IndexedTask {
  const at = options.at ?? '2026-01-01T00:00:00.000Z';
  return {
    id,
    contextId: options.contextId ?? 'ctx',
    tenant: options.tenant ?? '',
    owner: options.owner ?? null,
    active: options.active ?? false,
    task: {
      id,
      state: options.active ? 'working' : 'completed',
      metadata: { state_history: [{ state: 'completed', timestamp: at }] },
    },
  };
}

function clock(start = 0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('MemoryTaskIndex', () => {
  test('defaults: one hour, 1,024 tasks', () => {
    const index = new MemoryTaskIndex();
    assert.equal(index.ttlMs, 3_600_000);
    assert.equal(index.maxTasks, 1024);
  });

  test('a task expires an hour after its last change, not before', async () => {
    const time = clock();
    const index = new MemoryTaskIndex({ now: time.now });
    await index.add(entry('a'));
    time.advance(3_600_000);
    assert.ok(await index.get(scope, 'a'), 'exactly one hour old is still kept');
    time.advance(1);
    assert.equal(await index.get(scope, 'a'), undefined);
  });

  test('an active task never expires', async () => {
    const time = clock();
    const index = new MemoryTaskIndex({ now: time.now });
    await index.add(entry('a', { active: true }));
    time.advance(10 * 3_600_000);
    assert.ok(await index.get(scope, 'a'));
  });

  test('when full, expired tasks go first, then the inactive one changed longest ago; active ones stay', async () => {
    const time = clock();
    const index = new MemoryTaskIndex({ maxTasks: 3, now: time.now });
    await index.add(entry('active', { active: true }));
    await index.add(entry('old'));
    time.advance(10);
    await index.add(entry('newer'));
    await index.update((await index.get(scope, 'old'))!);
    await index.add(entry('fourth'));
    assert.ok(await index.get(scope, 'active'));
    assert.ok(await index.get(scope, 'old'), 'touched again, so no longer the oldest');
    assert.equal(await index.get(scope, 'newer'), undefined, 'the least recently changed inactive task is evicted');
    assert.equal(index.size, 3);
  });

  test('a new task is refused when every slot is active', async () => {
    const index = new MemoryTaskIndex({ maxTasks: 2 });
    await index.add(entry('a', { active: true }));
    await index.add(entry('b', { active: true }));
    await assert.rejects(
      index.add(entry('c')),
      (error) => error instanceof TaskIndexFullError && error.code === 'task_index_full',
    );
    assert.equal(await index.get(scope, 'c'), undefined);
    assert.equal(index.size, 2);
  });

  test('lookups and listings are scoped to tenant and principal', async () => {
    const index = new MemoryTaskIndex();
    await index.add(entry('mine', { tenant: 't', owner: 'alice' }));
    assert.ok(await index.get({ tenant: 't', principal: 'alice' }, 'mine'));
    assert.equal(await index.get({ tenant: 't', principal: 'bob' }, 'mine'), undefined);
    assert.equal(await index.get({ tenant: 'u', principal: 'alice' }, 'mine'), undefined);
    assert.equal((await index.list({ tenant: 't', principal: 'bob' }, { limit: 10 })).total, 0);
  });

  test('list orders by status time, newest first, and continues after a cursor', async () => {
    const index = new MemoryTaskIndex();
    await index.add(entry('a', { at: '2026-01-01T00:00:01.000Z' }));
    await index.add(entry('b', { at: '2026-01-01T00:00:03.000Z' }));
    await index.add(entry('c', { at: '2026-01-01T00:00:02.000Z' }));
    const first = await index.list(scope, { limit: 2 });
    assert.deepEqual(
      first.tasks.map((task) => task.id),
      ['b', 'c'],
    );
    assert.equal(first.more, true);
    const rest = await index.list(scope, { limit: 2, after: { time: Date.parse('2026-01-01T00:00:02.000Z'), id: 'c' } });
    assert.deepEqual(
      rest.tasks.map((task) => task.id),
      ['a'],
    );
    assert.equal(rest.more, false);
    assert.equal(rest.total, 3);
  });
});

describe("MemoryTaskIndex: the callers' shares", () => {
  shareTests((options) => {
    const time = clock();
    return { index: new MemoryTaskIndex({ ...options, now: time.now }), advance: time.advance };
  });
});
