// Shared fixtures for the transport tests: endpoint tables, real transports on 127.0.0.1
// port 0, deliberately misbehaving raw node:http peers, and a raw HTTP request helper.
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OperationSpec } from '../../generated/operations/spec.js';
import { agentOperations } from '../../generated/operations/agent.js';
import { routeKey, type Endpoint, type RequestContext, type StreamItem } from '../../src/transport/endpoint.js';
import { createTransport } from '../../src/observability/observed-transport.js';
import { taskCompletedEvent } from '../../src/agent/task-completed-event.js';
import type { Task } from '../../generated/types/index.js';
import type { Transport, TransportOptions } from '../../src/transport/transport.js';

export const ops = agentOperations;

/** An endpoint table from endpoints. */
export function table(...endpoints: Endpoint[]): Map<string, Endpoint> {
  return new Map(endpoints.map((endpoint) => [routeKey(endpoint.spec.method, endpoint.spec.path), endpoint]));
}

export function unary(spec: OperationSpec, handler: (data: any, context: RequestContext) => unknown): Endpoint {
  return { spec, unary: async (data, context) => handler(data, context) };
}

export function stream(
  spec: OperationSpec,
  handler: (data: any, context: RequestContext) => AsyncIterable<StreamItem>,
): Endpoint {
  return { spec, stream: handler };
}

/** A unary endpoint a stream may fall back to, making the final event as an agent does. */
export function fallbackTarget(spec: OperationSpec, handler: (data: any, context: RequestContext) => unknown): Endpoint {
  return { ...unary(spec, handler), finalEvent: (answer) => taskCompletedEvent(answer as Task) };
}

/** POST /tasks/ answering the task back as completed. */
export const echoTask = (): Endpoint => unary(ops.sendTask, (task) => ({ ...task, state: 'completed' }));

/** A started server transport, stopped when the test ends. */
export async function serve(
  t: { after(fn: () => unknown): void },
  name: string,
  url: string,
  endpoints: Map<string, Endpoint>,
  options?: TransportOptions,
): Promise<Transport> {
  const server = await createTransport(name, url, options);
  await server.start(endpoints);
  t.after(() => server.stop());
  return server;
}

/** A client transport, stopped (its pooled connections closed) when the test ends. */
export async function client(
  t: { after(fn: () => unknown): void },
  name: string,
  url: string,
  options?: TransportOptions,
): Promise<Transport> {
  const transport = await createTransport(name, url, options);
  t.after(() => transport.stop());
  return transport;
}

/** A retry policy that retries at once (no real backoff), so retry tests stay fast. */
export function instantRetry(maxAttempts: number, retryableMethods?: string[]) {
  return {
    maxAttempts,
    initialBackoff: 0,
    maxBackoff: 0,
    jitter: 0,
    ...(retryableMethods ? { retryableMethods } : {}),
  };
}

let runtimeCounter = 0;
/** A fresh runtime URL (the runtime registry is process-wide). */
export function runtimeUrl(label: string): string {
  return `runtime://${label}-${process.pid}-${++runtimeCounter}`;
}

export interface Recorded {
  readonly method: string;
  readonly path: string;
  /** The query string with its `?`, or ''. */
  readonly search: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface RawServer {
  readonly url: string;
  readonly requests: Recorded[];
  close(): Promise<void>;
}

/**
 * A raw node:http peer. `handler` sees each request once its body has been read, with
 * `n` counting requests from 1; it may answer, misbehave, or never answer.
 */
export async function rawServer(
  t: { after(fn: () => unknown): void },
  handler: (req: IncomingMessage, res: ServerResponse, n: number, body: string) => void,
): Promise<RawServer> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push({ method: req.method ?? '', path: url.pathname, search: url.search, headers: req.headers, body });
      handler(req, res, requests.length, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  const close = () => {
    if (closed) return Promise.resolve();
    closed = true;
    return new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  t.after(close);
  return { url: `http://127.0.0.1:${port}`, requests, close };
}

/** Writes a status with an optional JSON (object) or raw (string) body. */
export function answer(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status, { 'content-length': 0 }).end();
    return;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** A URL on 127.0.0.1 whose port refuses connections (it was bound, then released). */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly json: any;
}

/** One raw HTTP request on a fresh connection. `chunks` sends the body chunked. */
export function rawRequest(
  base: string,
  options: { method: string; path: string; headers?: Record<string, string | number>; body?: string; chunks?: string[] },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(options.headers ?? {}) };
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] ??= Buffer.byteLength(options.body);
    }
    if (options.chunks) headers['content-type'] ??= 'application/json';
    const req = httpRequest(new URL(options.path, base), { method: options.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    // The server may answer early and drop the rest of an oversize body; the answer counts.
    req.on('error', reject);
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

/** A promise the test opens by hand. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Waits (polling) until `condition` holds; fails with `label` if it never does. */
export async function waitFor(condition: () => boolean, label: string): Promise<void> {
  for (let i = 0; i < 2500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`timed out waiting for: ${label}`);
}

/** The settled error of a promise that must reject. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

export function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

export function header(recorded: Recorded, name: string): string | undefined {
  const value = recorded.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
