// Payloads of LARGE_PAYLOAD_BYTES and more take turns (core/large-payload-turns.ts): a large
// body is decoded and served in later loop iterations than the one its last byte came in, so
// other clients are served in between. What comes out must be exactly what the direct path
// gives: the same values, the same refusals.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Task } from '../../generated/types/index.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { MAX_JSON_DEPTH } from '../../src/core/json/depth.js';
import { LARGE_PAYLOAD_BYTES } from '../../src/core/large-payload-turns.js';
import { createMountedTransport } from '../../src/transport/http/express-adapter.js';

/** Counts the loop's iterations (check phases) while a test runs. */
function loopCounter(t: { after(fn: () => unknown): void }): { readonly now: number } {
  const counter = { now: 0 };
  let ticking = true;
  const tick = () => {
    counter.now++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  t.after(() => {
    ticking = false;
  });
  return counter;
}

/** An agent served through a node:http server of the test's, which sees each body end. */
async function mountedAgent(
  t: { after(fn: () => unknown): void },
  handler: ConstructorParameters<typeof AgentServer>[0]['handler'],
  onBodyEnd: () => void,
): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { transport, handler: serve } = createMountedTransport(base);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    req.once('end', onBodyEnd);
    serve(req, res);
  });
  const agent = new AgentServer({ name: 'large', transport, handler });
  await agent.start();
  t.after(() => agent.stop());
  return base;
}

const userTask = (id: string, text: string, metadata: Record<string, unknown> = {}): Task => ({
  id,
  messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }],
  metadata,
});

test('http: a large body is served in a later loop iteration than the one it ended in; a small one in the same', async (t) => {
  const loop = loopCounter(t);
  let endedAt = -1;
  let handledAt = -1;
  const base = await mountedAgent(
    t,
    ({ input }) => {
      handledAt = loop.now;
      return { text: `${input.length}` };
    },
    () => {
      endedAt = loop.now;
    },
  );
  const send = (text: string) =>
    fetch(`${base}/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(userTask(`t-${text.length}`, text)),
    });

  const small = await send('x'.repeat(1024));
  assert.equal(small.status, 200);
  assert.equal(handledAt, endedAt, 'a small body is served straight on');

  const large = await send('x'.repeat(2 * LARGE_PAYLOAD_BYTES));
  assert.equal(large.status, 200);
  assert.equal(((await large.json()) as Task).state, 'completed');
  assert.ok(handledAt > endedAt, `a large body ended in iteration ${endedAt} and was served in ${handledAt}`);
});

/** Nested arrays `depth` levels deep, a string at the bottom. */
const nested = (depth: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

/** Text with every kind of character JSON writes specially, repeated to at least `bytes`. */
function awkwardText(bytes: number): string {
  const unit = 'quote " backslash \\ tab \t newline \n nul \u0000 bell \u0007 é ü ß 中文 😀 \u2028 \u2029 lone \ud800 end. ';
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
}

for (const transport of ['http', 'sse', 'websocket', 'grpc'] as const) {
  test(`${transport}: a large task with escapes, other scripts and nesting at the limit comes back exactly as a small one does`, async (t) => {
    const url =
      transport === 'websocket' ? 'ws://127.0.0.1:0' : transport === 'grpc' ? 'grpc://127.0.0.1:0' : 'http://127.0.0.1:0';
    const agent = new AgentServer({ name: 'large', transport, url });
    await agent.start();
    t.after(() => agent.stop());
    const client = new AgentClient(agent.url, { transport });
    t.after(() => client.close());
    // The task is one level, metadata two: the nest brings the body to MAX_JSON_DEPTH.
    const metadata = { nest: nested(MAX_JSON_DEPTH - 2) };
    for (const bytes of [4 * 1024, 2 * LARGE_PAYLOAD_BYTES]) {
      const text = awkwardText(bytes);
      const task = await client.sendTask(userTask(`t-${bytes}`, text, metadata));
      assert.equal(task.state, 'completed');
      assert.equal(task.messages?.[0]?.parts[0]?.content === text, true, 'the message came back whole');
      assert.equal(task.artifacts?.[0]?.parts[0]?.content === text, true, 'the echo is the text');
      assert.deepEqual(task.metadata?.nest, metadata.nest);
    }
  });
}

test('http: a large body is refused exactly as the same body small (bad JSON, nesting past the limit)', async (t) => {
  const agent = new AgentServer({ name: 'large', transport: 'http', url: 'http://127.0.0.1:0' });
  await agent.start();
  t.after(() => agent.stop());
  const post = async (body: string) => {
    const response = await fetch(`${agent.url}/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-request-id': 'same-id' },
      body,
    });
    return { status: response.status, body: await response.text() };
  };
  // Padding after the fault (whitespace, or a long string before it) makes the body large
  // without moving the fault's line and column.
  const pad = ' '.repeat(LARGE_PAYLOAD_BYTES);
  const task = (metadata: unknown) => JSON.stringify({ ...userTask('t-refused', 'hi'), metadata });
  const cases: Record<string, [string, string]> = {
    'a missing value': ['{"id":"t","messages":[1,,2]}', `{"id":"t","messages":[1,,2]}${pad}`],
    'a trailing comma': ['{"id":"t",}', `{"id":"t",}${pad}`],
    'a bad escape': ['{"id":"t\\x"}', `{"id":"t\\x"}${pad}`],
    'nesting one past the limit': [
      task({ nest: nested(MAX_JSON_DEPTH - 1) }),
      `${task({ nest: nested(MAX_JSON_DEPTH - 1) })}${pad}`,
    ],
    'a schema violation': ['{"id":7}', `{"id":7}${pad}`],
  };
  for (const [name, [small, large]] of Object.entries(cases)) {
    assert.ok(Buffer.byteLength(large) >= LARGE_PAYLOAD_BYTES);
    const direct = await post(small);
    const turned = await post(large);
    assert.ok(direct.status >= 400 && direct.status < 500, `${name}: ${direct.status} ${direct.body}`);
    assert.deepEqual(turned, direct, name);
  }
});
