// Shared pieces of the reliability suite: the server under test in a child process (restarted
// when a row killed it), the limits it runs with, payload builders (nested, sized, compressed),
// and one raw peer per protocol that sends exactly the bytes a row builds and reports the
// answer in one shape, so a row can say "refused with 400" once for every wire:
//   http, sse   node:http requests and raw net sockets (stalls, uploads the server cuts short)
//   websocket   a plain `ws` client, one connection per call, credentials on the upgrade
//   grpc        a raw node:http2 client framing ProtoJSON envelopes (gzip when asked)
// The normal task each row ends with goes through parley's own AgentClient.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fromBinary } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import WebSocket from 'ws';
import { ErrorInfoSchema } from '../../generated/proto/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../generated/proto/google/rpc/status_pb.js';
import type { Task } from '../../generated/types/index.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { AgentClient } from '../../src/client/agent-client.js';

export type ServedKind = 'http' | 'sse' | 'websocket' | 'grpc';
export const SERVED: readonly ServedKind[] = ['http', 'sse', 'websocket', 'grpc'];

/**
 * The one JSON nesting limit every transport applies to a request payload (the HTTP body, the
 * envelope's `data`). Depth counts containers: `{}` is 1 deep, `{"a":[]}` 2.
 */
export const NESTING_LIMIT = 32;

/** The suite's max_request_bytes: small, so oversize rows stay cheap. */
export const REQUEST_LIMIT = 64 * 1024;
/**
 * header_timeout and body_timeout of the server under test, in seconds: short, so the stall rows
 * stay quick, yet long enough that a healthy client on a loaded machine (load 20 on 2 cores)
 * gets its headers and body in (at 0.5 s a websocket handshake was refused with 408 there).
 */
const HEADER_TIMEOUT = 1.5;
const BODY_TIMEOUT = 1.5;
/** idempotency_cache_bytes of the server under test: room for a few answers of tasks near the limit. */
export const CACHE_BYTES = 1024 * 1024;
/** How long a row waits for the server to close a stalled connection before calling it a hang. */
export const STALL_GUARD_MS = 15_000;

/** API keys and the principal each one authenticates as. */
export const ALICE = 'key-alice-0001';
export const BOB = 'key-bob-0002';
const KEYS: Readonly<Record<string, string>> = { [ALICE]: 'alice', [BOB]: 'bob' };

const LISTEN: Readonly<Record<ServedKind, string>> = {
  http: 'http://127.0.0.1:0',
  sse: 'http://127.0.0.1:0',
  websocket: 'ws://127.0.0.1:0',
  grpc: 'grpc://127.0.0.1:0',
};

/**
 * The transports whose server under test also serves A2A 1.0 (`a2a: true`), for the A2A rows:
 * grpc's gRPC binding (rows.ts), http's HTTP+JSON (a2a-rest-rows.ts; its JSON-RPC rows are in
 * test/a2a/).
 */
const A2A_SERVED: readonly ServedKind[] = ['grpc', 'http'];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/serve.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

export interface ServerConfig {
  readonly transportOptions: Record<string, unknown>;
  readonly keys: Readonly<Record<string, string>>;
}

export const DEFAULT_CONFIG: ServerConfig = {
  transportOptions: {
    limits: { maxRequestBytes: REQUEST_LIMIT },
    headerTimeout: HEADER_TIMEOUT,
    bodyTimeout: BODY_TIMEOUT,
    idempotencyCacheBytes: CACHE_BYTES,
  },
  keys: KEYS,
};

// ------------------------------------------------------------------------- the child server

/** One running fixture server (test/reliability/fixtures/serve.ts). */
export class ChildServer {
  private out = '';
  private err = '';
  private lineWaiters: Array<() => void> = [];
  readonly exited: Promise<void>;

  private constructor(
    readonly kind: ServedKind,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.out += chunk;
      for (const waiter of this.lineWaiters.splice(0)) waiter();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.err += chunk));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void this.exited.then(() => {
      for (const waiter of this.lineWaiters.splice(0)) waiter();
    });
  }

  url = '';

  static async start(kind: ServedKind, config: ServerConfig = DEFAULT_CONFIG): Promise<ChildServer> {
    const argument = JSON.stringify({
      transport: kind,
      url: LISTEN[kind],
      transportOptions: config.transportOptions,
      keys: config.keys,
      a2a: A2A_SERVED.includes(kind),
    });
    const child = spawn(process.execPath, ['--import', TSX, FIXTURE, argument], {
      cwd: ROOT,
      env: { ...process.env, PARLEY_DEBUG: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const server = new ChildServer(kind, child);
    const [url] = await server.line(/^ready (\S+)$/m);
    server.url = url!;
    return server;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the process wrote to stderr (its crash report, if it died). */
  get stderr(): string {
    return this.err;
  }

  /** The groups of the first stdout line matching `pattern`, once it appears. */
  async line(pattern: RegExp): Promise<string[]> {
    for (;;) {
      const match = pattern.exec(this.out);
      if (match) return match.slice(1);
      if (!this.alive) throw new Error(`the ${this.kind} server exited (${this.describeExit()})\nstderr: ${this.err}`);
      await new Promise<void>((resolve) => this.lineWaiters.push(resolve));
    }
  }

  /** The server's peak resident set size so far, in bytes (a high-water mark: it never falls). */
  async peakRss(): Promise<number> {
    const nonce = randomUUID();
    this.child.stdin.write(`memory ${nonce}\n`);
    const [bytes] = await this.line(new RegExp(`^memory ${nonce} (\\d+)$`, 'm'));
    return Number(bytes);
  }

  describeExit(): string {
    return `code ${this.child.exitCode}, signal ${this.child.signalCode}`;
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** A transport's server across rows: started on first use, started again after a row killed it. */
export class ServerSlot {
  private current: ChildServer | null = null;

  constructor(
    readonly kind: ServedKind,
    private readonly config: ServerConfig = DEFAULT_CONFIG,
  ) {}

  async ensure(): Promise<ChildServer> {
    if (this.current?.alive) return this.current;
    this.current = await ChildServer.start(this.kind, this.config);
    return this.current;
  }

  async stop(): Promise<void> {
    await this.current?.stop();
    this.current = null;
  }
}

/**
 * What every row ends with: the child is alive, and a normal POST /tasks/ through AgentClient
 * comes back completed with its text echoed.
 */
export async function assertStillServing(server: ChildServer): Promise<void> {
  assert.ok(server.alive, `the ${server.kind} server died (${server.describeExit()})\nstderr: ${server.stderr}`);
  const client = new AgentClient(server.url, { transport: server.kind, credentials: ALICE, authenticator: clientKey });
  try {
    const text = `still here ${randomUUID()}`;
    const task = await client.sendTask(text);
    assert.equal(task.state, 'completed');
    assert.deepEqual(resultTexts(task), [text]);
  } finally {
    await client.close();
  }
}

/** The client side of the API-key scheme: the key is sent as it is (X-API-Key, Authorization: ApiKey). */
const clientKey: Authenticator = {
  scheme: { type: 'apiKey', scheme: null, description: 'reliability suite keys', metadata: {} },
  authenticate: async (credentials) => ({ principal_id: 'client', token: credentials, expires_at: null, metadata: {} }),
  refreshToken: async (context) => context,
};

/** An AgentClient acting as the principal of `key`; the caller closes it. */
export function clientAs(server: ChildServer, key: string): AgentClient {
  return new AgentClient(server.url, { transport: server.kind, credentials: key, authenticator: clientKey });
}

export function resultTexts(task: Task): string[] {
  return (task.artifacts ?? []).flatMap((artifact) =>
    artifact.parts.filter((part) => part.type === 'text').map((part) => String(part.content)),
  );
}

// ------------------------------------------------------------------------- payloads

export function userTask(text: string, id = `task-${randomUUID()}`): Task {
  return { id, messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }] };
}

/** A valid task whose JSON is `depth` containers deep (the task object counts as 1), as text. */
export function nestedTaskJson(depth: number, id = `task-${randomUUID()}`): string {
  assert.ok(depth >= 3, 'the task and its metadata take two levels');
  const base = JSON.stringify({ ...userTask('nested', id), metadata: { deep: null } });
  // Built as text: a value thousands deep would overflow JSON.stringify itself.
  return base.replace('"deep":null', `"deep":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}`);
}

/** `levels` nested arrays as JSON text. */
export function nestedArrays(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

/** A valid task whose JSON is exactly `bytes` long (ASCII padding in its text), as text. */
export function sizedTaskJson(bytes: number, id = `task-${randomUUID()}`): string {
  const empty = JSON.stringify(userTask('', id));
  assert.ok(bytes >= empty.length, `a task cannot be shorter than ${empty.length} bytes`);
  const json = JSON.stringify(userTask('x'.repeat(bytes - empty.length), id));
  assert.equal(Buffer.byteLength(json), bytes);
  return json;
}

// ------------------------------------------------------------------------- one answer shape

/**
 * A raw call's outcome on any wire: `ok` with the result, `error` with its HTTP-like status
 * (gRPC statuses mapped: INVALID_ARGUMENT 400, RESOURCE_EXHAUSTED 413, ...), or `closed` when
 * the connection ended without an answer. `text` is everything the server sent back.
 */
export type Answer =
  | { readonly kind: 'ok'; readonly result: any; readonly text: string }
  | { readonly kind: 'error'; readonly status: number; readonly code: string | null; readonly text: string }
  | { readonly kind: 'closed'; readonly reason: string; readonly text: string };

export interface Call {
  readonly method: string;
  readonly path: string;
  /** The payload as JSON text (so it can be deeper than JSON.stringify could write). */
  readonly data?: string;
  /** WebSocket and gRPC: the envelope's params as JSON text. */
  readonly params?: string;
  readonly idempotencyKey?: string;
  /** The API key sent; ALICE by default. */
  readonly key?: string;
  /** gRPC only: gzip the message. */
  readonly gzip?: boolean;
  /** http and sse only: more request headers (A2A's `A2A-Version`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Sends `call` over `server`'s wire as a raw peer would. */
export function send(server: ChildServer, call: Call): Promise<Answer> {
  switch (server.kind) {
    case 'http':
    case 'sse':
      return sendHttp(server.url, call);
    case 'websocket':
      return sendWebSocket(server.url, call);
    case 'grpc':
      return sendGrpc(server.url, call);
  }
}

/** The request envelope of websocket and gRPC, as JSON text. */
export function envelopeJson(call: Call, id = `req-${randomUUID()}`): string {
  const members = [
    `"id":${JSON.stringify(id)}`,
    `"method":${JSON.stringify(call.method)}`,
    `"path":${JSON.stringify(call.path)}`,
  ];
  if (call.data !== undefined) members.push(`"data":${call.data}`);
  members.push(`"params":${call.params ?? '{}'}`);
  if (call.idempotencyKey) members.push(`"idempotency_key":${JSON.stringify(call.idempotencyKey)}`);
  return `{${members.join(',')}}`;
}

function errorAnswer(status: number, body: any, text: string): Answer {
  const code = typeof body?.error?.code === 'string' ? body.error.code : typeof body?.code === 'string' ? body.code : null;
  return { kind: 'error', status, code, text };
}

function parse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// --- http, sse

function sendHttp(url: string, call: Call): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { 'x-api-key': call.key ?? ALICE };
    if (call.data !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(call.data);
    }
    if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
    Object.assign(headers, call.headers);
    const req = httpRequest(new URL(call.path, url), { method: call.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => resolve({ kind: 'closed', reason: error.message, text: Buffer.concat(chunks).toString() }));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve(status < 300 ? { kind: 'ok', result: parse(text), text } : errorAnswer(status, parse(text), text));
      });
    });
    req.on('error', (error) => resolve({ kind: 'closed', reason: error.message, text: '' }));
    req.end(call.data);
  });
}

/** A raw TCP connection to an http(s) server's port, its received bytes collected. */
export class RawSocket {
  readonly socket: Socket;
  received = '';
  readonly closed: Promise<void>;
  error: Error | null = null;

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.socket = netConnect(Number(port), hostname);
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.socket.on('error', (error) => (this.error = error));
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
  }

  /** Writes, and resolves once the data is handed to the kernel (false if the socket is gone). */
  write(data: string | Buffer): Promise<boolean> {
    if (this.socket.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => this.socket.write(data, (error) => resolve(!error)));
  }

  /** The status code of the first response line received, if any. */
  get status(): number | null {
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(this.received);
    return match ? Number(match[1]) : null;
  }

  /** Resolves true once the server closed the connection, false if it had not after `ms`. */
  async closedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const closed = await Promise.race([this.closed.then(() => true as const), guard]);
    clearTimeout(timer);
    return closed;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

// --- websocket

function sendWebSocket(url: string, call: Call): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers: { 'x-api-key': call.key ?? ALICE }, maxPayload: 256 * 1024 * 1024 });
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      socket.terminate();
      resolve(answer);
    };
    socket.on('error', (error) => settle({ kind: 'closed', reason: error.message, text: '' }));
    socket.on('close', (code, reason) => settle({ kind: 'closed', reason: `close ${code} ${reason.toString()}`, text: '' }));
    socket.on('unexpected-response', (_req, res) => settle({ kind: 'error', status: res.statusCode ?? 0, code: null, text: '' }));
    socket.on('open', () => socket.send(envelopeJson(call)));
    socket.on('message', (data) => {
      const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8');
      const frame = parse(text);
      if (frame?.ok === true) settle({ kind: 'ok', result: frame.result, text });
      else settle(errorAnswer(Number(frame?.error?.status ?? 0), frame, text));
    });
  });
}

// --- grpc

const INVOKE_PATH = '/svc.transport.v1.SvcTransport/Invoke';

/** gRPC status -> the HTTP-like status the same failure has on the other wires. */
const GRPC_TO_HTTP: Readonly<Record<number, number>> = { 3: 400, 5: 404, 7: 403, 8: 413, 12: 501, 13: 500, 14: 503, 16: 401 };

/** A gRPC length-prefixed message. */
export function grpcFrame(message: Buffer, compressed: boolean): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** Sends one Invoke whose message is `body` (already framed) under application/grpc+json. */
export function sendGrpcFrame(url: string, body: Buffer, options: { gzip: boolean; key?: string }): Promise<Answer> {
  return new Promise((resolve) => {
    const session = http2Connect(`http://${new URL(url).host}`);
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      session.destroy();
      resolve(answer);
    };
    session.on('error', (error) => settle({ kind: 'closed', reason: error.message, text: '' }));
    const headers: Record<string, string> = {
      ':method': 'POST',
      ':path': INVOKE_PATH,
      'content-type': 'application/grpc+json',
      te: 'trailers',
      'grpc-accept-encoding': 'identity',
      'x-api-key': options.key ?? ALICE,
    };
    if (options.gzip) headers['grpc-encoding'] = 'gzip';
    const stream = session.request(headers);
    const chunks: Buffer[] = [];
    let status: number | null = null;
    const readStatus = (fields: Record<string, unknown>) => {
      if (fields['grpc-status'] !== undefined) status = Number(fields['grpc-status']);
    };
    stream.on('response', readStatus);
    stream.on('trailers', readStatus);
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', (error) => settle({ kind: 'closed', reason: error.message, text: '' }));
    // The answer is complete once the server ends its side (trailers received), even while this
    // side is still sending: a server that refuses a message need not read the rest of it.
    const finish = () => {
      const data = Buffer.concat(chunks);
      const text = messageText(data);
      if (status === null)
        return settle({ kind: 'closed', reason: `stream closed (rst ${stream.rstCode}) without a grpc-status`, text });
      if (status !== 0) return settle({ kind: 'error', status: GRPC_TO_HTTP[status] ?? 500, code: `grpc_${status}`, text });
      const envelope = parse(text);
      if (envelope?.ok === true) return settle({ kind: 'ok', result: envelope.result, text });
      settle(errorAnswer(Number(envelope?.error?.status ?? 0), envelope, text));
    };
    stream.on('end', finish);
    stream.on('close', finish);
    // A server that refuses early may reset the stream mid-upload; the answer (or its absence) counts.
    stream.end(body);
  });
}

/** The first gRPC message of a response body, as text (gunzipped when flagged). */
function messageText(data: Buffer): string {
  if (data.length < 5) return '';
  const length = data.readUInt32BE(1);
  const message = data.subarray(5, 5 + length);
  return (data[0] === 1 ? gunzipSync(message) : message).toString('utf8');
}

function sendGrpc(url: string, call: Call): Promise<Answer> {
  const message = Buffer.from(envelopeJson(call), 'utf8');
  return sendGrpcFrame(url, grpcFrame(call.gzip ? gzipSync(message) : message, call.gzip === true), {
    gzip: call.gzip === true,
    key: call.key,
  });
}

// --- A2A over gRPC

/** How an A2A gRPC call ended: its status (0: OK), message, ErrorInfo reason, and the messages it got. */
export interface A2aGrpcAnswer {
  readonly status: number | null;
  readonly details: string;
  readonly reason: string | null;
  readonly messages: number;
}

/**
 * Sends `message` (binary protobuf, or any bytes) to `lf.a2a.v1.A2AService/<method>` on a raw
 * HTTP/2 stream, framed (gzipped when asked), with A2A-Version 1.0 and the key (none when
 * null). The ErrorInfo reason is read from the google.rpc.Status in grpc-status-details-bin.
 */
export function sendA2aGrpc(
  url: string,
  method: string,
  message: Buffer,
  options: { key?: string | null; gzip?: boolean } = {},
): Promise<A2aGrpcAnswer> {
  return new Promise((resolve) => {
    const session = http2Connect(`http://${new URL(url).host}`);
    let settled = false;
    const settle = (answer: A2aGrpcAnswer) => {
      if (settled) return;
      settled = true;
      session.destroy();
      resolve(answer);
    };
    session.on('error', (error) => settle({ status: null, details: error.message, reason: null, messages: 0 }));
    const headers: Record<string, string> = {
      ':method': 'POST',
      ':path': `/lf.a2a.v1.A2AService/${method}`,
      'content-type': 'application/grpc+proto',
      te: 'trailers',
      'a2a-version': '1.0',
    };
    const key = options.key === undefined ? ALICE : options.key;
    if (key !== null) headers['x-api-key'] = key;
    if (options.gzip) headers['grpc-encoding'] = 'gzip';
    const stream = session.request(headers);
    const chunks: Buffer[] = [];
    let fields: Record<string, unknown> = {};
    const read = (received: Record<string, unknown>) => {
      if (received['grpc-status'] !== undefined) fields = received;
    };
    stream.on('response', read);
    stream.on('trailers', read);
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', (error) => settle({ status: null, details: error.message, reason: null, messages: 0 }));
    const finish = () => {
      const status = fields['grpc-status'] === undefined ? null : Number(fields['grpc-status']);
      const details = decodeURIComponent(String(fields['grpc-message'] ?? ''));
      const bin = fields['grpc-status-details-bin'];
      settle({
        status,
        details,
        reason: typeof bin === 'string' ? reasonOf(Buffer.from(bin, 'base64')) : null,
        messages: countMessages(Buffer.concat(chunks)),
      });
    };
    stream.on('end', finish);
    stream.on('close', finish);
    stream.end(grpcFrame(options.gzip ? gzipSync(message) : message, options.gzip === true));
  });
}

/** The ErrorInfo reason inside a binary google.rpc.Status (read with the generated schemas). */
function reasonOf(bytes: Buffer): string | null {
  const status = fromBinary(StatusSchema, bytes);
  const any = status.details[0];
  return any ? (anyUnpack(any, ErrorInfoSchema)?.reason ?? null) : null;
}

function countMessages(data: Buffer): number {
  let count = 0;
  for (let at = 0; at + 5 <= data.length; at += 5 + data.readUInt32BE(at + 1)) count++;
  return count;
}

// ------------------------------------------------------------------------- assertions

export function assertAccepted(answer: Answer): any {
  assert.equal(answer.kind, 'ok', `expected the call to be answered ok, got ${describeAnswer(answer)}`);
  return (answer as { result: any }).result;
}

/** Refused with one of `statuses` in the protocol's own error shape (not a dropped connection). */
export function assertRefused(answer: Answer, ...statuses: number[]): void {
  assert.equal(answer.kind, 'error', `expected a refusal with ${statuses.join(' or ')}, got ${describeAnswer(answer)}`);
  const { status } = answer as { status: number };
  assert.ok(statuses.includes(status), `expected status ${statuses.join(' or ')}, got ${describeAnswer(answer)}`);
}

function describeAnswer(answer: Answer): string {
  const text = answer.text.length > 300 ? `${answer.text.slice(0, 300)}...` : answer.text;
  if (answer.kind === 'ok') return `ok: ${text}`;
  if (answer.kind === 'error') return `error ${answer.status} (${answer.code}): ${text}`;
  return `connection closed without an answer (${answer.reason})`;
}
