// DeferredJson: the size of a value's JSON counted without writing the text, and the text
// written once, only when read.
import assert from 'node:assert/strict';
import test from 'node:test';
import { DeferredJson, measureJson } from '../../../src/core/json/encoded.js';
import { NOT_PLAIN } from '../../../src/core/json/measure.js';

const task = { id: 't1', state: 'completed', messages: [{ role: 'user', parts: [{ type: 'text', content: 'héllo "world"' }] }] };

function counting(): { write: (value: unknown) => string; calls: () => number } {
  let calls = 0;
  return {
    write: (value) => {
      calls++;
      return JSON.stringify(value);
    },
    calls: () => calls,
  };
}

test('measure() counts the UTF-8 size of the JSON without writing the text', () => {
  const writer = counting();
  const encoded = new DeferredJson(task, writer.write);
  assert.equal(encoded.measure(), Buffer.byteLength(JSON.stringify(task), 'utf8'));
  assert.equal(encoded.bytes, encoded.measure(), 'bytes after measure() is the measured size');
  assert.equal(writer.calls(), 0);
});

test('the text is written once, when first read, from the value as it is then', () => {
  const writer = counting();
  const value = { n: 1 };
  const encoded = new DeferredJson(value, writer.write);
  value.n = 2;
  assert.equal(encoded.text, '{"n":2}');
  value.n = 3;
  assert.equal(encoded.text, '{"n":2}', 'written once: later changes do not show');
  assert.equal(encoded.bytes, 7);
  assert.equal(writer.calls(), 1);
});

test('writeNow() fixes the text at that moment', () => {
  const value = { n: 1 };
  const encoded = new DeferredJson(value);
  encoded.writeNow();
  value.n = 2;
  assert.equal(encoded.text, '{"n":1}');
});

test('bytes without measure() writes the text and counts it', () => {
  const writer = counting();
  const encoded = new DeferredJson({ word: 'naïve' }, writer.write);
  assert.equal(encoded.bytes, Buffer.byteLength('{"word":"naïve"}', 'utf8'));
  assert.equal(writer.calls(), 1);
});

test('a value that is not plain JSON is measured from its written text (which may repair it)', () => {
  const value: Record<string, unknown> = { at: new Date(0), n: 10n };
  const encoded = new DeferredJson(value, (raw) => {
    const record = raw as Record<string, unknown>;
    record.n = String(record.n);
    return JSON.stringify(record);
  });
  const text = '{"at":"1970-01-01T00:00:00.000Z","n":"10"}';
  assert.equal(encoded.measure(), text.length);
  assert.equal(encoded.text, text);
});

test('measureJson: a deferred encoding is counted, an encoding already made gives its bytes', () => {
  const writer = counting();
  assert.equal(measureJson(new DeferredJson([1, 2], writer.write)), 5);
  assert.equal(writer.calls(), 0);
  assert.equal(measureJson({ text: '[1,2]', bytes: 5 }), 5);
});

test('copy() copies the value and counts its size in the same walk, writing no text', () => {
  const { write, calls } = counting();
  const deferred = new DeferredJson(task, write);
  const copy = deferred.copy() as typeof task;
  assert.deepEqual(copy, task);
  assert.notEqual(copy, task);
  assert.notEqual(copy.messages[0], task.messages[0]);
  assert.equal(deferred.measure(), Buffer.byteLength(JSON.stringify(task)));
  assert.equal(calls(), 0);
  // Each receiver gets a copy of its own.
  assert.notEqual(deferred.copy(), copy);
});

test('copy() gives NOT_PLAIN once the text is written, and for a value that is not plain JSON', () => {
  const written = new DeferredJson(task);
  written.writeNow();
  assert.equal(written.copy(), NOT_PLAIN);
  const dated = new DeferredJson({ at: new Date(0) });
  assert.equal(dated.copy(), NOT_PLAIN);
  assert.equal(dated.measure(), Buffer.byteLength(JSON.stringify({ at: new Date(0) })));
});
