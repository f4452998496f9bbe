// The event-stream reader on its own: frames split anywhere, every line-end style, the fields
// it ignores, and the byte cap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TransportLimitError, TransportProtocolError } from '../../../src/transport/errors.js';
import { decodeEnvelope } from '../../../src/transport/sse/client.js';
import { SseParser, type SseFrame } from '../../../src/transport/sse/codec.js';

function parseChunks(chunks: readonly (string | Buffer)[], cap = 1 << 20): { frames: string[]; unfinished: boolean } {
  const parser = new SseParser(cap);
  const frames: SseFrame[] = [];
  for (const chunk of chunks) frames.push(...parser.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  for (const frame of frames) assert.equal(frame.bytes, Buffer.byteLength(frame.data));
  return { frames: frames.map((frame) => frame.data), unfinished: parser.end() };
}

/** Every way of cutting `bytes` in two, and one byte per chunk. */
function splits(bytes: Buffer): Buffer[][] {
  const out: Buffer[][] = [];
  for (let at = 0; at <= bytes.length; at++) out.push([bytes.subarray(0, at), bytes.subarray(at)]);
  out.push([...bytes].map((byte) => Buffer.of(byte)));
  return out;
}

describe('SseParser', () => {
  const stream = Buffer.from(
    '\ufeff: comment\r\n' +
      'event: message\r\nid: 7\r\ndata: {"a":1}\r\n\r\n' +
      'data: line one\ndata:line two\ndata\n\n' +
      'retry: 5\rdata: €uro ✓ 😀\r\r' +
      '\n\n\n' +
      'data: last\n\n',
  );
  const expected = ['{"a":1}', 'line one\nline two\n', '€uro ✓ 😀', 'last'];

  it('reads a stream in one piece', () => {
    assert.deepEqual(parseChunks([stream]), { frames: expected, unfinished: false });
  });

  it('reads the same frames however the bytes are split (including CR|LF and inside a character)', () => {
    for (const chunks of splits(stream)) {
      assert.deepEqual(parseChunks(chunks).frames, expected, `split ${chunks.map((c) => c.length).join('+')}`);
    }
  });

  it('does not let a CR at the end of a chunk and the LF opening the next make an extra blank line', () => {
    assert.deepEqual(parseChunks(['data: a\r', '\ndata: b\r', '\n\r', '\n']).frames, ['a\nb']);
  });

  it('takes the single space after the colon off, and only that one', () => {
    assert.deepEqual(parseChunks(['data:  two spaces\n\ndata:none\n\n']).frames, [' two spaces', 'none']);
  });

  it('dispatches nothing for blank lines, comments and frames without data', () => {
    assert.deepEqual(parseChunks(['\n\n: keepalive\n\nevent: ping\nid: 3\n\n']), { frames: [], unfinished: false });
  });

  it('drops a frame the stream did not finish, and says so', () => {
    assert.deepEqual(parseChunks(['data: done\n\ndata: half']), { frames: ['done'], unfinished: true });
    assert.deepEqual(parseChunks(['data: done\n\ndata: whole line\n']), { frames: ['done'], unfinished: true });
  });

  it('refuses a line that grows past the cap before it ends', () => {
    const parser = new SseParser(100, { url: 'http://peer', requestId: 'r1' });
    assert.deepEqual(parser.push(Buffer.from(`data: ${'x'.repeat(50)}`)), []);
    assert.throws(
      () => parser.push(Buffer.from('y'.repeat(50))),
      (error: unknown) => {
        assert.ok(error instanceof TransportLimitError);
        assert.equal(error.limit, 100);
        assert.equal(error.size, 106);
        assert.equal(error.requestId, 'r1');
        assert.equal(error.url, 'http://peer');
        return true;
      },
    );
  });

  it('refuses a frame whose data lines together pass the cap', () => {
    const parser = new SseParser(100);
    const line = `data: ${'z'.repeat(40)}\n`;
    assert.deepEqual(parser.push(Buffer.from(line + line)), []);
    assert.throws(() => parser.push(Buffer.from(line)), TransportLimitError);
  });

  it('lets any number of frames through as long as each fits', () => {
    const parser = new SseParser(100);
    const frames: SseFrame[] = [];
    for (let n = 0; n < 1000; n++) frames.push(...parser.push(Buffer.from(`: keepalive\n\ndata: ${'k'.repeat(90)}\n\n`)));
    assert.equal(frames.length, 1000);
  });

  it('counts a frame that fills the cap exactly as within it', () => {
    const data = `data: ${'e'.repeat(94)}`;
    assert.equal(Buffer.byteLength(data), 100);
    assert.deepEqual(parseChunks([`${data}\n\n`], 100).frames, ['e'.repeat(94)]);
    assert.throws(() => parseChunks([`${data}e\n\n`], 100), TransportLimitError);
  });
});

describe('decodeEnvelope', () => {
  const call = { url: 'http://peer', requestId: 'r1' };

  it('reads the envelope fields and keeps the frame size', () => {
    assert.deepEqual(decodeEnvelope('{"jsonrpc":"2.0","id":"r1","ok":true,"result":{"x":1},"final":true}', 70, call), {
      id: 'r1',
      ok: true,
      result: { x: 1 },
      error: null,
      final: true,
      bytes: 70,
    });
    const failure = decodeEnvelope('{"id":null,"ok":false,"error":{"code":"internal"},"final":true}', 10, call);
    assert.equal(failure.id, null);
    assert.equal(failure.final, true);
    assert.deepEqual(failure.error, { code: 'internal' });
  });

  it('refuses a numeric id and a frame without final, as every wire does (envelope.test.ts has the full table)', () => {
    for (const data of ['{"id":5,"ok":true,"final":true}', '{"id":"r1","ok":true,"result":1}']) {
      assert.throws(() => decodeEnvelope(data, data.length, call), TransportProtocolError, data);
    }
  });

  it('refuses what is not a JSON envelope with a boolean ok', () => {
    for (const data of ['', 'nope', '{"ok":1}', 'null', '[{"ok":true}]', '{"result":1}']) {
      assert.throws(
        () => decodeEnvelope(data, data.length, call),
        (error: unknown) => error instanceof TransportProtocolError && error.retryable === false && error.requestId === 'r1',
        data,
      );
    }
  });
});
