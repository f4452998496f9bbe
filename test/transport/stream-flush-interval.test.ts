// `stream_flush_interval` on the stream wires (sse, websocket): events that follow each other
// closer than the interval are held and written together. What a client reads must not change:
// the same frames in the same order, whatever the interval, and the last one never waits. The
// held streams use an interval of a minute, far longer than any test runs, so a frame that
// arrives at all arrived because it was flushed, never because the interval ran out.
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { RequestContext, StreamItem } from '../../src/transport/endpoint.js';
import { collect } from '../support/async.js';
import { client, gate, ops, serve, stream, table, unary } from '../support/transport-fixtures.js';
import { RawPeer } from '../support/websocket-peers.js';

const MINUTE = 60;
const EVENTS = 20;

/** A stream of EVENTS text chunks, each from a turn of its own, then the final status. */
async function* chunks(task: { id: string }): AsyncIterable<StreamItem> {
  for (let n = 0; n < EVENTS; n++) {
    await nextTurn();
    yield { result: { type: 'task_llm_stream', task_id: task.id, delta: `tok ${n} "é" \n`, final: false }, final: false };
  }
  yield { result: { type: 'task_completed', task_id: task.id, state: 'completed' }, final: true };
}

const WIRES = [
  ['sse', 'http://127.0.0.1:0'],
  ['websocket', 'ws://127.0.0.1:0'],
] as const;

for (const [name, listen] of WIRES) {
  describe(`stream_flush_interval over ${name}`, () => {
    it('holds nothing back from the reader: the same events in the same order, the last one at once', {
      timeout: 20_000,
    }, async (t) => {
      const read = async (interval: number) => {
        const server = await serve(t, name, listen, table(stream(ops.streamTask, chunks)), { streamFlushInterval: interval });
        const transport = await client(t, name, server.url);
        return collect(transport.stream(ops.streamTask, { id: 't' }) as AsyncIterable<unknown>);
      };
      const eachTurn = await read(0);
      const held = await read(MINUTE);
      assert.equal(eachTurn.length, EVENTS + 1);
      assert.deepEqual(held, eachTurn);
      assert.deepEqual(
        held.map((event) => (event as { delta?: string }).delta ?? (event as { type: string }).type),
        [...Array.from({ length: EVENTS }, (_, n) => `tok ${n} "é" \n`), 'task_completed'],
      );
    });
  });
}

describe('stream_flush_interval on a websocket connection', () => {
  it('a unary answer is not held behind a stream, and the stream frames held before it go first', {
    timeout: 20_000,
  }, async (t) => {
    const proceed = gate();
    const endpoints = table(
      unary(ops.sendTask, (task: { id: string }) => {
        proceed.open();
        return { id: task.id, state: 'completed' };
      }),
      stream(ops.streamTask, async function* (task: { id: string }, _context: RequestContext) {
        yield { result: { type: 'task_status', task_id: task.id, n: 1 }, final: false };
        await nextTurn();
        // Within the interval of the first: held.
        yield { result: { type: 'task_status', task_id: task.id, n: 2 }, final: false };
        await proceed.promise;
        yield { result: { type: 'task_completed', task_id: task.id, n: 3 }, final: true };
      }),
    );
    const server = await serve(t, 'websocket', 'ws://127.0.0.1:0', endpoints, { streamFlushInterval: MINUTE });
    const peer = await RawPeer.open(server.url);
    t.after(() => peer.close());
    const request = (id: string, path: string) => ({ id, method: 'POST', path, data: { id }, params: {}, idempotency_key: null });
    peer.send(request('s', '/tasks/stream'));
    assert.equal((await peer.next()).json.result.n, 1, 'the first frame after a quiet spell is not held');
    peer.send(request('u', '/tasks/'));
    const rest: Array<{ id: string; result: { n?: number; state?: string } }> = [];
    while (rest.filter((frame) => frame.id === 'u' || (frame.id === 's' && frame.result.n === 3)).length < 2) {
      rest.push((await peer.next()).json);
    }
    const order = rest.map((frame) => `${frame.id}:${frame.result.n ?? frame.result.state}`);
    assert.ok(order.indexOf('s:2') >= 0 && order.indexOf('s:2') < order.indexOf('u:completed'), order.join(' '));
    assert.deepEqual(
      order.filter((entry) => entry.startsWith('s:')),
      ['s:2', 's:3'],
    );
  });
});
