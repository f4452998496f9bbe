// src/core/async-queue.ts: a single-consumer queue read with for-await.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncQueue } from '../../src/core/async-queue.js';

async function collect<T>(queue: AsyncQueue<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of queue) out.push(item);
  return out;
}

test('items pushed before reading come out in order, then the end', async () => {
  const queue = new AsyncQueue<number>();
  queue.push(1);
  queue.push(2);
  queue.end();
  assert.deepEqual(await collect(queue), [1, 2]);
});

test('a waiting reader gets items as they are pushed', async () => {
  const queue = new AsyncQueue<string>();
  const reading = collect(queue);
  queue.push('a');
  await Promise.resolve();
  queue.push('b');
  queue.end();
  assert.deepEqual(await reading, ['a', 'b']);
});

test('end() while the reader waits finishes the iteration', async () => {
  const queue = new AsyncQueue<number>();
  const iterator = queue[Symbol.asyncIterator]();
  const next = iterator.next();
  queue.end();
  assert.deepEqual(await next, { value: undefined, done: true });
});

test('fail() rejects a waiting reader', async () => {
  const queue = new AsyncQueue<number>();
  const reading = collect(queue);
  const failure = new Error('producer failed');
  queue.fail(failure);
  await assert.rejects(reading, (error) => error === failure);
});

test('fail() after items: the items come first, then the failure', async () => {
  const queue = new AsyncQueue<number>();
  queue.push(1);
  const failure = new Error('late');
  queue.fail(failure);
  const iterator = queue[Symbol.asyncIterator]();
  assert.deepEqual(await iterator.next(), { value: 1, done: false });
  await assert.rejects(iterator.next(), (error) => error === failure);
});

test('pushes after end() and a second end() or fail() are ignored', async () => {
  const queue = new AsyncQueue<number>();
  queue.push(1);
  queue.end();
  queue.push(2);
  queue.end();
  queue.fail(new Error('ignored'));
  assert.deepEqual(await collect(queue), [1]);
});

test('breaking out of the loop (return) ends the queue and drops what is left', async () => {
  const queue = new AsyncQueue<number>();
  queue.push(1);
  queue.push(2);
  for await (const item of queue) {
    assert.equal(item, 1);
    break;
  }
  queue.push(3);
  const iterator = queue[Symbol.asyncIterator]();
  assert.deepEqual(await iterator.next(), { value: undefined, done: true });
});

test('room() is null below the high-water mark and a promise at it', () => {
  const queue = new AsyncQueue<number>(4);
  for (let i = 0; i < 3; i++) queue.push(i);
  assert.equal(queue.room(), null);
  queue.push(3);
  assert.ok(queue.room() instanceof Promise);
  assert.equal(queue.size, 4);
});

test('a waiting producer is let go once the reader is down to half the mark', async () => {
  const queue = new AsyncQueue<number>(4);
  for (let i = 0; i < 4; i++) queue.push(i);
  let released = false;
  void queue.room()!.then(() => (released = true));
  const reader = queue[Symbol.asyncIterator]();
  await reader.next();
  await Promise.resolve();
  assert.equal(released, false, 'three left: still over half the mark');
  await reader.next();
  await Promise.resolve();
  assert.equal(released, true, 'two left: room again');
  assert.equal(queue.room(), null);
});

test('ending the queue, or the reader leaving, lets a waiting producer go', async () => {
  for (const stop of [(q: AsyncQueue<number>) => q.end(), (q: AsyncQueue<number>) => void q[Symbol.asyncIterator]().return!()]) {
    const queue = new AsyncQueue<number>(1);
    queue.push(1);
    const room = queue.room();
    assert.ok(room);
    stop(queue);
    await room;
    assert.equal(queue.room(), null);
  }
});
