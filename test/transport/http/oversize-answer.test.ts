// The 413 for an oversize upload reaches a client that is still uploading: the server answers,
// stops reading, and closes only after a moment of dropping input. Closing at once would reset
// the connection under a client still writing, which then fails its write and never reads the
// answer waiting for it. Repeated, since how much of the upload is in flight varies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { ops, serve, table, unary } from '../../support/transport-fixtures.js';
import { bodyOf, openSocket, portOf, statuses } from './raw-peer.js';

const LIMIT = 1024;
const TRIES = 20;

/**
 * Sends the request head and the whole body, as a simple client does, and only then reads the
 * answer (the socket is paused meanwhile). Resolves with what was read and whether a write
 * failed because the server reset the connection, which such a client reports instead of
 * the answer.
 */
function uploadThenRead(socket: Socket, head: string, body: readonly Buffer[]): Promise<{ text: string; reset: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    let reset = false;
    socket.pause();
    socket.on('error', () => (reset = true));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve({ text, reset }));
    socket.write(head);
    const last = body.length - 1;
    body.forEach((piece, i) => socket.write(piece, i === last ? () => socket.resume() : undefined));
  });
}

const PIECE = Buffer.alloc(64 * 1024, 'x');
const PIECES = 256;
const chunked = Buffer.concat([Buffer.from(`${PIECE.length.toString(16)}\r\n`), PIECE, Buffer.from('\r\n')]);

for (const [label, head, body] of [
  ['a declared Content-Length over the limit', `content-length: ${PIECE.length * PIECES}\r\n`, Array(PIECES).fill(PIECE)],
  [
    'a chunked body that passes the limit mid-way',
    'transfer-encoding: chunked\r\n',
    [...Array(PIECES).fill(chunked), Buffer.from('0\r\n\r\n')],
  ],
] as const) {
  test(`http server: ${label} gets its 413, without a reset, to a client that uploads it all before reading`, {
    timeout: 60_000,
  }, async (t) => {
    const calls: string[] = [];
    const transport = await serve(
      t,
      'http',
      'http://127.0.0.1:0',
      table(unary(ops.sendTask, (task) => (calls.push(task.id), task))),
      { limits: { maxRequestBytes: LIMIT } },
    );
    const port = portOf(transport.url);
    for (let i = 0; i < TRIES; i++) {
      const socket = await openSocket(port);
      const { text, reset } = await uploadThenRead(
        socket,
        `POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${head}\r\n`,
        body,
      );
      assert.equal(reset, false, `try ${i + 1}: the connection was reset under the upload`);
      assert.deepEqual(statuses(text), [413], `try ${i + 1}: ${JSON.stringify(text)}`);
      assert.match(text, /connection: close\r\n/i);
      assert.equal(bodyOf(text).error.code, 'payload_too_large');
    }
    assert.deepEqual(calls, []);
  });
}
