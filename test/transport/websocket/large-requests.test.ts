// The websocket client sends a request message of 1 MiB or more as fragments of at most
// REQUEST_FRAGMENT_BYTES (a ws server without bufferutil unmasks each frame in JavaScript, all
// of it when its last byte arrives); a smaller one as one frame. Read off the TCP stream of a
// real ws server, which also reassembles the message.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import type { IncomingMessage } from 'node:http';
import { AgentClient } from '../../../src/client/agent-client.js';
import { LARGE_PAYLOAD_BYTES } from '../../../src/core/large-payload-turns.js';
import { REQUEST_FRAGMENT_BYTES } from '../../../src/transport/websocket/codec.js';
import { rawWsServer, reply } from '../../support/websocket-peers.js';

interface FrameHead {
  readonly fin: boolean;
  readonly opcode: number;
  readonly length: number;
}

/** The heads of the frames a client sends on `socket`, read beside ws from the same bytes. */
function frameHeads(socket: Socket): FrameHead[] {
  const heads: FrameHead[] = [];
  let pending = Buffer.alloc(0);
  let skip = 0;
  socket.on('data', (chunk: Buffer) => {
    const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    let at = 0;
    for (;;) {
      const skipped = Math.min(skip, data.length - at);
      skip -= skipped;
      at += skipped;
      if (skip > 0 || data.length - at < 2) break;
      const first = data[at]!;
      const second = data[at + 1]!;
      let length = second & 0x7f;
      let head = 2;
      if (length === 126) {
        if (data.length - at < 4) break;
        length = data.readUInt16BE(at + 2);
        head = 4;
      } else if (length === 127) {
        if (data.length - at < 10) break;
        length = Number(data.readBigUInt64BE(at + 2));
        head = 10;
      }
      if (second & 0x80) head += 4;
      if (data.length - at < head) break;
      heads.push({ fin: (first & 0x80) !== 0, opcode: first & 0x0f, length });
      at += head;
      skip = length;
    }
    pending = Buffer.from(data.subarray(at));
  });
  return heads;
}

test('websocket client: a large request goes as 1 MiB fragments of one text message, a small one as one frame', async (t) => {
  const heads: FrameHead[][] = [];
  const server = await rawWsServer(t, (socket, frame) => reply(socket, frame.json.id, frame.json.data));
  server.server.on('connection', (_socket: unknown, req: IncomingMessage) => heads.push(frameHeads(req.socket as Socket)));
  const client = new AgentClient(server.url, { transport: 'websocket' });
  t.after(() => client.close());
  const send = (text: string) =>
    client.sendTask({ id: `t-${text.length}`, messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }] });
  // Data frames only: ping and pong (opcodes 8 and up) may come between them.
  const dataFrames = () => heads.flat().filter((head) => head.opcode < 8);

  const small = await send('small');
  assert.equal(small.messages?.[0]?.parts[0]?.content, 'small');
  assert.deepEqual(
    dataFrames().map(({ fin, opcode }) => ({ fin, opcode })),
    [{ fin: true, opcode: 1 }],
  );

  const text = 'é'.repeat(LARGE_PAYLOAD_BYTES + 12345);
  const large = await send(text);
  assert.equal(large.messages?.[0]?.parts[0]?.content === text, true, 'the message came back whole');
  const fragments = dataFrames().slice(1);
  assert.ok(fragments.length >= 3, `${fragments.length} frames`);
  assert.deepEqual(
    fragments.map(({ fin, opcode }) => ({ fin, opcode })),
    fragments.map((_, i) => ({ fin: i === fragments.length - 1, opcode: i === 0 ? 1 : 0 })),
  );
  for (const fragment of fragments) assert.ok(fragment.length <= REQUEST_FRAGMENT_BYTES);
});
