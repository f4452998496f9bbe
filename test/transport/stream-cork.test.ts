// StreamCork: when a stream's held writes go out. The stream here is a recorder of cork and
// uncork calls with a settable buffer size; the intervals are long (a minute) so that nothing
// depends on how fast the machine runs: a hold that must wait for its interval is never
// released by it within a test, only by flush() or the high-water mark.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { StreamCork } from '../../src/transport/stream-cork.js';

class Recorder {
  corks = 0;
  uncorks = 0;
  writableLength = 0;
  readonly writableHighWaterMark = 100;
  cork(): void {
    this.corks++;
  }
  uncork(): void {
    this.uncorks++;
  }
  get held(): boolean {
    return this.corks > this.uncorks;
  }
}

const MINUTE_MS = 60_000;

test('without an interval, writes of one turn are held together and go at the end of the turn', async () => {
  const stream = new Recorder();
  const cork = new StreamCork(stream);
  cork.hold();
  cork.hold();
  assert.equal(stream.corks, 1, 'one cork for the turn');
  assert.ok(stream.held);
  await nextTurn();
  assert.ok(!stream.held, 'released at the end of the turn');
  cork.hold();
  await nextTurn();
  assert.deepEqual([stream.corks, stream.uncorks], [2, 2]);
});

test('with an interval, the first write goes at the end of its turn and the next ones wait for the interval', async () => {
  const stream = new Recorder();
  const cork = new StreamCork(stream, MINUTE_MS);
  cork.hold();
  await nextTurn();
  assert.ok(!stream.held, 'the first write after a quiet spell is not held');
  cork.hold();
  cork.hold();
  for (let turn = 0; turn < 5; turn++) await nextTurn();
  assert.ok(stream.held, 'a write soon after the previous one waits');
  assert.equal(stream.corks, 2);
  cork.flush();
  assert.ok(!stream.held, 'flush sends what is held at once');
  // The flush counts as a write: what follows waits again, and a flush with nothing held does nothing.
  cork.hold();
  await nextTurn();
  assert.ok(stream.held);
  cork.flush();
  cork.flush();
  assert.deepEqual([stream.corks, stream.uncorks], [3, 3]);
});

test('a hold taken again after a flush in the same turn is not ended by that turn', async () => {
  const stream = new Recorder();
  const cork = new StreamCork(stream, MINUTE_MS);
  cork.hold();
  cork.flush();
  cork.hold();
  await nextTurn();
  assert.ok(stream.held, 'the second hold waits for its interval');
  cork.flush();
});

test('held bytes are bounded: at the high-water mark, what is held goes before the next write', async () => {
  const stream = new Recorder();
  const cork = new StreamCork(stream, MINUTE_MS);
  cork.hold();
  await nextTurn();
  cork.hold();
  stream.writableLength = 99;
  cork.hold();
  assert.equal(stream.uncorks, 1, 'below the mark: still held');
  stream.writableLength = 100;
  cork.hold();
  assert.equal(stream.uncorks, 2, 'at the mark: released');
  assert.ok(stream.held, 'and held again for the write that follows');
  stream.writableLength = 0;
  cork.flush();
});
