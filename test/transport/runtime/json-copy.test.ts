// The runtime transport hands the caller a copy of the answer the target made: copyJson must
// read exactly as the answer's JSON text would, share no object or array with the original,
// and give up (NOT_PLAIN) on anything the text would show differently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH } from '../../../src/core/json-depth.js';
import { copyJson, NOT_PLAIN } from '../../../src/transport/runtime/json-copy.js';

test('copyJson: plain JSON reads as its text parsed, in new objects and arrays', () => {
  const value = {
    id: 't1',
    n: -1.5e300,
    ok: true,
    none: null,
    list: [1, 'two', { three: [3] }, [], {}],
    nested: { deeper: { text: 'é "quoted" \n', zero: 0 } },
  };
  const copy = copyJson(value) as typeof value;
  assert.deepEqual(copy, JSON.parse(JSON.stringify(value)));
  assert.notEqual(copy, value);
  assert.notEqual(copy.list, value.list);
  assert.notEqual(copy.list[2], value.list[2]);
  assert.notEqual(copy.nested.deeper, value.nested.deeper);
  (copy.nested.deeper as { zero: number }).zero = 1;
  assert.equal(value.nested.deeper.zero, 0);
});

test('copyJson: object members that are undefined are left out, as in the text', () => {
  const copy = copyJson({ a: 1, gone: undefined, inner: { also: undefined } });
  assert.deepEqual(copy, { a: 1, inner: {} });
  assert.ok(!Object.hasOwn(copy as object, 'gone'));
});

test('copyJson: a value the text would show differently is NOT_PLAIN', () => {
  for (const value of [
    { when: new Date(0) },
    { n: Number.NaN },
    { n: Number.POSITIVE_INFINITY },
    [1, undefined, 3],
    { map: new Map() },
    { big: 1n },
    { f: () => 1 },
    new (class Box {})(),
  ]) {
    assert.equal(copyJson(value), NOT_PLAIN, String(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? 'bigint' : v))));
  }
});

test('copyJson: a cycle is NOT_PLAIN, never a stack overflow', () => {
  const loop: Record<string, unknown> = { a: 1 };
  loop.self = loop;
  assert.equal(copyJson(loop), NOT_PLAIN);
});

test('copyJson: top-level primitives are themselves', () => {
  assert.equal(copyJson('text'), 'text');
  assert.equal(copyJson(7), 7);
  assert.equal(copyJson(false), false);
  assert.equal(copyJson(null), null);
});

test('copyJson: a __proto__ member is NOT_PLAIN (the text parses it as an own member)', () => {
  assert.equal(copyJson(JSON.parse('{"a":{"__proto__":{"polluted":true}}}')), NOT_PLAIN);
});

test("copyJson: nesting up to the wires' depth limit is copied, one level more is NOT_PLAIN", () => {
  const nested = (levels: number): unknown => (levels === 1 ? {} : { next: nested(levels - 1) });
  assert.deepEqual(copyJson(nested(MAX_JSON_DEPTH)), nested(MAX_JSON_DEPTH));
  assert.equal(copyJson(nested(MAX_JSON_DEPTH + 1)), NOT_PLAIN);
  assert.equal(copyJson([[[]]], 2), NOT_PLAIN);
  assert.deepEqual(copyJson([[]], 2), [[]]);
});
