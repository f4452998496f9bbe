// The grpc client: one attempt of a call as svc.transport.v1.SvcTransport/Invoke or /Stream,
// over connect-node's gRPC transport on node:http2. One HTTP/2 connection per peer URL is
// kept and shared by every call (control-plane calls get a second one, so a cancellation
// never waits behind the per-connection stream limit of the work it cancels).
//
// Codec. The default is JSON (`application/grpc+json`): each message is the UTF-8 JSON
// envelope, which is what the spec puts on the wire ("each message is a UTF-8 JSON
// envelope"), so a parley client talks to any server of the spec: a parley server, and a
// server that reads the messages with pass-through JSON serializers (grpc-js, grpcio), since
// gRPC servers accept the `+json` subtype of application/grpc. Binary protobuf (`codec:
// 'proto'`) suits servers generated from transport.proto that only speak protobuf; parley
// servers accept both.
//
// Deadlines arrive as `call.signal` (aborted by the shared pipeline); the call is cancelled
// with it and rejects with the signal's reason. Responses are not asked to be compressed:
// on the links these calls usually take, the CPU costs more than the bytes.
import type { Client, Transport as ConnectTransport } from '@connectrpc/connect';
import type { Http2SessionManager } from '@connectrpc/connect-node';
import type { JsonObject } from '@bufbuild/protobuf';
import { SvcTransport } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { clientTlsOptions } from '../../tls/node-tls-options.js';
import { jsonByteLength } from '../../core/json.js';
import type { BindingContext, InboundEvent, InboundReply, OutboundCall, TransportClient } from '../binding.js';
import { readResponseEnvelope } from '../envelope.js';
import { TransportProtocolError } from '../errors.js';
import { remoteErrorFrom } from '../wire-errors.js';
import { loadConnect } from './load.js';
import { METADATA, jsonOf, valueOfText, type RequestEnvelope, type ResponseEnvelope } from './codec.js';
import { wireOptions } from './options.js';
import { errorFromCall, GrpcStatus } from './errors.js';
import { writeTraceHeaders } from '../trace-headers.js';

type GrpcCodec = 'json' | 'proto';

export interface GrpcClientOptions {
  /** Message codec: `json` (default, the spec's wire) or binary protobuf. */
  readonly codec?: GrpcCodec;
}

interface GrpcConnection {
  readonly sessions: Http2SessionManager;
  readonly client: Client<typeof SvcTransport>;
}

/** Headers that belong to HTTP/2 or gRPC itself and are never sent as call metadata. */
const RESERVED = new Set([
  'content-type',
  'content-length',
  'te',
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'user-agent',
]);

export class GrpcClient implements TransportClient {
  private readonly connections = new Map<string, Promise<GrpcConnection>>();
  private closed = false;

  constructor(
    private readonly context: BindingContext,
    private readonly options: GrpcClientOptions = {},
  ) {}

  async send(call: OutboundCall): Promise<InboundReply> {
    const { client } = await this.channel(call);
    let response: ResponseEnvelope;
    try {
      response = await client.invoke(requestEnvelope(call), { signal: call.signal, headers: metadata(call) });
    } catch (error) {
      throw unreadableAnswer(error, call) ?? errorFromCall(error, call);
    }
    const answer = readEnvelope(response, call);
    if (!answer.final) {
      throw new TransportProtocolError(`unary answer from ${call.url} is not marked final`, {
        url: call.url,
        requestId: call.requestId,
        retryable: false,
      });
    }
    if (!answer.ok) throw remoteErrorFrom(answer.error, call.url, call.requestId);
    return { value: answer.result, bytes: answer.bytes };
  }

  async *stream(call: OutboundCall): AsyncGenerator<InboundEvent> {
    const { client } = await this.channel(call);
    // Connect's stream iterables have no return(): leaving the loop early does not end the
    // call. Only its signal does, so the call gets its own, aborted when we stop reading.
    const stop = new AbortController();
    const forward = () => stop.abort(call.signal.reason);
    if (call.signal.aborted) forward();
    else call.signal.addEventListener('abort', forward, { once: true });
    let ended = false;
    const events = client.stream(requestEnvelope(call), { signal: stop.signal, headers: metadata(call) });
    const iterator = events[Symbol.asyncIterator]();
    try {
      for (;;) {
        let next: IteratorResult<ResponseEnvelope>;
        try {
          next = await iterator.next();
        } catch (error) {
          ended = true;
          throw unreadableAnswer(error, call) ?? errorFromCall(error, call);
        }
        if (next.done) {
          ended = true;
          return;
        }
        const event = readEnvelope(next.value, call);
        yield event;
        if (event.final || !event.ok) return;
      }
    } finally {
      call.signal.removeEventListener('abort', forward);
      // Leaving before the server ended the call (consumer stopped, final event read)
      // cancels its HTTP/2 stream; the server sees its caller go away.
      if (!ended) stop.abort();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const connections = [...this.connections.values()];
    this.connections.clear();
    for (const pending of connections) {
      const channel = await pending.catch(() => null);
      channel?.sessions.abort();
    }
  }

  /** The channel for the call's peer; control-plane calls use their own. */
  private channel(call: OutboundCall): Promise<GrpcConnection> {
    const key = `${call.controlPlane ? 'control' : 'work'} ${call.url}`;
    let channel = this.connections.get(key);
    if (!channel) {
      channel = this.open(call.url);
      this.connections.set(key, channel);
      channel.catch(() => this.connections.delete(key));
    }
    return channel;
  }

  private async open(url: string): Promise<GrpcConnection> {
    const { connect, node } = await loadConnect();
    const { config } = this.context;
    const wire = wireOptions(config);
    const parsed = new URL(url);
    const secure = parsed.protocol === 'grpcs:';
    const baseUrl = `${secure ? 'https' : 'http'}://${parsed.host}${parsed.pathname.replace(/\/$/, '')}`;
    const sessions = new node.Http2SessionManager(
      baseUrl,
      wire.keepaliveTimeMs > 0 ? { pingIntervalMs: wire.keepaliveTimeMs, pingTimeoutMs: wire.keepaliveTimeoutMs } : {},
      secure ? clientTlsOptions(config.tls) : {},
    );
    const transport: ConnectTransport = node.createGrpcTransport({
      baseUrl,
      sessionManager: sessions,
      useBinaryFormat: (this.options.codec ?? 'json') === 'proto',
      jsonOptions: { ignoreUnknownFields: true },
      readMaxBytes: wire.receiveMaxBytes,
      writeMaxBytes: wire.sendMaxBytes,
      acceptCompression: [],
    });
    if (this.closed) sessions.abort();
    return { sessions, client: connect.createClient(SvcTransport, transport) };
  }
}

/** The request envelope: `data` only for operations with a body, `params` always. */
function requestEnvelope(call: OutboundCall): RequestEnvelope {
  const params: JsonObject = {};
  for (const [key, value] of Object.entries(call.params)) params[key] = typeof value === 'string' ? value : [...value];
  const envelope: RequestEnvelope = {
    id: call.requestId,
    method: call.spec.method,
    path: call.spec.path,
    params,
  };
  if (call.body) envelope.data = valueOfText(call.body.text);
  if (call.idempotencyKey) envelope.idempotencyKey = call.idempotencyKey;
  return envelope;
}

/** Call metadata: the caller's headers (auth included), then the correlation ids. */
function metadata(call: OutboundCall): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) {
    if (!RESERVED.has(name) && !name.startsWith(':') && !name.startsWith('grpc-')) headers[name] = value;
  }
  headers[METADATA.requestId] = call.requestId;
  if (call.idempotencyKey) headers[METADATA.idempotencyKey] = call.idempotencyKey;
  writeTraceHeaders(headers, call.trace);
  return headers;
}

/**
 * An answer this side could not read as a response envelope (a numeric id, an array, text
 * that is not JSON) is the peer breaking the protocol, as on the other wires. Connect reports
 * it as INVALID_ARGUMENT wrapping the parser's error; a status the peer sent has no cause.
 */
function unreadableAnswer(error: unknown, call: OutboundCall): TransportProtocolError | null {
  if (call.signal.aborted || !(error instanceof Error) || error.name !== 'ConnectError') return null;
  const { code, cause } = error as Error & { code?: unknown };
  if (code !== GrpcStatus.INVALID_ARGUMENT || !(cause instanceof Error) || cause.name === 'ConnectError') return null;
  return new TransportProtocolError(`response envelope from ${call.url} is not readable: ${cause.message}`, {
    url: call.url,
    requestId: call.requestId,
    retryable: false,
    cause: error,
  });
}

/**
 * A response message read by the rules every wire shares (../envelope.ts). The message's fields
 * have explicit presence, so an absent `ok` or `final` stays absent and is refused as on the
 * other wires; ProtoJSON reads `"id": null` as no id, so an absent id counts as null. The
 * size is the payload's JSON size, as the other wires measure it.
 */
function readEnvelope(envelope: ResponseEnvelope, call: OutboundCall): InboundEvent {
  const result = jsonOf(envelope.result);
  const plain = { id: envelope.id ?? null, ok: envelope.ok, result, error: envelope.error ?? null, final: envelope.final };
  return readResponseEnvelope(plain, jsonByteLength(plain.ok ? result : plain.error), call);
}
