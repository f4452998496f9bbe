// Fixtures for the grpc tests. The independent peers are @grpc/grpc-js clients and servers:
// with @grpc/proto-loader reading the project's .proto files (binary protobuf), and with
// pass-through JSON serializers (the spec's wire: each message is the envelope's JSON text).
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Endpoint, RequestContext, StreamItem } from '../../src/transport/endpoint.js';
import type { Transport, TransportOptions } from '../../src/transport/transport.js';
import { gate, ops, serve, stream, table, unary } from './transport-fixtures.js';
import { aborted } from './async.js';

export { aborted };

const PROTO_ROOT = fileURLToPath(new URL('../../proto/', import.meta.url));

export const INVOKE_PATH = '/svc.transport.v1.SvcTransport/Invoke';
export const STREAM_PATH = '/svc.transport.v1.SvcTransport/Stream';

/** grpc-js service constructors built by proto-loader from the .proto files (snake_case fields). */
export function loadPackage(files: string[]): any {
  const definition = protoLoader.loadSync(files, {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    enums: String,
    bytes: Buffer,
    defaults: false,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition);
}

/** The host:port grpc-js wants, from a grpc:// URL. */
export function target(url: string): string {
  return new URL(url).host;
}

export const insecure = () => grpc.credentials.createInsecure();

/** A grpc-js SvcTransport client speaking binary protobuf, generated from transport.proto. */
export function binaryClient(t: { after(fn: () => unknown): void }, url: string): any {
  const pkg = loadPackage(['svc/transport/v1/transport.proto']);
  const client = new pkg.svc.transport.v1.SvcTransport(target(url), insecure());
  t.after(() => client.close());
  return client;
}

const toJsonBytes = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
const fromJsonBytes = (bytes: Buffer) => JSON.parse(bytes.toString('utf8'));

/** The pass-through JSON method table for SvcTransport (also usable by a grpc-js server). */
export const passThroughService = {
  Invoke: {
    path: INVOKE_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: toJsonBytes,
    requestDeserialize: fromJsonBytes,
    responseSerialize: toJsonBytes,
    responseDeserialize: fromJsonBytes,
  },
  Stream: {
    path: STREAM_PATH,
    requestStream: false,
    responseStream: true,
    requestSerialize: toJsonBytes,
    requestDeserialize: fromJsonBytes,
    responseSerialize: toJsonBytes,
    responseDeserialize: fromJsonBytes,
  },
};

/** A grpc-js client whose messages are the envelopes' JSON text under plain application/grpc. */
export function jsonClient(t: { after(fn: () => unknown): void }, url: string): any {
  const Client = grpc.makeGenericClientConstructor(passThroughService as any, 'SvcTransport');
  const client = new Client(target(url), insecure()) as any;
  t.after(() => client.close());
  return client;
}

/** A grpc-js client that sends the given bytes as the Invoke message, unchanged. */
export function rawBytesClient(t: { after(fn: () => unknown): void }, url: string): any {
  const identity = (bytes: Buffer) => bytes;
  const Client = grpc.makeGenericClientConstructor(
    {
      Invoke: {
        path: INVOKE_PATH,
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    } as any,
    'SvcTransport',
  );
  const client = new Client(target(url), insecure()) as any;
  t.after(() => client.close());
  return client;
}

/** Promisified unary call on a grpc-js client. */
export function unaryCall(client: any, method: string, request: unknown, metadata?: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    client[method](request, toMetadata(metadata), (error: grpc.ServiceError | null, response: unknown) =>
      error ? reject(error) : resolve(response),
    );
  });
}

/** Reads a grpc-js server stream to its end; rejects with the call's error status. */
export async function streamCall(
  client: any,
  method: string,
  request: unknown,
  metadata?: Record<string, string>,
): Promise<any[]> {
  const call = client[method](request, toMetadata(metadata));
  const events: any[] = [];
  for await (const event of call) events.push(event);
  return events;
}

function toMetadata(values: Record<string, string> = {}): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(values)) metadata.set(key, value);
  return metadata;
}

/** The rejection of a grpc-js call (a ServiceError with `code`). */
export async function statusOf(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

// google.protobuf.Value as proto-loader represents it, to and from plain JSON.
export function toValue(json: unknown): any {
  if (json === null) return { nullValue: 'NULL_VALUE' };
  if (Array.isArray(json)) return { listValue: { values: json.map(toValue) } };
  switch (typeof json) {
    case 'string':
      return { stringValue: json };
    case 'number':
      return { numberValue: json };
    case 'boolean':
      return { boolValue: json };
    default:
      return { structValue: toStruct(json as Record<string, unknown>) };
  }
}

export function toStruct(json: Record<string, unknown>): any {
  return { fields: Object.fromEntries(Object.entries(json).map(([key, value]) => [key, toValue(value)])) };
}

function fromValue(value: any): unknown {
  if (value === undefined || value === null) return undefined;
  if ('nullValue' in value) return null;
  if ('numberValue' in value) return value.numberValue;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('listValue' in value) return (value.listValue.values ?? []).map(fromValue);
  if ('structValue' in value) return fromStruct(value.structValue);
  throw new Error(`not a google.protobuf.Value: ${JSON.stringify(value)}`);
}

function fromStruct(struct: any): Record<string, unknown> {
  return Object.fromEntries(Object.entries(struct?.fields ?? {}).map(([key, value]) => [key, fromValue(value)]));
}

/** A binary response envelope as plain JSON (proto-loader's virtual oneof members dropped). */
export function envelopeOf(message: any): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['id', 'ok', 'final']) if (message[key] !== undefined) out[key] = message[key];
  if (message.result !== undefined && message.result !== null) out.result = fromValue(message.result);
  if (message.error !== undefined && message.error !== null) out.error = fromStruct(message.error);
  return out;
}

/** An authenticator that accepts the credential `good` only. */
export { keyAuthenticator } from './key-authenticator.js';

export interface AgentFixture {
  readonly endpoints: Map<string, Endpoint>;
  /** Request contexts the handlers saw, in order. */
  readonly contexts: RequestContext[];
  /** Streams with task id `hold` wait here after their first event until the caller leaves. */
  readonly heldStreamStarted: Promise<void>;
}

/**
 * The endpoints the grpc servers in these tests serve: POST /tasks/ echoes the task as
 * completed; POST /tasks/cancel answers the task as canceled; POST /tasks/stream sends two status events then the final one (a task with id
 * `hold` waits after its first event until its caller goes away); GET /healthz is public.
 */
export function agentEndpoints(): AgentFixture {
  const contexts: RequestContext[] = [];
  const started = gate();
  const endpoints = table(
    unary(ops.sendTask, (task, context) => {
      contexts.push(context);
      return { ...task, state: 'completed' };
    }),
    unary(ops.healthz, () => ({ status: 'ready' })),
    unary(ops.cancelTask, (request) => ({ id: request.id, state: 'canceled' })),
    stream(ops.streamTask, async function* (task, context): AsyncGenerator<StreamItem> {
      contexts.push(context);
      yield { result: { type: 'task_status', state: 'working', task_id: task.id }, final: false };
      if (task.id === 'hold') {
        started.open();
        await aborted(context.signal);
        throw new Error('caller went away');
      }
      yield { result: { type: 'task_status', state: 'working', step: 2 }, final: false };
      yield { result: { type: 'task_completed', task: { ...task, state: 'completed' } }, final: true };
    }),
  );
  return { endpoints, contexts, heldStreamStarted: started.promise };
}

/** A started parley grpc server on 127.0.0.1 port 0, stopped when the test ends. */
export function serveGrpc(
  t: { after(fn: () => unknown): void },
  endpoints: Map<string, Endpoint>,
  options?: TransportOptions,
): Promise<Transport> {
  return serve(t, 'grpc', 'grpc://127.0.0.1:0', endpoints, options);
}

export { ops };
