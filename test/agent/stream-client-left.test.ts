// A stream whose client leaves mid-way, for every route that answers as a stream: A2A's
// SendStreamingMessage (JSON-RPC) and message:stream (HTTP+JSON), POST /tasks/stream over sse
// (each read with fetch, which aborts) and over websocket (a plain `ws` client that drops the
// connection). The handler hears the abort on its signal, and stop() then ends without waiting
// out the drain window: the window is a minute here and the handler's gate is never opened,
// so a server that still waited would time the test out. fetch in Node 20 opens a fresh
// connection when its caller leaves a stream and sends nothing on it; that connection is what
// held stop for the whole window before (http/connection-guard.ts, closeUnused), until fetch
// itself closed it some 18 s later.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AgentServer } from '../../src/agent/agent-server.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import { userMessage } from '../a2a/support.js';
import { deferred } from '../support/async.js';
import { RawPeer } from '../support/websocket-peers.js';

const TIMEOUT = { timeout: 10_000 };

type Route = 'jsonrpc' | 'rest' | 'sse' | 'websocket';

/** Yields one event, then waits for `gate` or its signal; tells `aborted` when the signal fires. */
function gatedHandler(gate: Promise<void>, aborted: () => void): AgentHandler {
  return async function* ({ input, signal }) {
    yield { type: 'task_progress', progress: 0.5 } as never;
    await new Promise<void>((resolve) => {
      void gate.then(resolve);
      signal.addEventListener(
        'abort',
        () => {
          aborted();
          resolve();
        },
        { once: true },
      );
    });
    return `echo: ${input}`;
  };
}

const nativeTask = { id: 'left-behind', messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] };

/** Opens the route's stream, reads its first event, then leaves the way a real client does. */
async function openAndLeave(url: string, route: Route): Promise<void> {
  if (route === 'websocket') {
    const peer = await RawPeer.open(url);
    peer.send({ id: 'r-1', method: 'POST', path: '/tasks/stream', data: nativeTask });
    const first = (await peer.next()).json;
    assert.equal(first.ok, true, JSON.stringify(first));
    peer.close();
    return;
  }
  const [path, body] =
    route === 'jsonrpc'
      ? ['/', { jsonrpc: '2.0', id: 'r-1', method: 'SendStreamingMessage', params: { message: userMessage('hi') } }]
      : route === 'rest'
        ? ['/a2a/rest/message:stream', { message: userMessage('hi') }]
        : ['/tasks/stream', nativeTask];
  const leave = new AbortController();
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal: leave.signal,
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert.equal(first.done, false, 'a first event');
  leave.abort();
  await reader.cancel().catch(() => undefined);
}

describe('a stream its client left', () => {
  for (const route of ['jsonrpc', 'rest', 'sse', 'websocket'] as const) {
    test(`${route}: the handler's signal aborts and stop() does not wait out the drain window`, TIMEOUT, async (t) => {
      const gate = deferred();
      const aborted = deferred();
      let gateOpened = false;
      const kind = route === 'websocket' ? 'websocket' : route === 'sse' ? 'sse' : 'http';
      const agent = new AgentServer({
        name: 'left',
        description: 'waits for a gate',
        a2a: route === 'jsonrpc' || route === 'rest',
        transport: kind,
        url: kind === 'websocket' ? 'ws://127.0.0.1:0' : 'http://127.0.0.1:0',
        handler: gatedHandler(gate.promise, () => aborted.resolve()),
        // A minute to drain, and as long for a connection's first headers (node closes a
        // connection that sent none after that): anything stop still waited for would time
        // the test out.
        transportOptions: { shutdownTimeout: 60, headerTimeout: 60 },
      });
      await agent.start();
      t.after(async () => {
        gateOpened = true;
        gate.resolve();
        await agent.stop();
      });
      await openAndLeave(agent.url, route);
      await aborted.promise;
      await agent.stop();
      assert.equal(gateOpened, false, 'stop() ended before the handler was ever let go');
    });
  }
});
