// A large body to the A2A JSON-RPC route is decoded and parsed on a worker thread (it reads
// its body itself, so it is handed the worker's result): not on the main thread, and with the
// same answers as the same body small.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LARGE_PAYLOAD_BYTES } from '../../src/core/large-payload-turns.js';
import { postRpc, startA2aAgent, userMessage } from './support.js';

test('A2A: a large SendMessage is not parsed on the main thread', async (t) => {
  const { url } = await startA2aAgent(t);
  const text = 'x'.repeat(LARGE_PAYLOAD_BYTES);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage(text) } });
  const parsedHere: string[] = [];
  const parse = JSON.parse;
  JSON.parse = ((source: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (typeof source === 'string' && source.length >= LARGE_PAYLOAD_BYTES) parsedHere.push(source);
    return parse(source, reviver);
  }) as typeof JSON.parse;
  let answer: Awaited<ReturnType<typeof postRpc>>;
  try {
    answer = await postRpc(url, body);
  } finally {
    JSON.parse = parse;
  }
  assert.equal(answer.status, 200);
  assert.equal(answer.json.error, undefined, JSON.stringify(answer.json.error));
  assert.equal(parsedHere.filter((source) => source.includes('"SendMessage"')).length, 0, 'the request was parsed here');
});

test('A2A: a large body that is not JSON, or only whitespace, is refused exactly as the same body small', async (t) => {
  const { url } = await startA2aAgent(t);
  const pad = ' '.repeat(LARGE_PAYLOAD_BYTES);
  const cases: Record<string, [string, string]> = {
    'a missing value': ['{"jsonrpc":"2.0",,"id":1}', `{"jsonrpc":"2.0",,"id":1}${pad}`],
    'a bad escape': ['{"jsonrpc":"2\\x"}', `{"jsonrpc":"2\\x"}${pad}`],
    'only whitespace': ['', pad],
  };
  for (const [name, [small, large]] of Object.entries(cases)) {
    const direct = await postRpc(url, small);
    const turned = await postRpc(url, large);
    assert.equal(direct.json?.error?.code, -32700, `${name}: ${JSON.stringify(direct.json)}`);
    assert.deepEqual(turned, direct, name);
  }
});
