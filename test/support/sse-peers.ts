// Shared pieces of the sse tests: a small endpoint table, a server started on port 0, and a
// raw HTTP/1.1 exchange over node:net that returns the bytes exactly as they came.
import { connect } from 'node:net';
import { agentOperations } from '../../generated/operations/agent.js';
import type { Task } from '../../generated/types/index.js';
import { routeKey, type Endpoint, type RequestContext, type StreamItem } from '../../src/transport/endpoint.js';
import { createTransport } from '../../src/transport/factory.js';
import type { Transport, TransportOptions } from '../../src/transport/transport.js';

const TIMESTAMP = '2025-03-01T09:30:00.000Z';

/** The events a well-behaved stream sends for a task: two progress events, then the final one. */
export function taskEvents(task: Task): StreamItem[] {
  return [
    {
      result: { type: 'task_status', task_id: task.id, timestamp: TIMESTAMP, state: 'working', task: { id: task.id } },
      final: false,
    },
    { result: { type: 'task_llm_stream', task_id: task.id, timestamp: TIMESTAMP, delta: 'Bon', final: true }, final: false },
    {
      result: {
        type: 'task_completed',
        task_id: task.id,
        timestamp: TIMESTAMP,
        state: 'completed',
        task: { ...task, state: 'completed' },
      },
      final: true,
    },
  ];
}

type StreamHandler = (data: unknown, context: RequestContext) => AsyncIterable<StreamItem>;

export function endpointTable(options: { stream?: StreamHandler; health?: () => unknown } = {}): Map<string, Endpoint> {
  const endpoints = new Map<string, Endpoint>();
  const add = (endpoint: Endpoint) => endpoints.set(routeKey(endpoint.spec.method, endpoint.spec.path), endpoint);
  add({ spec: agentOperations.sendTask, unary: async (task) => ({ ...(task as Task), state: 'completed' }) });
  add({ spec: agentOperations.getStatusPage, unary: async () => '<!doctype html><title>status</title><p>ok</p>' });
  add({ spec: agentOperations.healthz, unary: async () => options.health?.() ?? { status: 'ready' } });
  add({
    spec: agentOperations.streamTask,
    stream:
      options.stream ??
      async function* (data) {
        yield* taskEvents(data as Task);
      },
  });
  return endpoints;
}

/** Starts an sse server on 127.0.0.1, port 0, whose /healthz reports its own health. */
export async function startServer(
  options: TransportOptions & { stream?: StreamHandler; endpoints?: Map<string, Endpoint> } = {},
): Promise<Transport> {
  const { stream, endpoints, ...transportOptions } = options;
  const server = await createTransport('sse', 'http://127.0.0.1:0', transportOptions);
  await server.start(endpoints ?? endpointTable({ stream, health: () => server.health() }));
  return server;
}

export interface RawResponse {
  readonly status: number;
  /** Lowercase header names; repeated headers joined with `, `. */
  readonly headers: Record<string, string>;
  /** The body with any chunked transfer coding removed. */
  readonly body: string;
}

/** Sends one HTTP/1.1 request over a plain socket and reads until the server closes it. */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | null,
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(parseRawResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(requestHead(target, method, path, headers, body) + (body ?? ''));
  });
}

export function requestHead(
  target: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | null,
): string {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${target.host}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== null) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export function parseRawResponse(bytes: Buffer): RawResponse {
  const split = bytes.indexOf('\r\n\r\n');
  if (split === -1) throw new Error(`no complete response head in ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...headerLines] = bytes.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] ? `${headers[name]}, ${value}` : value;
  }
  let body = bytes.subarray(split + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  return { status, headers, body: body.toString('utf8') };
}

/** Removes the chunked transfer coding; throws on a truncated or malformed body. */
function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) throw new Error('chunked body ends inside a chunk size line');
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) throw new Error('bad chunk size');
    at = lineEnd + 2;
    if (size === 0) return Buffer.concat(parts);
    if (at + size + 2 > bytes.length) throw new Error('chunked body ends inside a chunk');
    parts.push(bytes.subarray(at, at + size));
    at += size + 2;
  }
}

/** Splits an event-stream body into its `data:` payloads, checking each frame is one data line. */
export function dataLines(body: string): string[] {
  if (!body.endsWith('\n\n')) throw new Error(`event stream does not end with a blank line: ${JSON.stringify(body.slice(-40))}`);
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      if (!frame.startsWith('data: ') || frame.includes('\n'))
        throw new Error(`unexpected frame ${JSON.stringify(frame.slice(0, 80))}`);
      return frame.slice('data: '.length);
    });
}

export { aborted, deferred, type Deferred } from './async.js';

/** Lets every pending microtask and I/O callback of this turn run. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
