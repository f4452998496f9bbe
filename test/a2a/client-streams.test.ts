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

    // A hostile peer keeps every event small and sends many: what they fold into the task is
    // bounded by max_response_bytes (what a blocking SendMessage's answer may hold), however
    // they carry it. Before, the task grew for as long as the peer kept sending.
    const padded = (i: number) => ({
      messageId: `m-${i}`,
      role: 'ROLE_AGENT',
      parts: [{ text: `${i} ${'x'.repeat(200)}` }],
    });
    const update = (status: Record<string, unknown>) => ({
      statusUpdate: { taskId: 'remote-1', contextId: 'ctx-1', status },
    });
    const many = (make: (i: number) => unknown) => Array.from({ length: 40 }, (_, i) => make(i));
    const growers: readonly (readonly [string, readonly unknown[]])[] = [
      ['status messages', many((i) => update({ state: 'TASK_STATE_WORKING', message: padded(i) }))],
      [
        'appended artifact chunks',
        many((i) => ({
          artifactUpdate: {
            taskId: 'remote-1',
            contextId: 'ctx-1',
            artifact: { artifactId: 'file', parts: [{ text: 'y'.repeat(200) }] },
            append: i > 0,
          },
        })),
      ],
      [
        'new artifacts',
        many((i) => ({
          artifactUpdate: {
            taskId: 'remote-1',
            contextId: 'ctx-1',
            artifact: { artifactId: `a-${i}`, parts: [{ text: 'z'.repeat(200) }] },
          },
        })),
      ],
      ['task events with more history', many((i) => ({ task: { ...WORKING_TASK.task, history: [padded(i)] } }))],
    ];
    for (const [what, updates] of growers) {
      test(`${what} past max_response_bytes end the stream with TransportLimitError (response)`, async (t) => {
        const url = await scriptedPeer(t, {
          frames: [
            { kind: 'result', value: WORKING_TASK },
            ...updates.map((value) => ({ kind: 'result' as const, value })),
            { kind: 'result', value: update({ state: 'TASK_STATE_COMPLETED' }) },
          ],
        });
        const events: StreamEvent[] = [];
        await assert.rejects(
          collect(client(t, url, { limits: { maxResponseBytes: 4096 } }).streamTask('x'), events),
          (error) => error instanceof TransportLimitError && error.kind === 'response' && error.limit === 4096,
        );
        assert.ok(events.length > 1 && events.length < 40, `some events came through first (${events.length})`);
      });
    }

    test('a peer flipping between submitted and working: the task was submitted already, so only working and the end are news', async (t) => {
      const flips = ['SUBMITTED', 'WORKING', 'SUBMITTED', 'WORKING', 'SUBMITTED'].map((state) => ({
        kind: 'result' as const,
        value: update({ state: `TASK_STATE_${state}` }),
      }));
      const url = await scriptedPeer(t, {
        frames: [
          { kind: 'result', value: WORKING_TASK },
          ...flips,
          { kind: 'result', value: update({ state: 'TASK_STATE_COMPLETED' }) },
        ],
      });
      const events: StreamEvent[] = [];
      await collect(client(t, url).streamTask('x'), events);
      assert.deepEqual(
        events.map((event) => (event.type === 'task_status' ? `status ${event.state}` : event.type)),
        ['status working', 'task_completed'],
      );
      const history = (events.at(-1) as { task: { metadata: { state_history: { state: string }[] } } }).task.metadata
        .state_history;
      assert.deepEqual(
        history.map((entry) => entry.state),
        ['working', 'completed'],
      );
    });

    test('a later task event brings its new messages and artifacts as their own events', async (t) => {
      const later = {
        task: {
          ...WORKING_TASK.task,
          history: [padded(1)],
          artifacts: [{ artifactId: 'late', parts: [{ text: 'late' }] }],
        },
      };
      const url = await scriptedPeer(t, {
        frames: [
          { kind: 'result', value: WORKING_TASK },
          { kind: 'result', value: later },
          { kind: 'result', value: later },
          { kind: 'result', value: update({ state: 'TASK_STATE_COMPLETED' }) },
        ],
      });
      const events: StreamEvent[] = [];
      await collect(client(t, url).streamTask('x'), events);
      assert.deepEqual(
        events.map((event) => event.type),
        ['task_status', 'task_message', 'task_artifact', 'task_artifact', 'task_completed'],
      );
      const task = (events.at(-1) as { task: { messages: { id: string }[]; artifacts: { id: string }[] } }).task;
      assert.deepEqual(task.messages.map((message) => message.id).slice(-1), ['m-1']);
      assert.deepEqual(
        task.artifacts.map((artifact) => artifact.id),
        ['late'],
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
