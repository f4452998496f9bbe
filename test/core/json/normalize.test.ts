// src/core/json/: normalization to plain JSON, and the UTF-8 byte size every limit uses.
import { test } from 'node:test';
import { nowIso } from '../../../src/core/clock.js';
import assert from 'node:assert/strict';
import { encodeJson } from '../../../src/core/json/encoded.js';
import { jsonByteLength, plainJsonByteLength } from '../../../src/core/json/measure.js';
import { normalizeJson } from '../../../src/core/json/normalize.js';

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  area(): number {
    return 0;
  }
}

const normalized: Array<[string, unknown, unknown]> = [
  ['a string', 'a', 'a'],
  ['a number', 1.5, 1.5],
  ['NaN becomes null', Number.NaN, null],
  ['Infinity becomes null', Number.POSITIVE_INFINITY, null],
  ['undefined becomes null', undefined, null],
  ['a bigint becomes a string', 12345678901234567890n, '12345678901234567890'],
  ['a Date becomes an ISO string', new Date(Date.UTC(2024, 0, 2, 3, 4, 5)), '2024-01-02T03:04:05.000Z'],
  ['undefined members are dropped', { a: 1, b: undefined }, { a: 1 }],
  ['function members are dropped', { a: 1, f: () => 1 }, { a: 1 }],
  ['undefined array items become null', [1, undefined], [1, null]],
  [
    'a Map becomes an object',
    new Map<unknown, unknown>([
      ['k', 1],
      [2, 'two'],
    ]),
    { k: 1, '2': 'two' },
  ],
  ['a Set becomes an array', new Set([1, 2]), [1, 2]],
  ['an Error becomes name and message', new TypeError('bad'), { name: 'TypeError', message: 'bad' }],
  ['bytes become base64', new Uint8Array([104, 105]), 'aGk='],
  ['a class instance becomes its own fields', new Point(1, 2), { x: 1, y: 2 }],
  ['toJSON is honoured', { toJSON: () => ({ via: 'toJSON' }) }, { via: 'toJSON' }],
  [
    'nested values are converted',
    { when: [new Date(0)], n: { m: new Map([['a', undefined]]) } },
    { when: ['1970-01-01T00:00:00.000Z'], n: { m: {} } },
  ],
];
for (const [label, value, expected] of normalized) {
  test(`normalizeJson: ${label}`, () => {
    assert.deepEqual(normalizeJson(value), expected);
  });
}

test('normalizeJson returns plain JSON as it is (no copy)', () => {
  const value = { a: [1, { b: 'c' }], d: null, e: true };
  assert.equal(normalizeJson(value), value);
});

test('normalizeJson keeps an object without a prototype as plain JSON', () => {
  const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
  assert.equal(normalizeJson(bare), bare);
  assert.equal(encodeJson(bare).text, '{"a":1}');
});

test('normalizeJson refuses circular structures', () => {
  const value: Record<string, unknown> = { a: new Date(0) };
  value.self = value;
  assert.throws(() => normalizeJson(value), TypeError);
});

test('normalizeJson allows the same object twice when it is not circular', () => {
  const shared = { d: new Date(0) };
  assert.deepEqual(normalizeJson({ a: shared, b: shared }), {
    a: { d: '1970-01-01T00:00:00.000Z' },
    b: { d: '1970-01-01T00:00:00.000Z' },
  });
});

const encoded: Array<[string, unknown, string]> = [
  ['ASCII', { id: 'abc' }, '{"id":"abc"}'],
  ['two-byte characters', 'é', '"é"'],
  ['three-byte characters', '€', '"€"'],
  ['four-byte characters', '😀', '"😀"'],
  ['undefined', undefined, 'null'],
  ['normalized first', { at: new Date(0), skip: undefined }, '{"at":"1970-01-01T00:00:00.000Z"}'],
];
for (const [label, value, text] of encoded) {
  test(`encodeJson: ${label}: the text and its UTF-8 byte length`, () => {
    const result = encodeJson(value);
    assert.equal(result.text, text);
    assert.equal(result.bytes, Buffer.byteLength(text, 'utf8'));
  });
}

test('encodeJson counts bytes, not characters', () => {
  const result = encodeJson('€€€');
  assert.equal(result.text.length, 5);
  assert.equal(result.bytes, 11);
});

// jsonByteLength counts what JSON.stringify would write without writing it; every row is
// checked against the real text.
const measured: Array<[string, unknown]> = [
  ['null', null],
  ['booleans', [true, false]],
  ['numbers', [0, -0, 1.5, -2e-7, 1e21, 123456789012345680000, Number.MAX_SAFE_INTEGER]],
  ['an empty object and array', { a: {}, b: [] }],
  ['plain ASCII text', 'All work and no play makes a dull agent.'],
  ['quotes, backslashes and controls', 'say "hi"\\ \n\t\u0001\u001f'],
  ['multi-byte text', 'héllo wörld, 日本語, emoji 🤖'],
  ['a lone surrogate', 'broken \ud800 pair'],
  ['keys that need escaping', { 'quote"key': 1, 'new\nline': 2, ünï: 3 }],
  [
    'a task-like document',
    { id: 't1', messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi ✓' }] }], metadata: { n: [1, null, 'x'] } },
  ],
  ['nested lists', [[[]], [[1, [2, [3]]]]]],
  ['an undefined member, left out', { a: 1, gone: undefined, b: 2 }],
  ['an object with only undefined members', { gone: undefined }],
  ['long plain text', 'a'.repeat(300)],
  ['long text that needs escapes', `${'"'.repeat(150)}\n${'é'.repeat(150)}`],
];

for (const [name, value] of measured) {
  test(`jsonByteLength matches the UTF-8 size of JSON.stringify: ${name}`, () => {
    assert.equal(jsonByteLength(value), Buffer.byteLength(JSON.stringify(value), 'utf8'));
  });
  test(`plainJsonByteLength counts it the same: ${name}`, () => {
    assert.equal(plainJsonByteLength(value), Buffer.byteLength(JSON.stringify(value), 'utf8'));
  });
}

// Long strings are remembered once measured; an equal string reuses the size, a different one
// of the same length (other bytes) must not.
test('plainJsonByteLength: long strings of one length but different bytes are each counted right', () => {
  const rows = ['a'.repeat(400), 'é'.repeat(400), '"'.repeat(400), '\u0001'.repeat(400), '😀'.repeat(200), 'a'.repeat(400)];
  for (let round = 0; round < 3; round++) {
    for (const text of rows) {
      const value = { content: text, again: text, copy: `${text.slice(0, 200)}${text.slice(200)}` };
      assert.equal(
        plainJsonByteLength(value),
        Buffer.byteLength(JSON.stringify(value), 'utf8'),
        JSON.stringify(text.slice(0, 8)),
      );
    }
  }
});

// Member names' sizes are remembered; a name counted again, from memory, must count the same,
// and names past the memory's bounds (many, or long) are still counted right.
test('plainJsonByteLength: member names counted again, and past the remembered bounds, count the same', () => {
  const names = { 'quote"name': 1, 'new\nline': 2, ünï: 3, plain: 4, ['é'.repeat(100)]: 5 };
  for (let round = 0; round < 3; round++) {
    assert.equal(plainJsonByteLength(names), Buffer.byteLength(JSON.stringify(names), 'utf8'));
  }
  const many: Record<string, number> = {};
  for (let i = 0; i < 5_000; i++) many[`name-${i}-${'ß'.repeat(i % 3)}`] = i;
  for (let round = 0; round < 2; round++) {
    assert.equal(plainJsonByteLength(many), Buffer.byteLength(JSON.stringify(many), 'utf8'));
  }
});

// Anything JSON.stringify would write differently from what the walk sees is not plain.
const notPlain: Array<[string, unknown]> = [
  ['a Date', { at: new Date(0) }],
  ['a bigint', { n: 1n }],
  ['NaN and Infinity', [Number.NaN, Number.POSITIVE_INFINITY]],
  ['an undefined array item', [1, undefined]],
  ['a function member', { run: () => 1 }],
  ['a Map', new Map([['a', 1]])],
  [
    'a class instance',
    new (class Point {
      x = 1;
    })(),
  ],
  ['an object with toJSON', { toJSON: () => 'x' }],
];
for (const [name, value] of notPlain) {
  test(`plainJsonByteLength is -1 for what is not plain JSON: ${name}`, () => {
    assert.equal(plainJsonByteLength(value), -1);
  });
}

test('plainJsonByteLength: a cycle, or nesting past the limit, is -1 rather than a stack overflow', () => {
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  assert.equal(plainJsonByteLength(loop), -1);
  assert.equal(plainJsonByteLength([[[]]], 2), -1);
  assert.equal(plainJsonByteLength([[[]]], 3), 6);
});

test("plainJsonByteLength: the clock's current timestamp, the same string or an equal one, counts as its text", () => {
  const stamp = nowIso();
  const equal = `${stamp.slice(0, 10)}${stamp.slice(10)}`;
  for (const value of [stamp, equal, { at: stamp, again: [stamp, equal] }, '']) {
    assert.equal(plainJsonByteLength(value), Buffer.byteLength(JSON.stringify(value), 'utf8'));
  }
});
