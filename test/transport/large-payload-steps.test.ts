// The heavy steps of a large task stay off the main thread or are cut small there: its body
// is parsed on a worker (no JSON.parse of a request's text here), and its answer is encoded
// to UTF-8 in slices of at most UTF8_SLICE_CHARS, not in one go. Client and server share this
// process, so the parses seen are told apart by their text: only an answer has artifacts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Task } from '../../generated/types/index.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { LARGE_PAYLOAD_BYTES } from '../../src/core/large-payload-turns.js';
import { UTF8_SLICE_CHARS } from '../../src/core/utf8-in-turns.js';

const URLS = {
  http: 'http://127.0.0.1:0',
  sse: 'http://127.0.0.1:0',
  websocket: 'ws://127.0.0.1:0',
  grpc: 'grpc://127.0.0.1:0',
} as const;

for (const transport of ['http', 'sse', 'websocket', 'grpc'] as const) {
  test(`${transport}: a large request is not parsed on the main thread and its answer is encoded in slices`, async (t) => {
    const agent = new AgentServer({ name: 'steps', transport, url: URLS[transport] });
    await agent.start();
    t.after(() => agent.stop());
    const client = new AgentClient(agent.url, { transport });
    t.after(() => client.close());

    const parsedHere: string[] = [];
    const slices: number[] = [];
    const parse = JSON.parse;
    const write = Buffer.prototype.write;
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (typeof text === 'string' && text.length >= LARGE_PAYLOAD_BYTES) parsedHere.push(text);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    Buffer.prototype.write = function (this: Buffer, ...args: Parameters<Buffer['write']>) {
      if (typeof args[0] === 'string' && args[0].length >= LARGE_PAYLOAD_BYTES / 2) slices.push(args[0].length);
      return write.apply(this, args);
    } as Buffer['write'];
    let task: Task;
    const text = `${'x😀'.repeat(LARGE_PAYLOAD_BYTES)}end`;
    try {
      task = await client.sendTask({ id: 't-large', messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }] });
    } finally {
      JSON.parse = parse;
      Buffer.prototype.write = write;
    }
    assert.equal(task.artifacts?.[0]?.parts[0]?.content === text, true, 'the echo came back whole');
    // The answer holds the text twice (the message and its echo): at least four slices.
    assert.ok(slices.length >= 4, `the answer was encoded in ${slices.length} slices`);
    assert.ok(Math.max(...slices) <= UTF8_SLICE_CHARS, `a slice of ${Math.max(...slices)} characters`);
    const requests = parsedHere.filter((parsed) => !parsed.includes('"artifacts"'));
    assert.equal(requests.length, 0, 'the request was parsed on the main thread');
  });
}

test('http: the answer to a large request is written (its JSON) in a later loop iteration than the handler ran in', async (t) => {
  let iteration = 0;
  let ticking = true;
  const tick = () => {
    iteration++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  t.after(() => {
    ticking = false;
  });
  let handledAt = -1;
  const agent = new AgentServer({
    name: 'steps',
    transport: 'http',
    url: URLS.http,
    handler: ({ input }) => {
      handledAt = iteration;
      return { text: `${input.length}` };
    },
  });
  await agent.start();
  t.after(() => agent.stop());
  const encodedAt: number[] = [];
  const stringify = JSON.stringify;
  JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
    const value = args[0] as { artifacts?: unknown } | null;
    if (handledAt >= 0 && value !== null && typeof value === 'object' && 'artifacts' in value) encodedAt.push(iteration);
    return stringify(...args);
  }) as typeof JSON.stringify;
  let response: Response;
  try {
    response = await fetch(`${agent.url}/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stringify({
        id: 't-encode',
        messages: [{ role: 'user', parts: [{ type: 'text', content: 'x'.repeat(LARGE_PAYLOAD_BYTES) }] }],
      }),
    });
  } finally {
    JSON.stringify = stringify;
  }
  assert.equal(response.status, 200);
  assert.ok(encodedAt.length > 0, 'the answer was written');
  assert.ok(encodedAt[0]! > handledAt, `the handler ran in iteration ${handledAt}, the answer was written in ${encodedAt[0]}`);
});
