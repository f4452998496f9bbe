// The parley sse client against peers that are not parley: plain node:http servers that write
// event streams by hand (some well-formed in ways parley's own server never uses, some broken
// or hostile), and one that frames its events with @a2a-js/sdk's SSE formatter.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { formatSSEEvent } from '@a2a-js/sdk';
import { agentOperations } from '../../../generated/operations/agent.js';
import { TransportLimitError, TransportProtocolError, TransportRemoteError } from '../../../src/transport/errors.js';
import { createTransport } from '../../../src/transport/factory.js';
import type { Transport } from '../../../src/transport/transport.js';
import { ENVELOPE_ROOM } from '../../../src/transport/envelope.js';
import { nextTurn } from '../../support/sse-peers.js';

type Behaviour = (req: IncomingMessage, res: ServerResponse, requestId: string) => void | Promise<void>;

const MAX_EVENT_BYTES = 4096;
const behaviours = new Map<string, Behaviour>();

function frame(requestId: string | null, result: unknown, final: boolean): string {
  return `data: ${JSON.stringify({ jsonrpc: '2.0', id: requestId, ok: true, result, final })}\n\n`;
}

function eventStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
}

/** Writes `text` one byte per socket write, waiting for each to be flushed. */
async function dribble(res: ServerResponse, text: string): Promise<void> {
  for (const byte of Buffer.from(text)) {
    await new Promise<void>((resolve, reject) => res.write(Buffer.of(byte), (error) => (error ? reject(error) : resolve())));
  }
}

describe('sse client against hand-written servers', { timeout: 20_000 }, () => {
  let peer: Server;
  let client: Transport;
  let url: string;

  before(async () => {
    peer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const task = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
        const behaviour = behaviours.get(task.id);
        if (!behaviour) {
          res.writeHead(500).end();
          return;
        }
        Promise.resolve(behaviour(req, res, String(req.headers['x-svc-request-id']))).catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(peer.address() as { port: number }).port}`;
    client = await createTransport('sse', url, { limits: { maxEventBytes: MAX_EVENT_BYTES } });
  });

  after(async () => {
    await client.stop();
    peer.closeAllConnections();
    await new Promise((resolve) => peer.close(resolve));
  });

  async function run(id: string, behaviour: Behaviour): Promise<{ events: unknown[]; error: unknown }> {
    behaviours.set(id, behaviour);
    const events: unknown[] = [];
    try {
      for await (const event of client.stream(agentOperations.streamTask, { id })) events.push(event);
      return { events, error: null };
    } catch (error) {
      return { events, error };
    }
  }

  it('sends the request id and asks for an event stream', async () => {
    let seen: IncomingMessage | null = null;
    const { events, error } = await run('headers', (req, res, requestId) => {
      seen = req;
      eventStream(res);
      res.end(frame(requestId, { ok: 1 }, true));
    });
    assert.equal(error, null);
    assert.deepEqual(events, [{ ok: 1 }]);
    const req = seen as unknown as IncomingMessage;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/tasks/stream');
    assert.equal(req.headers.accept, 'text/event-stream');
    assert.match(String(req.headers['x-svc-request-id']), /\S/);
    assert.equal(req.headers['idempotency-key'], undefined, 'streams carry no idempotency key');
  });

  it('reads frames written one byte at a time, with CRLF and CR line ends, comments, other fields and multi-line data', async () => {
    const { events, error } = await run('odd-but-valid', async (_req, res, requestId) => {
      eventStream(res);
      const json = JSON.stringify({ jsonrpc: '2.0', id: requestId, ok: true, result: { text: 'é✓😀' }, final: false });
      const cut = json.indexOf(',"ok"');
      await dribble(res, `: hello\r\nevent: message\r\nid: 1\r\ndata: ${json.slice(0, cut)}\r\ndata:${json.slice(cut)}\r\n\r\n`);
      await dribble(res, `retry: 10\rdata: ${JSON.stringify({ id: requestId, ok: true, result: 2, final: false })}\r\r`);
      res.end(`: keepalive\n\n${frame(null, 3, true)}`);
    });
    assert.equal(error, null);
    // The line break between the two data lines lands between two JSON tokens, where JSON allows it.
    assert.deepEqual(events, [{ text: 'é✓😀' }, 2, 3]);
  });

  it('reads frames made by an independent formatter (@a2a-js/sdk formatSSEEvent)', async () => {
    const { events, error } = await run('a2a-formatted', (_req, res, requestId) => {
      eventStream(res);
      res.write(formatSSEEvent({ jsonrpc: '2.0', id: requestId, ok: true, result: { step: 1 }, final: false }));
      res.end(formatSSEEvent({ jsonrpc: '2.0', id: requestId, ok: true, result: { step: 2 }, final: true }));
    });
    assert.equal(error, null);
    assert.deepEqual(events, [{ step: 1 }, { step: 2 }]);
  });

  it('stops at the final frame even if the server sends more', async () => {
    const { events, error } = await run('after-final', (_req, res, requestId) => {
      eventStream(res);
      res.write(frame(requestId, 1, true));
      res.end(frame(requestId, 2, false));
    });
    assert.equal(error, null);
    assert.deepEqual(events, [1]);
  });

  it('reports a stream that ends without a final frame as a protocol error', async () => {
    const { events, error } = await run('no-final', (_req, res, requestId) => {
      eventStream(res);
      res.end(frame(requestId, 1, false));
    });
    assert.deepEqual(events, [1]);
    assert.ok(error instanceof TransportProtocolError, String(error));
    assert.equal(error.retryable, false);
  });

  it('reports a connection dropped mid-stream as a protocol error', async () => {
    const { events, error } = await run('dropped', (_req, res, requestId) => {
      eventStream(res);
      res.write(frame(requestId, 1, false), () => res.destroy());
    });
    assert.deepEqual(events, [1]);
    assert.ok(error instanceof TransportProtocolError, String(error));
  });

  it('refuses a frame that is not JSON, without retrying', async () => {
    const { error } = await run('not-json', (_req, res) => {
      eventStream(res);
      res.end('data: {"ok": tru\n\n');
    });
    assert.ok(error instanceof TransportProtocolError, String(error));
    assert.equal(error.retryable, false);
  });

  it('refuses an envelope without a boolean ok', async () => {
    for (const data of ['{"id":null,"result":1,"final":true}', '{"ok":"true","final":true}', '[true]', '"ok"']) {
      const { error } = await run(`bad-envelope-${data}`, (_req, res) => {
        eventStream(res);
        res.end(`data: ${data}\n\n`);
      });
      assert.ok(error instanceof TransportProtocolError, `${data}: ${String(error)}`);
      assert.equal(error.retryable, false);
    }
  });

  it('refuses an envelope answering another request id', async () => {
    const { error } = await run('wrong-id', (_req, res) => {
      eventStream(res);
      res.end(frame('someone-else', 1, true));
    });
    assert.ok(error instanceof TransportProtocolError, String(error));
  });

  it('turns an ok false frame into a remote error carrying the error object', async () => {
    const { events, error } = await run('remote-failure', (_req, res, requestId) => {
      eventStream(res);
      res.write(frame(requestId, 1, false));
      const failure = {
        code: 'unavailable',
        message: 'engine overloaded',
        status: 503,
        request_id: requestId,
        details: { retry_after: 1 },
      };
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: requestId, ok: false, error: failure, final: true })}\n\n`);
    });
    assert.deepEqual(events, [1]);
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.code, 'unavailable');
    assert.equal(error.statusCode, 503);
    assert.deepEqual(error.details, { retry_after: 1 });
  });

  it('refuses a 200 answer that is not an event stream', async () => {
    const { error } = await run('json-instead', (_req, res, requestId) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: requestId, ok: true, result: 1, final: true }));
    });
    assert.ok(error instanceof TransportProtocolError, String(error));
    assert.equal(error.retryable, false);
    assert.equal(error.statusCode, 200);
  });

  it('reads a non-2xx answer as the remote error it describes', async () => {
    const { error } = await run('busy', (_req, res, requestId) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'unavailable', message: 'try later', status: 503, request_id: requestId } }));
    });
    assert.ok(error instanceof TransportRemoteError, String(error));
    assert.equal(error.statusCode, 503);
    assert.equal(error.code, 'unavailable');
    assert.equal(error.retryable, true);
    const plain = await run('teapot', (_req, res) => {
      res.writeHead(418).end('short and stout');
    });
    assert.ok(plain.error instanceof TransportRemoteError);
    assert.equal(plain.error.statusCode, 418);
  });

  it('holds each event result to max_event_bytes, even when its frame fits the reader', async () => {
    const { error } = await run('result-too-big', (_req, res, requestId) => {
      eventStream(res);
      res.end(frame(requestId, 'x'.repeat(MAX_EVENT_BYTES + 10), true));
    });
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.equal(error.limit, MAX_EVENT_BYTES);
  });

  it('stops reading a frame that grows past max_event_bytes plus the envelope allowance', async () => {
    let written = 0;
    const { events, error } = await run('endless', (_req, res, requestId) => {
      eventStream(res);
      res.write(frame(requestId, 1, false));
      res.write('data: "');
      // An event that never ends: keep writing while the client keeps the connection open.
      const chunk = 'y'.repeat(16 * 1024);
      const pump = () => {
        while (!res.destroyed && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    assert.deepEqual(events, [1]);
    assert.ok(error instanceof TransportLimitError, String(error));
    assert.equal(error.limit, MAX_EVENT_BYTES + ENVELOPE_ROOM);
    assert.ok(written < 64 * 1024 * 1024, 'the client hung up long before the server ran out of data');
  });

  it('reuses one keep-alive connection for streams that ended with their final frame', async () => {
    let connections = 0;
    const count = () => connections++;
    peer.on('connection', count);
    const fresh = await createTransport('sse', url);
    try {
      behaviours.set('reuse', (_req, res, requestId) => {
        eventStream(res);
        res.write(frame(requestId, 1, false));
        res.end(frame(requestId, 2, true));
      });
      for (let n = 0; n < 3; n++) {
        const events: unknown[] = [];
        for await (const event of fresh.stream(agentOperations.streamTask, { id: 'reuse' })) events.push(event);
        assert.deepEqual(events, [1, 2]);
        // The socket goes back to the pool once the response has ended.
        await nextTurn();
        await nextTurn();
      }
      assert.equal(connections, 1);
    } finally {
      peer.off('connection', count);
      await fresh.stop();
    }
  });

  it('leaves the transport usable after every failure above', async () => {
    const { events, error } = await run('healthy', (_req, res, requestId) => {
      eventStream(res);
      res.end(frame(requestId, 'fine', true));
    });
    assert.equal(error, null);
    assert.deepEqual(events, ['fine']);
    const metrics = client.health().metrics;
    assert.equal(metrics.active_streams, 0);
    assert.ok(metrics.streams_failed > 0);
  });
});
