// The outbound client's A2A streams against a scripted peer on a real socket, for what the
// official SDK never sends: an error in the middle of a stream (JSON-RPC's error response, REST's
// `event: error` frame), a stream that stops before the task ends, a frame over
// `max_event_bytes`, a peer that goes silent, a refusal before the stream (HTTP 401). Each row
// runs over JSON-RPC and HTTP+JSON; the answers must be the same.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamEvent } from '../../generated/types/index.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { A2aClientError } from '../../src/a2a/client/errors.js';
import { TransportLimitError, TransportRemoteError, TransportTimeoutError } from '../../src/transport/errors.js';

type Binding = 'JSONRPC' | 'HTTP+JSON';
type Frame =
  | { kind: 'result'; value: unknown }
  | { kind: 'error'; reason: string; message: string }
  | { kind: 'raw'; text: string };

/** What the peer does with a stream request: frames, then end (or hold the stream open). */
interface Script {
  readonly status?: number;
  readonly frames: readonly Frame[];
  readonly hold?: boolean;
}

const WORKING_TASK = { task: { id: 'remote-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } };

async function scriptedPeer(t: { after(fn: () => unknown): void }, script: Script) {
  const held = new Set<ServerResponse>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(card(base)));
      return;
    }
    const rest = req.url?.startsWith('/rest/') === true;
    const id = rest ? null : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number }).id;
    if (script.status) {
      res.writeHead(script.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'unauthenticated', message: 'credentials required' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const frame of script.frames) res.write(encode(frame, rest, id));
    if (script.hold) held.add(res);
    else res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return base;
}

function card(base: string) {
  return {
    name: 'scripted',
    description: 'a scripted A2A peer',
    supportedInterfaces: [
      { url: `${base}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    version: '1.0.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

function encode(frame: Frame, rest: boolean, id: number | null): string {
  if (frame.kind === 'raw') return frame.text;
  if (frame.kind === 'result')
    return `data: ${JSON.stringify(rest ? frame.value : { jsonrpc: '2.0', id, result: frame.value })}\n\n`;
  const info = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: frame.reason, domain: 'a2a-protocol.org' };
  if (rest) {
    return `event: error\ndata: ${JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: frame.message, details: [info] } })}\n\n`;
  }
  return `data: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: frame.message, data: [info] } })}\n\n`;
}

async function collect(stream: AsyncIterable<StreamEvent>, into: StreamEvent[]): Promise<void> {
  for await (const event of stream) into.push(event);
}

for (const binding of ['JSONRPC', 'HTTP+JSON'] as const satisfies readonly Binding[]) {
  describe(`A2A streams over ${binding}: what a peer may do wrong`, () => {
    function client(
      t: { after(fn: () => unknown): void },
      url: string,
      options: ConstructorParameters<typeof AgentClient>[1] = {},
    ) {
      const made = new AgentClient(url, { protocol: 'a2a', a2aBinding: binding, ...options });
      t.after(() => made.close());
      return made;
    }

    test('an error after the first event: the events so far, then the A2aClientError of that kind', async (t) => {
      const url = await scriptedPeer(t, {
        frames: [
          { kind: 'result', value: WORKING_TASK },
          { kind: 'error', reason: 'TASK_NOT_FOUND', message: 'the task went away' },
        ],
      });
      const events: StreamEvent[] = [];
      await assert.rejects(
        collect(client(t, url).streamTask('x'), events),
        (error) =>
          error instanceof A2aClientError &&
          error.kind === 'taskNotFound' &&
          error.rpcCode === -32001 &&
          /went away/.test(error.message),
      );
      assert.deepEqual(
        events.map((event) => event.type),
        ['task_status'],
      );
    });

    test('a stream that ends before a final state: a2a_invalid_response', async (t) => {
      const url = await scriptedPeer(t, { frames: [{ kind: 'result', value: WORKING_TASK }] });
      await assert.rejects(
        collect(client(t, url).streamTask('x'), []),
        (error) => error instanceof A2aClientError && error.code === 'a2a_invalid_response' && /ended before/.test(error.message),
      );
    });

    test('a frame over max_event_bytes: TransportLimitError, the frame never buffered whole', async (t) => {
      const big = { ...WORKING_TASK, task: { ...WORKING_TASK.task, metadata: { pad: 'x'.repeat(4096) } } };
      const url = await scriptedPeer(t, { frames: [{ kind: 'result', value: big }], hold: true });
      await assert.rejects(
        collect(client(t, url, { limits: { maxEventBytes: 1024 } }).streamTask('x'), []),
        (error) => error instanceof TransportLimitError && error.limit === 1024,
      );
    });

    test('a frame that is not JSON: a protocol error, not a crash', async (t) => {
      const url = await scriptedPeer(t, { frames: [{ kind: 'raw', text: 'data: {not json\n\n' }] });
      await assert.rejects(collect(client(t, url).streamTask('x'), []), /not JSON/);
    });

    test('a peer that goes silent: TransportTimeoutError once no event came within the deadline', async (t) => {
      const url = await scriptedPeer(t, { frames: [{ kind: 'result', value: WORKING_TASK }], hold: true });
      const events: StreamEvent[] = [];
      await assert.rejects(
        collect(client(t, url).streamTask('x', { timeoutMs: 300 }), events),
        (error) => error instanceof TransportTimeoutError,
      );
      assert.equal(events.length, 1, 'the event before the silence came through');
    });

    test('refused before the stream (HTTP 401): the HTTP failure, not an A2A error', async (t) => {
      const url = await scriptedPeer(t, { status: 401, frames: [] });
      await assert.rejects(
        collect(client(t, url).streamTask('x'), []),
        (error) => error instanceof TransportRemoteError && error.statusCode === 401,
      );
    });

    test('a keepalive comment between events is no event', async (t) => {
      const url = await scriptedPeer(t, {
        frames: [
          { kind: 'raw', text: ': keepalive\n\n' },
          { kind: 'result', value: WORKING_TASK },
          { kind: 'raw', text: ': keepalive\n\n' },
          {
            kind: 'result',
            value: { statusUpdate: { taskId: 'remote-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } },
          },
        ],
      });
      const events: StreamEvent[] = [];
      await collect(client(t, url).streamTask('x'), events);
      assert.deepEqual(
        events.map((event) => event.type),
        ['task_status', 'task_completed'],
      );
    });
  });
}
