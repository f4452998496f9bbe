// Large JSON decoded on a worker thread must come out exactly as the main thread decodes it:
// the same value, the same syntax error text, the same nesting refusal. And the worker must
// never outlive its use: it keeps no process alive and ends when idle.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { jsonValueTooDeep, MAX_JSON_DEPTH } from '../../src/core/json/depth.js';
import { describeJsonSyntaxError } from '../../src/core/json/syntax.js';
import {
  decodeJsonOffThread,
  jsonDecodeWorkers,
  jsonDecodeWorkersEnded,
  type JsonDecodeResult,
} from '../../src/core/off-thread-json.js';

type Decoded =
  | { kind: 'value'; value: unknown }
  | { kind: 'invalid_json'; located: string; parserMessage: string }
  | { kind: 'too_deep' };

/** The main thread's decoding, as the transports do it, in the worker's result shape. */
function decodeHere(bytes: Buffer, checkDepth: boolean, blankIsNothing = false): Decoded {
  const text = bytes.toString('utf8');
  if (blankIsNothing && text.trim() === '') return { kind: 'value', value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      kind: 'invalid_json',
      located: describeJsonSyntaxError(text, error),
      parserMessage: error instanceof Error ? error.message : String(error),
    };
  }
  if (checkDepth && jsonValueTooDeep(value)) return { kind: 'too_deep' };
  return { kind: 'value', value };
}

const nested = (depth: number): string => `${'['.repeat(depth)}"bottom"${']'.repeat(depth)}`;

const inputs: Record<string, Buffer> = {
  escapes: Buffer.from(JSON.stringify({ s: 'quote " backslash \\ tab \t nl \n nul \u0000 bell \u0007 \u2028 /' })),
  'other scripts and emoji': Buffer.from(JSON.stringify(['é ü ß 中文 😀', { 键: '🧪'.repeat(1000) }])),
  'escaped lone surrogates': Buffer.from('["\\ud800", "\\udc00x", "a\\ud83d"]'),
  'UTF-8 of a lone surrogate and broken sequences': Buffer.concat([
    Buffer.from('["'),
    Buffer.from([0xed, 0xa0, 0x80, 0xc3, 0x28, 0xf0, 0x9f, 0x98]),
    Buffer.from('"]'),
  ]),
  'nesting at the limit': Buffer.from(nested(MAX_JSON_DEPTH)),
  'nesting one past the limit': Buffer.from(nested(MAX_JSON_DEPTH + 1)),
  'a missing value': Buffer.from('{"id":"t","messages":[1,,2]}'),
  'a bad escape': Buffer.from('{"id":"t\\x"}'),
  'a line break inside a string': Buffer.from('{"a":"one\ntwo"}'),
  'an unterminated string': Buffer.from('{"a":"open'),
  'trailing text': Buffer.from('{} {}'),
  'an empty body': Buffer.alloc(0),
  'only whitespace': Buffer.from(' \n\t '),
  'nesting too deep to copy between threads': Buffer.from(`{"data":${nested(20_000)}}`),
  'a large string': Buffer.from(JSON.stringify({ text: `${'x😀'.repeat(400_000)}\ud800` })),
};

test('the worker decodes every input exactly as the main thread does (values, syntax errors, nesting)', async () => {
  for (const [name, bytes] of Object.entries(inputs)) {
    for (const checkDepth of [true, false]) {
      const expected = decodeHere(bytes, checkDepth);
      const { id: _id, ...got } = await decodeJsonOffThread(Buffer.from(bytes), { checkDepth });
      if (got.kind === 'value' && jsonValueTooDeep(got.value, 1000)) {
        // Too deep for a recursive comparison: the same kind, and the same depth, measured iteratively.
        assert.equal(expected.kind, 'value', name);
        assert.equal(jsonValueTooDeep(got.value, 20_001), false, name);
        assert.equal(jsonValueTooDeep(got.value, 20_000), true, name);
        continue;
      }
      assert.deepEqual(got, expected, `${name} (checkDepth ${checkDepth})`);
    }
  }
  const { id: _id, ...blank } = await decodeJsonOffThread(Buffer.from(' \n '), { checkDepth: true, blankIsNothing: true });
  assert.deepEqual(blank, { kind: 'value', value: undefined });
});

test('bytes that own their buffer are moved to the worker; a view into a larger buffer is copied', async () => {
  const owned = Buffer.from(new Uint8Array(Buffer.from('[1,2,3]')).buffer);
  const shared = Buffer.from('xx[4]yy').subarray(2, 5);
  const [moved, copied] = await Promise.all([
    decodeJsonOffThread(owned, { checkDepth: true }),
    decodeJsonOffThread(shared, { checkDepth: true }),
  ]);
  assert.deepEqual([moved.kind, copied.kind], ['value', 'value']);
  assert.deepEqual([(moved as { value: unknown }).value, (copied as { value: unknown }).value], [[1, 2, 3], [4]]);
  assert.equal(owned.length, 0, 'the moved buffer is left empty here');
  assert.equal(shared.toString(), '[4]', 'the view was copied, not taken');
});

test('the worker starts on demand, one at most, and ends when idle', async () => {
  await jsonDecodeWorkersEnded();
  assert.equal(jsonDecodeWorkers(), 0);
  const jobs = Array.from({ length: 4 }, (_, i) => decodeJsonOffThread(Buffer.from(`[${i}]`), { checkDepth: true }));
  assert.equal(jsonDecodeWorkers(), 1);
  await Promise.all(jobs);
  await jsonDecodeWorkersEnded();
  assert.equal(jsonDecodeWorkers(), 0);
});

test('a process whose worker decoded a body exits by itself, the worker idle or not', () => {
  const module = fileURLToPath(new URL('../../src/core/off-thread-json.ts', import.meta.url));
  const script = `
    const { decodeJsonOffThread, jsonDecodeWorkers } = await import(${JSON.stringify(module)});
    const result = await decodeJsonOffThread(Buffer.from('{"ok":true}'), { checkDepth: true });
    console.log(JSON.stringify({ result, workers: jsonDecodeWorkers() }));`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(child.status, 0, child.stderr);
  const printed = JSON.parse(child.stdout) as { result: JsonDecodeResult; workers: number };
  assert.deepEqual(printed.result, { id: 0, kind: 'value', value: { ok: true } });
  assert.equal(printed.workers, 1, 'the worker was still there when the script ended');
});
