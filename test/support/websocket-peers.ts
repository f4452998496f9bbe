// Fixtures for the websocket tests: a plain `ws` client that speaks raw frames (the
// independent peer), a raw `ws` server for misbehaving-server cases, and the endpoint table
// the parley servers serve.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import type { Endpoint, RequestContext } from '../../src/transport/endpoint.js';
import { echoTask, gate, ops, stream, table, unary } from './transport-fixtures.js';

/** One received frame: parsed JSON when it is JSON, the raw text otherwise. */
export interface Received {
  readonly text: string;
  readonly json: any;
  readonly isBinary: boolean;
}

function received(data: RawData, isBinary: boolean): Received {
  const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer)).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { text, json, isBinary };
}

/** A plain `ws` client (not parley's) with its frames queued for the test to read in order. */
export class RawPeer {
  private readonly frames: Received[] = [];
  private waiters: Array<(frame: Received) => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      const frame = received(data, isBinary);
      const waiter = this.waiters.shift();
      if (waiter) waiter(frame);
      else this.frames.push(frame);
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(url: string, options: WebSocket.ClientOptions = {}): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, options);
      socket.once('open', () => resolve(new RawPeer(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends a value as a JSON text frame, a string as is, a buffer as a binary frame. */
  send(value: unknown): void {
    if (Buffer.isBuffer(value)) this.socket.send(value, { binary: true });
    else this.socket.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  next(): Promise<Received> {
    const frame = this.frames.shift();
    if (frame) return Promise.resolve(frame);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Sends a request and reads frames until the final one. */
  async call(request: Record<string, unknown>): Promise<any[]> {
    this.send(request);
    const frames: any[] = [];
    for (;;) {
      const frame = (await this.next()).json;
      frames.push(frame);
      if (frame?.final) return frames;
    }
  }

  close(): void {
    this.socket.terminate();
  }
}

/** A handshake that was refused: its HTTP status and body. */
export function refusedHandshake(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the handshake was accepted'));
    });
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (_req, res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        socket.terminate();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
    });
  });
}

export interface RawWsServer {
  readonly url: string;
  readonly server: WebSocketServer;
  /** Upgrade requests in arrival order (one per connection). */
  readonly upgrades: IncomingMessage[];
  close(): Promise<void>;
}

/**
 * A raw `ws` server; `onFrame` sees each frame with the socket it came on and may answer,
 * misbehave, or never answer.
 */
export async function rawWsServer(
  t: { after(fn: () => unknown): void },
  onFrame: (socket: WebSocket, frame: Received) => void,
  options: { autoPong?: boolean } = {},
): Promise<RawWsServer> {
  const http = createServer();
  const server = new WebSocketServer({ server: http, autoPong: options.autoPong ?? true });
  const upgrades: IncomingMessage[] = [];
  server.on('connection', (socket, req) => {
    upgrades.push(req);
    socket.on('error', () => undefined);
    socket.on('message', (data, isBinary) => onFrame(socket, received(data, isBinary)));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const socket of server.clients) socket.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  t.after(close);
  return { url: `ws://127.0.0.1:${port}`, server, upgrades, close };
}

/** Answers a request frame with a success envelope. */
export function reply(socket: WebSocket, id: unknown, result: unknown, final = true): void {
  socket.send(JSON.stringify({ id, ok: true, result, error: null, final }));
}

/** An authenticator that accepts the credential `good` only. */
export { keyAuthenticator as testAuthenticator } from './key-authenticator.js';

/**
 * The endpoints the parley servers in these tests serve. A streamed task with id `hold`
 * waits after its first event until its cancellation arrives (or the caller goes away).
 */
export function agentTable(): {
  endpoints: Map<string, Endpoint>;
  held: Map<string, { open(): void }>;
  /** Resolves when a held stream was aborted by its connection going away. */
  abandoned: Promise<string>;
} {
  const held = new Map<string, { open(): void }>();
  let abandon!: (id: string) => void;
  const abandoned = new Promise<string>((resolve) => (abandon = resolve));
  const endpoints = table(
    echoTask(),
    unary(ops.cancelTask, (request: { id: string }) => {
      held.get(request.id)?.open();
      return { id: request.id, state: 'canceled' };
    }),
    unary(ops.getCard, () => ({ name: 'test-agent' })),
    stream(ops.streamTask, async function* (task: { id: string }, context: RequestContext) {
      yield { result: { type: 'task_status', task_id: task.id, n: 1 }, final: false };
      if (task.id === 'hold') {
        const opened = gate();
        held.set(task.id, opened);
        const aborted = new Promise<'aborted'>((resolve) =>
          context.signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
        );
        if ((await Promise.race([opened.promise, aborted])) === 'aborted') {
          abandon(task.id);
          return;
        }
      }
      yield { result: { type: 'task_status', task_id: task.id, n: 2 }, final: false };
      yield { result: { type: 'task_completed', task_id: task.id, n: 3 }, final: true };
    }),
  );
  return { endpoints, held, abandoned };
}
