// src/core/lazy-abort.ts: cancellation whose AbortSignal is made only when asked for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LazyAbort } from '../../src/core/lazy-abort.js';

test('onAbort listeners run once, with the reason, in the order they were added', () => {
  const abort = new LazyAbort();
  const heard: string[] = [];
  abort.onAbort((reason) => heard.push(`a:${String(reason)}`));
  abort.onAbort((reason) => heard.push(`b:${String(reason)}`));
  abort.abort('stop');
  abort.abort('again');
  assert.deepEqual(heard, ['a:stop', 'b:stop']);
  assert.equal(abort.aborted, true);
  assert.equal(abort.reason, 'stop');
});

test('a removed listener is not called', () => {
  const abort = new LazyAbort();
  let calls = 0;
  const stop = abort.onAbort(() => calls++);
  stop();
  abort.abort(new Error('x'));
  assert.equal(calls, 0);
});

test('a listener added after the abort runs at once', () => {
  const abort = new LazyAbort();
  abort.abort('late');
  let reason: unknown;
  abort.onAbort((why) => (reason = why));
  assert.equal(reason, 'late');
  assert.throws(
    () => abort.throwIfAborted(),
    (error) => error === 'late',
  );
});

test('a signal made after the abort is already aborted with the same reason', () => {
  const abort = new LazyAbort();
  const reason = new Error('gone');
  abort.abort(reason);
  assert.equal(abort.signal.aborted, true);
  assert.equal(abort.signal.reason, reason);
});

test('a signal made before the abort follows it', () => {
  const abort = new LazyAbort();
  const signal = abort.signal;
  assert.equal(signal.aborted, false);
  assert.doesNotThrow(() => abort.throwIfAborted());
  abort.abort('now');
  assert.equal(signal.aborted, true);
  assert.equal(signal.reason, 'now');
  assert.equal(abort.signal, signal);
});
