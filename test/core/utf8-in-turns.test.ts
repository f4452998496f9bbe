// A large text encoded a slice per turn must give exactly Buffer.from's bytes, whatever falls
// at a slice boundary.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UTF8_SLICE_CHARS, utf8InTurns } from '../../src/core/utf8-in-turns.js';

/** Text whose every slice would end on the high half of a surrogate pair. */
function pairAtEveryBoundary(slices: number): string {
  let text = '';
  let at = 0;
  for (let k = 0; k < slices; k++) {
    // The pair's high half is the last character of the slice that starts at `at`, so the
    // slice ends one earlier and the next starts on that high half.
    text += 'x'.repeat(at + UTF8_SLICE_CHARS - 1 - text.length) + '😀';
    at += UTF8_SLICE_CHARS - 1;
  }
  return `${text}tail`;
}

test('utf8InTurns: a surrogate pair at every slice boundary is encoded whole', async () => {
  const text = pairAtEveryBoundary(4);
  for (let k = 1; k <= 4; k++) {
    const boundary = k * (UTF8_SLICE_CHARS - 1);
    assert.equal(text.charCodeAt(boundary) >> 10, 0xd800 >> 10, `a high surrogate ends slice ${k}`);
  }
  const bytes = await utf8InTurns(text, Buffer.byteLength(text));
  assert.ok(bytes.equals(Buffer.from(text)));
  assert.equal(bytes.toString('utf8'), text);
});

test('utf8InTurns: other scripts, lone surrogates and a measured length give the same bytes as Buffer.from', async () => {
  const texts = [
    '',
    'short é',
    `${'中'.repeat(UTF8_SLICE_CHARS + 3)}\ud800`,
    `a${'😀'.repeat(UTF8_SLICE_CHARS)}`,
    `${'\ud800x'.repeat(UTF8_SLICE_CHARS)}\udc00`,
  ];
  for (const text of texts) {
    assert.ok((await utf8InTurns(text)).equals(Buffer.from(text)), `text of ${text.length} characters`);
  }
});

test('utf8InTurns: each slice is encoded in a later loop iteration', async () => {
  let iteration = 0;
  let ticking = true;
  const tick = () => {
    iteration++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const seen: number[] = [];
  const write = Buffer.prototype.write;
  Buffer.prototype.write = function (this: Buffer, ...args: Parameters<Buffer['write']>) {
    seen.push(iteration);
    return write.apply(this, args);
  } as Buffer['write'];
  try {
    await utf8InTurns('y'.repeat(3 * UTF8_SLICE_CHARS + 1));
  } finally {
    Buffer.prototype.write = write;
    ticking = false;
  }
  assert.equal(seen.length, 4);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `slices ${i - 1} and ${i} in one iteration`);
});
