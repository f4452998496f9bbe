// stringifyWithLongStrings: the text of a value with its long strings written apart is exactly
// JSON.stringify's, and the size it reports is that text's UTF-8 size, for every kind of long
// string (plain ASCII, text needing escapes, other scripts, emoji, lone surrogates); the value
// is left as it was, also when JSON.stringify throws. And finished tasks with long text parts
// are written this way, with the same text.
import assert from 'node:assert/strict';
import test from 'node:test';
import { WRITE_APART_LENGTH, stringifyWithLongStrings, type LongStringSpot } from '../../../src/core/json/long-strings.js';
import { DeferredJson } from '../../../src/core/json/encoded.js';
import { writeFinishedTask } from '../../../src/agent/task-engine.js';

/** Writes `value` with `spots` apart and checks the text and size against JSON.stringify's. */
function assertWrittenAsStringify(value: unknown, spots: readonly LongStringSpot[]): void {
  const expected = JSON.stringify(value);
  const written = stringifyWithLongStrings(value, spots);
  assert.ok(written.text === expected, 'same text as JSON.stringify');
  assert.equal(written.bytes, Buffer.byteLength(expected, 'utf8'));
}

const long = (unit: string): string => unit.repeat(Math.ceil(WRITE_APART_LENGTH / unit.length) + 1);

const kinds: ReadonlyArray<readonly [string, string]> = [
  ['printable ASCII', long('All work and no play. ')],
  ['quotes and backslashes', long('say "hi" \\ ')],
  ['control characters', long('line\nbreak\ttab\u0001 ')],
  ['Latin-1 letters', long('héllo wörld ')],
  ['other scripts', long('こんにちは世界 ')],
  ['emoji (surrogate pairs)', long('ok 👍 ')],
  ['a lone surrogate', `${long('a')}\ud800${long('b')}`],
  ['DEL and U+2028', long('x\u007f\u2028 ')],
  ['a mark without the secret part', long('\u0000parley-0123456789abcdef-0 ')],
];

for (const [name, text] of kinds) {
  test(`a long string of ${name} is written as JSON.stringify writes it, and counted`, () => {
    const part = { type: 'text', content: text };
    const value = { id: 'a "quoted" id', parts: [part, { type: 'text', content: 'short' }], n: 1.5 };
    assertWrittenAsStringify(value, [{ holder: part, key: 'content' }]);
    assert.equal(part.content, text, 'the value is left as it was');
  });
}

test('one string in several places, and one holder listed twice, come out whole', () => {
  const text = long('echo ');
  const shared = { type: 'text', content: text };
  const value = {
    messages: [{ parts: [shared] }, { parts: [{ type: 'text', content: text }] }],
    artifacts: [{ parts: [shared] }],
  };
  const spots: LongStringSpot[] = [
    { holder: shared, key: 'content' },
    { holder: value.messages[1]!.parts[0]!, key: 'content' },
    { holder: shared, key: 'content' },
  ];
  assertWrittenAsStringify(value, spots);
  assert.equal(shared.content, text);
});

test('a frozen part and a part with a getter are left to JSON.stringify, and come out whole', () => {
  const text = long('frozen ');
  const frozen = Object.freeze({ type: 'text', content: text });
  const getter = {
    type: 'text',
    get content() {
      return text;
    },
  };
  const open = { type: 'text', content: text };
  const value = { parts: [frozen, getter, open] };
  const spots: LongStringSpot[] = [frozen, getter, open].map((holder) => ({ holder, key: 'content' }));
  assertWrittenAsStringify(value, spots);
  assert.equal(open.content, text);
});

test('what JSON.stringify throws is thrown, and the long strings are put back first', () => {
  const text = long('abc ');
  const part = { type: 'text', content: text };
  const value = { parts: [part], bad: 10n };
  assert.throws(() => stringifyWithLongStrings(value, [{ holder: part, key: 'content' }]), TypeError);
  assert.equal(part.content, text);
});

test('a finished task with long text parts is written as JSON.stringify writes it, with its size', () => {
  const text = long('the answer is 42. ');
  const task = {
    id: 't1',
    state: 'completed',
    messages: [
      { id: 'm1', role: 'user', parts: [{ type: 'text', content: text }] },
      {
        id: 'm2',
        role: 'agent',
        parts: [
          { type: 'text', content: `${text}é` },
          { type: 'data', content: { text } },
        ],
      },
    ],
    artifacts: [{ id: 'a1', parts: [{ type: 'text', content: text }] }],
    metadata: { state_history: [] },
  };
  const expected = JSON.stringify(task);
  const written = writeFinishedTask(task);
  assert.equal(typeof written, 'object', 'written apart, with its size');
  assert.ok(typeof written === 'object' && written.text === expected);
  assert.equal(typeof written === 'object' && written.bytes, Buffer.byteLength(expected, 'utf8'));
  // Through DeferredJson: the size the writer told is the size, without counting the text again.
  const encoded = new DeferredJson(task, writeFinishedTask);
  assert.ok(encoded.text === expected);
  assert.equal(encoded.bytes, Buffer.byteLength(expected, 'utf8'));
  // A task with short parts only is written by JSON.stringify alone.
  assert.equal(
    writeFinishedTask({ id: 't2', messages: [{ parts: [{ type: 'text', content: 'hi' }] }] }),
    '{"id":"t2","messages":[{"parts":[{"type":"text","content":"hi"}]}]}',
  );
});

test('a finished task holding a bigint beside a long part is repaired and still written whole', () => {
  const text = long('abc ');
  const task = {
    id: 't3',
    state: 'completed',
    messages: [{ id: 'm1', role: 'agent', parts: [{ type: 'text', content: text }] }],
    artifacts: [],
    metadata: { state_history: [{ state: 'completed', timestamp: '2026-11-27T00:00:00.000Z' }], extra: 10n },
  };
  const written = writeFinishedTask(task);
  const text2 = typeof written === 'string' ? written : written.text;
  const parsed = JSON.parse(text2);
  assert.equal(parsed.messages[0].parts[0].content, text);
  // The record is repaired in place (the bigint made plain), then written.
  assert.equal(typeof task.metadata.extra, 'string');
  assert.equal(text2, JSON.stringify(task));
});
