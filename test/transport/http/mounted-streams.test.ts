// An agent mounted in an app's server streams its tasks as the standalone sse server does: in a
// real express app (bare, and behind express.json()) and in a plain node:http server, read by
// AgentClient over sse and by fetch reading the event stream itself. A mount asked to be plain
// http keeps its stream route closed (404), as the standalone http server does.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from 'express';
import type { StreamEvent, Task } from '../../../generated/types/index.js';
import { validate } from '../../../generated/validators/index.js';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { AgentClient } from '../../../src/client/agent-client.js';
import { createMountedTransport, type MountOptions } from '../../../src/transport/http/express-adapter.js';
import { dataLines } from '../../support/sse-peers.js';

type After = { after(fn: () => unknown): void };
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Listens on port 0 of 127.0.0.1 until the test ends; its base URL. */
async function listening(t: After, server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An express app with the agent at /agent and a route of its own. */
async function expressApp(t: After, jsonParser: boolean, options?: MountOptions): Promise<string> {
  const app = express();
  if (jsonParser) app.use(express.json());
  app.get('/own', (_req, res) => res.json({ mine: true }));
  const url = await listening(t, createServer(app));
  await startAgent(t, `${url}/agent`, (handler) => app.use('/agent', handler), options);
  return `${url}/agent`;
}

/** A plain node:http server that hands the requests under /agent to the agent, prefix removed. */
async function nodeHttpServer(t: After): Promise<string> {
  let mounted: Handler | null = null;
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (mounted && (path === '/agent' || path.startsWith('/agent/') || path.startsWith('/agent?'))) {
      req.url = path.slice('/agent'.length) || '/';
      mounted(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  const url = await listening(t, server);
  await startAgent(t, `${url}/agent`, (handler) => {
    mounted = handler;
  });
  return `${url}/agent`;
}

async function startAgent(t: After, url: string, mount: (handler: Handler) => void, options?: MountOptions): Promise<void> {
  const { transport, handler } = createMountedTransport(url, options);
  mount(handler);
  const agent = new AgentServer({ name: 'mounted', transport });
  await agent.start();
  t.after(() => agent.stop());
}

async function standaloneSse(t: After): Promise<string> {
  const agent = new AgentServer({ name: 'standalone', transport: 'sse', url: 'http://127.0.0.1:0' });
  await agent.start();
  t.after(() => agent.stop());
  return agent.url;
}

const task = (id: string): Task => ({ id, messages: [{ role: 'user', parts: [{ type: 'text', content: `hello ${id}` }] }] });

/** What a stream says, without what differs between two runs (times). */
function outline(events: readonly StreamEvent[]): unknown[] {
  return events.map((event) => {
    const { type } = event as { type: string };
    const state = (event as { task?: { state?: string } }).task?.state ?? (event as { state?: string }).state;
    const artifact = (event as { artifact?: { parts?: unknown } }).artifact?.parts;
    const message = (event as { message?: { role?: string; parts?: unknown } }).message;
    return { type, state, artifact, message: message && [message.role, message.parts] };
  });
}

async function clientEvents(url: string, id: string): Promise<StreamEvent[]> {
  const client = new AgentClient(url, { transport: 'sse' });
  try {
    const events: StreamEvent[] = [];
    for await (const event of client.streamTask(task(id))) events.push(event);
    return events;
  } finally {
    await client.close();
  }
}

/** The stream as a peer that is not parley reads it: fetch, the raw event stream, each frame checked against its schema. */
async function fetchedEvents(url: string, id: string): Promise<{ contentType: string | null; events: StreamEvent[] }> {
  const response = await fetch(`${url}/tasks/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(task(id)),
  });
  assert.equal(response.status, 200);
  const frames = dataLines(await response.text()).map((line) => JSON.parse(line) as { ok: boolean; result: StreamEvent });
  for (const frame of frames) {
    const checked = validate('sse-frame', frame);
    assert.ok(checked.valid, `not an sse-frame: ${JSON.stringify(frame)}`);
    assert.equal(frame.ok, true);
  }
  return { contentType: response.headers.get('content-type'), events: frames.map((frame) => frame.result) };
}

const MOUNTS: ReadonlyArray<[string, (t: After) => Promise<string>]> = [
  ['express', (t) => expressApp(t, false)],
  ['express behind express.json()', (t) => expressApp(t, true)],
  ['a plain node:http server', nodeHttpServer],
];

for (const [where, mount] of MOUNTS) {
  test(`an agent mounted in ${where} streams tasks as the standalone sse server does`, async (t) => {
    const [mounted, standalone] = await Promise.all([mount(t), standaloneSse(t)]);
    const expected = outline(await clientEvents(standalone, 'same'));
    assert.ok(expected.length >= 2, 'the echo agent streams more than its final event');

    assert.deepEqual(outline(await clientEvents(mounted, 'same')), expected, 'AgentClient over sse');
    const fetched = await fetchedEvents(mounted, 'same');
    assert.equal(fetched.contentType, 'text/event-stream');
    assert.deepEqual(outline(fetched.events), expected, 'fetch reading the event stream');

    // The card tells clients the mount streams; unary calls work as before.
    const client = new AgentClient(mounted);
    t.after(() => client.close());
    const card = await client.getCard();
    assert.equal(card.url, mounted);
    assert.deepEqual(
      card.interfaces?.map((item) => [item.transport, item.url]),
      [['sse', mounted]],
    );
    assert.equal((await client.sendTask(task('unary'))).state, 'completed');
  });
}

test("a mount asked for transport 'http' serves unary routes only: its stream route is 404", async (t) => {
  const mounted = await expressApp(t, false, { transport: 'http' });
  const client = new AgentClient(mounted);
  t.after(() => client.close());
  assert.equal((await client.sendTask(task('unary'))).state, 'completed');
  assert.equal((await client.getCard()).interfaces?.[0]?.transport, 'http');
  const stream = await fetch(`${mounted}/tasks/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(task('no-stream')),
  });
  assert.equal(stream.status, 404);
  assert.equal(((await stream.json()) as { error: { code: string } }).error.code, 'not_found');
  assert.throws(() => createMountedTransport(mounted, { transport: 'websocket' as 'http' }), {
    name: 'InvalidArgumentError',
    code: 'unknown_transport',
  });
});
