// The runtime transport hands each side a copy of what the other made, measured in the same
// walk: copyJson must read exactly as the JSON text would, share no object or array with the
// original, count exactly the text's UTF-8 size, and give up (NOT_PLAIN) on anything the text
// would show differently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH } from '../../../src/core/json/depth.js';
import { measuredCopy as copyMeasured, NOT_PLAIN } from '../../../src/core/json/measure.js';

/** The copy alone, or NOT_PLAIN. */
function copyJson(value: unknown, maxDepth?: number): unknown {
  const copied = copyMeasured(value, maxDepth);
  return copied === NOT_PLAIN ? NOT_PLAIN : copied.value;
}

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

// Every row's count is checked against the real text; the copy against the text parsed.
const measured: Array<[string, unknown]> = [
  ['null', null],
  ['a top-level string', 'text'],
  ['booleans', [true, false]],
  ['numbers', [0, -0, 1.5, -2e-7, 1e21, 123456789012345680000, Number.MAX_SAFE_INTEGER]],
  ['an empty object and array, at the top and nested', [{}, [], { a: {}, b: [] }]],
  ['quotes, backslashes and controls', { 'say "hi"': 'say "hi"\\ \n\t\u0001\u001f' }],
  ['multi-byte text and names', { ünï: 'héllo wörld, 日本語, emoji 🤖' }],
  ['a lone surrogate', ['broken \ud800 pair']],
  ['undefined members, left out', { a: 1, gone: undefined, b: { gone: undefined }, c: [{ gone: undefined }] }],
  ['long text, plain and escaped', { plain: 'a'.repeat(300), escaped: `${'"'.repeat(150)}\n${'é'.repeat(150)}` }],
  [
    'a finished task',
    {
      id: 't1',
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi ✓' }], id: 'm1', timestamp: '2026-11-27T07:45:41.985Z' }],
      state: 'completed',
      artifacts: [{ kind: 'result', metadata: {}, name: null, parts: [{ type: 'text', content: 'hi ✓' }] }],
      metadata: { state_history: [{ state: 'submitted', timestamp: '2026-11-27T07:45:41.985Z' }], n: [1, null, 'x'] },
    },
  ],
];

for (const [name, value] of measured) {
  test(`copyJson: the copy reads as the text parsed, and its size is the text's: ${name}`, () => {
    const copied = copyMeasured(value);
    assert.notEqual(copied, NOT_PLAIN);
    const { value: copy, bytes } = copied as Exclude<typeof copied, typeof NOT_PLAIN>;
    const text = JSON.stringify(value);
    assert.deepEqual(copy, JSON.parse(text));
    assert.equal(bytes, Buffer.byteLength(text, 'utf8'));
  });
}

test('copyJson: each copy counts from zero, after one that gave up midway', () => {
  assert.equal(copyMeasured({ a: 'x'.repeat(50), b: new Date(0) }), NOT_PLAIN);
  assert.deepEqual(copyMeasured({ a: 1 }), { value: { a: 1 }, bytes: 7 });
});
