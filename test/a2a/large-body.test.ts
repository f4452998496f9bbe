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

test('A2A HTTP+JSON: a large message:send is decoded off the main thread and answered as the same body small', async (t) => {
  const { url } = await startA2aAgent(t);
  const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  const post = async (body: string) => {
    const response = await fetch(`${url}/a2a/rest/message:send`, { method: 'POST', headers, body });
    return { status: response.status, json: (await response.json()) as any };
  };
  const large = await post(JSON.stringify({ message: userMessage('x'.repeat(LARGE_PAYLOAD_BYTES)) }));
  assert.equal(large.status, 200, JSON.stringify(large.json).slice(0, 300));
  assert.equal(large.json.task.status.state, 'TASK_STATE_COMPLETED');
  const pad = ' '.repeat(LARGE_PAYLOAD_BYTES);
  for (const [small, padded] of [
    ['{"message":,}', `{"message":,}${pad}`],
    ['', pad],
    ['[]', `[]${pad}`],
  ]) {
    const direct = await post(small!);
    const turned = await post(padded!);
    assert.equal(turned.status, direct.status, JSON.stringify(small));
    assert.equal(turned.json.error.details[0].reason, direct.json.error.details[0].reason, JSON.stringify(small));
  }
});
