// The grpc server's receive limit: `max_request_bytes` plus the envelope room, measured after
// decompression, checked before a message is decoded, on every encoding (pass-through JSON,
// `+json`, binary protobuf). The server runs in a child process with a capped heap, so a
// message that would exhaust its memory fails the test with a dead connection instead of
// taking the test runner down; a server that survived is asked one more call.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { create, fromBinary, fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { InvokeRequestSchema, InvokeResponseSchema } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { ENVELOPE_ROOM as ENVELOPE_ROOM_BYTES } from '../../../src/transport/envelope.js';
import type { TransportOptions } from '../../../src/transport/transport.js';
import { INVOKE_PATH, passThroughService, statusOf, target, unaryCall } from '../../support/grpc-peers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/limits-server.ts', import.meta.url));

interface ChildServer {
  readonly url: string;
  /** Whatever the child wrote to stderr (why it died, if it did). */
  stderr(): string;
}

/** A grpc server in a child process whose heap is capped at `heapMb`; stopped when the test ends. */
async function childServer(
  t: { after(fn: () => unknown): void },
  options: TransportOptions,
  heapMb: number,
): Promise<ChildServer> {
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, '--import', 'tsx', FIXTURE, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(async () => {
    child.stdin.end();
    await exited;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening: ${stderr}`)));
  });
  return { url, stderr: () => stderr };
}

function session(t: { after(fn: () => unknown): void }, url: string): ClientHttp2Session {
  const client = http2Connect(`http://${new URL(url).host}`);
  client.on('error', () => undefined);
  t.after(() => client.close());
  return client;
}

interface Answer {
  /** grpc-status from the trailers, or a trailers-only answer. */
  readonly status: number;
  readonly contentType: string;
  /** The answer messages, unparsed. */
  readonly messages: Buffer[];
}

/** One call whose body is `body` exactly. */
function call(
  client: ClientHttp2Session,
  contentType: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = client.request({
      ':method': 'POST',
      ':path': INVOKE_PATH,
      'content-type': contentType,
      te: 'trailers',
      ...headers,
    });
    let head: Record<string, unknown> = {};
    let status: number | null = null;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      head = h;
      if (h['grpc-status'] !== undefined) status = Number(h['grpc-status']);
    });
    stream.on('trailers', (trailers) => (status = Number(trailers['grpc-status'])));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('close', () => {
      if (status === null) return reject(new Error(`no grpc-status (stream closed with code ${stream.rstCode})`));
      resolve({ status, contentType: String(head['content-type']), messages: framesOf(Buffer.concat(chunks)) });
    });
    stream.end(body);
  });
}

function framesOf(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at + 5 <= body.length; ) {
    const length = body.readUInt32BE(at + 1);
    out.push(body.subarray(at + 5, at + 5 + length));
    at += 5 + length;
  }
  return out;
}

function frame(message: Buffer, compressed = false): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

const gzipFrame = (message: Buffer) => frame(gzipSync(message), true);
const GZIP = { 'grpc-encoding': 'gzip' };

/** A task whose JSON text is exactly `bytes` long. */
function taskOf(bytes: number): { id: string; metadata: { pad: string } } {
  const empty = Buffer.byteLength(JSON.stringify({ id: 'x', metadata: { pad: '' } }));
  return { id: 'x', metadata: { pad: 'a'.repeat(bytes - empty) } };
}

/** The pass-through JSON envelope of POST /tasks/ whose message is exactly `bytes` long. */
function envelopeOf(bytes: number, id = 'sized'): Buffer {
  const shell = Buffer.byteLength(JSON.stringify({ id, method: 'POST', path: '/tasks/', data: taskOf(100) })) - 100;
  return Buffer.from(JSON.stringify({ id, method: 'POST', path: '/tasks/', data: taskOf(bytes - shell) }));
}

/** A binary InvokeRequest of POST /tasks/ whose message is exactly `bytes` long. */
function binaryOf(bytes: number): Buffer {
  const encode = (pad: number) =>
    toBinary(
      InvokeRequestSchema,
      create(InvokeRequestSchema, {
        id: 'bin',
        method: 'POST',
        path: '/tasks/',
        data: fromJson(ValueSchema, taskOf(pad) as unknown as JsonValue),
      }),
    );
  let pad = bytes;
  // The length prefixes are varints: step until the size lands exactly.
  for (let size = encode(pad).length; size !== bytes; size = encode(pad).length) pad += bytes - size;
  return Buffer.from(encode(pad));
}

const UNLIMITED = { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 };

/** A grpc-js client sending the envelopes' JSON text, with no message size limit of its own. */
function jsonClient(t: { after(fn: () => unknown): void }, url: string): any {
  const Client = grpc.makeGenericClientConstructor(passThroughService as any, 'SvcTransport');
  const client = new Client(target(url), grpc.credentials.createInsecure(), UNLIMITED) as any;
  t.after(() => client.close());
  return client;
}

/** A grpc-js client whose Invoke messages are the given bytes both ways, unlimited in size. */
function rawJsonClient(t: { after(fn: () => unknown): void }, url: string): any {
  const identity = (bytes: Buffer) => bytes;
  const method = {
    ...passThroughService.Invoke,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  };
  const Client = grpc.makeGenericClientConstructor({ Invoke: method } as any, 'SvcTransport');
  const client = new Client(target(url), grpc.credentials.createInsecure(), UNLIMITED) as any;
  t.after(() => client.close());
  return client;
}

/** The server is still there and serving. */
async function stillServes(t: { after(fn: () => unknown): void }, server: ChildServer): Promise<void> {
  const answer = await unaryCall(jsonClient(t, server.url), 'Invoke', {
    id: 'after',
    method: 'POST',
    path: '/tasks/',
    data: { id: 'a' },
  });
  assert.equal(answer.ok, true, server.stderr());
  assert.equal(answer.result.state, 'completed');
}

describe('grpc server receive limit', () => {
  const maxRequestBytes = 64 * 1024;
  const limit = maxRequestBytes + ENVELOPE_ROOM_BYTES;

  it('is max_request_bytes plus the envelope room, on the message as sent or once decompressed', async (t) => {
    const server = await childServer(t, { limits: { maxRequestBytes } }, 256);
    const client = session(t, server.url);
    // [what, content type, body, extra headers, grpc-status, the ok:false code if any]
    const cases: Array<[string, string, Buffer, Record<string, string>, number, string | null]> = [
      ['message at the limit', 'application/grpc', frame(envelopeOf(limit)), {}, grpc.status.OK, 'payload_too_large'],
      ['message one byte over', 'application/grpc', frame(envelopeOf(limit + 1)), {}, grpc.status.RESOURCE_EXHAUSTED, null],
      [
        'gzip, at the limit once inflated',
        'application/grpc',
        gzipFrame(envelopeOf(limit)),
        GZIP,
        grpc.status.OK,
        'payload_too_large',
      ],
      [
        'gzip, one byte over once inflated',
        'application/grpc',
        gzipFrame(envelopeOf(limit + 1)),
        GZIP,
        grpc.status.RESOURCE_EXHAUSTED,
        null,
      ],
      ['+json, one byte over', 'application/grpc+json', frame(envelopeOf(limit + 1)), {}, grpc.status.RESOURCE_EXHAUSTED, null],
      [
        '+json gzip, one byte over once inflated',
        'application/grpc+json',
        gzipFrame(envelopeOf(limit + 1)),
        GZIP,
        grpc.status.RESOURCE_EXHAUSTED,
        null,
      ],
      ['binary, at the limit', 'application/grpc', frame(binaryOf(limit)), {}, grpc.status.OK, 'payload_too_large'],
      ['binary, one byte over', 'application/grpc', frame(binaryOf(limit + 1)), {}, grpc.status.RESOURCE_EXHAUSTED, null],
      [
        'binary gzip, one byte over once inflated',
        'application/grpc',
        gzipFrame(binaryOf(limit + 1)),
        GZIP,
        grpc.status.RESOURCE_EXHAUSTED,
        null,
      ],
      [
        'flagged gzip but not gzip',
        'application/grpc',
        frame(Buffer.from('{"id":"x"}'), true),
        GZIP,
        // What gRPC's status code table prescribes for a message that does not decompress.
        grpc.status.INTERNAL,
        null,
      ],
    ];
    for (const [what, contentType, body, headers, status, code] of cases) {
      const answer = await call(client, contentType, body, headers);
      assert.equal(answer.status, status, what);
      if (code === null) continue;
      const bytes = answer.messages[0]!;
      const envelope = what.startsWith('binary') ? fromBinary(InvokeResponseSchema, bytes) : JSON.parse(bytes.toString());
      assert.equal(envelope.ok, false, what);
      assert.equal((envelope.error as { code?: unknown }).code, code, what);
    }
    await stillServes(t, server);
  });

  it('a payload of exactly max_request_bytes is served, one byte more is payload_too_large; compressed or not', async (t) => {
    const server = await childServer(t, { limits: { maxRequestBytes } }, 256);
    const client = session(t, server.url);
    const envelope = (bytes: number) =>
      Buffer.from(JSON.stringify({ id: 'p', method: 'POST', path: '/tasks/', data: taskOf(bytes) }));
    for (const [label, wrap, headers] of [
      ['plain', frame, {}],
      ['gzip', gzipFrame, GZIP],
    ] as const) {
      for (const contentType of ['application/grpc', 'application/grpc+json']) {
        const fits = await call(client, contentType, wrap(envelope(maxRequestBytes)), headers);
        assert.equal(fits.status, grpc.status.OK, `${label} ${contentType}`);
        // A JSON message is answered in JSON, whatever gRPC content type it came under.
        assert.equal(fits.contentType, 'application/grpc+json');
        const served = JSON.parse(fits.messages[0]!.toString());
        assert.equal(served.ok, true, `${label} ${contentType}`);
        assert.equal(served.result.metadata.pad.length, taskOf(maxRequestBytes).metadata.pad.length);
        const over = await call(client, contentType, wrap(envelope(maxRequestBytes + 1)), headers);
        assert.equal(JSON.parse(over.messages[0]!.toString()).error.code, 'payload_too_large', `${label} ${contentType}`);
      }
    }
  });

  it('a 40 MB message is refused RESOURCE_EXHAUSTED on its length, and other calls are served meanwhile', async (t) => {
    const server = await childServer(t, {}, 256);
    const big = Buffer.from(
      JSON.stringify({ id: 'big', method: 'POST', path: '/tasks/', data: { id: 'b', metadata: { pad: 'x'.repeat(40e6) } } }),
    );
    const refused = statusOf(unaryCall(rawJsonClient(t, server.url), 'Invoke', big));
    // Another connection, while the big message is still arriving or being refused.
    await stillServes(t, server);
    assert.equal((await refused).code, grpc.status.RESOURCE_EXHAUSTED);
    await stillServes(t, server);
  });

  it('a gzip bomb (kilobytes that inflate to far more than the limit) is refused and the server keeps serving', async (t) => {
    // Default limits (16 MiB); the bomb inflates to 96 MiB of `0,` inside a valid envelope.
    const server = await childServer(t, {}, 192);
    const client = session(t, server.url);
    const head = Buffer.from('{"id":"bomb","method":"POST","path":"/tasks/","data":{"id":"b","metadata":{"n":[');
    const zeros = Buffer.alloc(96 * 1024 * 1024, '0,');
    const bomb = gzipSync(Buffer.concat([head, zeros, Buffer.from('0]}}}')]));
    assert.ok(bomb.length < 256 * 1024);
    for (const contentType of ['application/grpc+json', 'application/grpc']) {
      const answer = await call(client, contentType, frame(bomb, true), GZIP);
      assert.equal(answer.status, grpc.status.RESOURCE_EXHAUSTED, `${contentType}: ${server.stderr()}`);
    }
    await stillServes(t, server);
  });

  it('four concurrent tasks near 16 MiB, each within every limit, are all answered', async (t) => {
    // A heap well under what four such tasks cost as google.protobuf.Value trees.
    const server = await childServer(t, {}, 512);
    const client = rawJsonClient(t, server.url);
    const count = 7 * 1024 * 1024;
    // The JSON text of a task holding `count` one-digit numbers (about 14 MiB), built as text.
    const envelope = (n: number) =>
      Buffer.from(
        `{"id":"r${n}","method":"POST","path":"/tasks/","data":{"id":"big-${n}","metadata":{"numbers":[${`${n},`.repeat(count - 1)}${n}]}}}`,
      );
    const answers = await Promise.all([0, 1, 2, 3].map((n) => unaryCall(client, 'Invoke', envelope(n))));
    for (const [n, bytes] of answers.entries()) {
      const answer = JSON.parse(bytes.toString());
      assert.equal(answer.ok, true, server.stderr());
      assert.equal(answer.result.id, `big-${n}`);
      assert.equal(answer.result.state, 'completed');
      assert.equal(answer.result.metadata.numbers.length, count);
    }
    await stillServes(t, server);
  });
});
