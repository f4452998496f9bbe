// The grpc client: one attempt of a call as svc.transport.v1.SvcTransport/Invoke or /Stream,
// over @grpc/grpc-js, which the server runs on too. One channel (one HTTP/2 connection) per
// peer URL is kept and shared by every call; control-plane calls get a second one, so a
// cancellation never waits behind the per-connection stream limit of the work it cancels.
//
// Codec. The default is JSON: each message is the UTF-8 JSON envelope, which is what the spec
// puts on the wire ("each message is a UTF-8 JSON envelope"), under plain `application/grpc`
// (grpc-js sends no other content type). Any server of the spec reads it: a parley server
// tells JSON from binary by the message's first byte, and grpc-js or grpcio servers read it
// with pass-through serializers. Binary protobuf (`codec: 'proto'`) suits servers generated
// from transport.proto that only speak protobuf. Answers are read by their first byte in both
// cases (client-envelopes.ts).
//
// grpc-js does the wire: framing, message size limits (from options.ts, the same keys as the
// server's), keepalive pings. Messages pass through it as bytes (identity serializers).
// Deadlines arrive as the call's cancellation (aborted by the shared pipeline): the call is
// cancelled with it and rejects with its reason. grpc-js's own retries are off: the shared
// pipeline retries by the spec's rules, with the same request id and idempotency key.
// Closing a grpc-js channel lets the calls already on it run to their end (and keeps their
// connection, and the process, alive meanwhile), so close() cancels them itself.
import type { CallOptions, ChannelOptions, Client as GrpcJsClient, Metadata, ServiceError } from '@grpc/grpc-js';
import type { BindingContext, InboundEvent, InboundReply, OutboundCall, TransportClient } from '../binding.js';
import { resultBytes } from '../envelope.js';
import { TransportConnectionError, TransportProtocolError } from '../errors.js';
import { writeTraceHeaders } from '../trace-headers.js';
import { remoteErrorFrom } from '../wire-errors.js';
import { ConnectionFailure, channelCredentials } from './channel-credentials.js';
import { type GrpcCodec, readAnswer, requestMessage } from './client-envelopes.js';
import { METADATA } from './codec.js';
import { errorFromCall, GrpcStatus, type ReceiveLimit } from './errors.js';
import { type GrpcJsModule, loadGrpcJs } from './load.js';
import { MAX_MESSAGE_BYTES, type WireOptions, wireOptions } from './options.js';
import { INVOKE_PATH, STREAM_PATH } from './transport-service.js';

export interface GrpcClientOptions {
  /** Message codec: `json` (default, the spec's wire) or binary protobuf. */
  readonly codec?: GrpcCodec;
}

interface GrpcChannel {
  readonly grpc: GrpcJsModule;
  readonly client: GrpcJsClient;
  /** The method paths, under the URL's path when it has one. */
  readonly invokePath: string;
  readonly streamPath: string;
  readonly failure: ConnectionFailure;
  /** The channel's `grpc.max_receive_message_length` (-1: none), to tell grpc-js's own size refusal. */
  readonly receiveLimit: number;
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

const identity = (bytes: Buffer): Buffer => bytes;
const ignore = () => undefined;

export class GrpcClient implements TransportClient {
  private readonly channels = new Map<string, Promise<GrpcChannel>>();
  /** The calls on the wire, which close() cancels. */
  private readonly inFlight = new Set<{ cancel(): void }>();
  private readonly codec: GrpcCodec;
  private closed = false;

  constructor(
    private readonly context: BindingContext,
    options: GrpcClientOptions = {},
  ) {
    this.codec = options.codec ?? 'json';
  }

  async send(call: OutboundCall): Promise<InboundReply> {
    const channel = await this.openChannel(call);
    const message = requestMessage(call, this.codec, 'invoke');
    const answer = await new Promise<Buffer>((resolve, reject) => {
      let stopListening: () => void = ignore;
      const pending = channel.client.makeUnaryRequest(
        channel.invokePath,
        identity,
        identity,
        message,
        metadataOf(channel.grpc, call),
        deadlineOf(call),
        (error: ServiceError | null, value?: Buffer) => {
          stopListening();
          this.inFlight.delete(pending);
          if (error) reject(this.failureOf(error, call, channel, 'response'));
          else resolve(value as Buffer);
        },
      );
      this.inFlight.add(pending);
      stopListening = call.cancellation.onAbort(() => pending.cancel());
    });
    const event = readAnswer(answer, 'invoke', call);
    if (!event.final) {
      throw new TransportProtocolError(`unary answer from ${call.url} is not marked final`, {
        url: call.url,
        requestId: call.requestId,
        retryable: false,
      });
    }
    if (!event.ok) throw remoteErrorFrom(event.error, call.url, call.requestId);
    return { value: event.result, bytes: resultBytes(event, this.context.config.limits.maxResponseBytes) };
  }

  async *stream(call: OutboundCall): AsyncGenerator<InboundEvent> {
    const channel = await this.openChannel(call);
    const events = channel.client.makeServerStreamRequest(
      channel.streamPath,
      identity,
      identity,
      requestMessage(call, this.codec, 'stream'),
      metadataOf(channel.grpc, call),
    );
    this.inFlight.add(events);
    // The status of a call this side cancelled arrives as an 'error' after the reading is over.
    events.on('error', ignore);
    const stopListening = call.cancellation.onAbort(() => events.cancel());
    // grpc-js reads the next message only when the stream is read: a slow consumer leaves the
    // messages in the HTTP/2 stream's flow-control window, and the server waits.
    const messages = (events as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    let ended = false;
    try {
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await messages.next();
        } catch (error) {
          ended = true;
          throw this.failureOf(error, call, channel, 'event');
        }
        if (next.done) {
          ended = true;
          return;
        }
        const event = readAnswer(next.value, 'stream', call);
        yield event;
        if (event.final || !event.ok) return;
      }
    } finally {
      stopListening();
      this.inFlight.delete(events);
      // Leaving before the server ended the call (consumer stopped, final event read, an
      // unreadable answer) cancels its HTTP/2 stream; the server sees its caller go away.
      if (!ended) {
        events.cancel();
        await messages.return?.();
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const call of [...this.inFlight]) call.cancel();
    this.inFlight.clear();
    const channels = [...this.channels.values()];
    this.channels.clear();
    for (const pending of channels) {
      const channel = await pending.catch(() => null);
      channel?.client.close();
    }
  }

  /** The channel for a call about to be made; none once the client is closed. */
  private async openChannel(call: OutboundCall): Promise<GrpcChannel> {
    const channel = this.closed ? null : await this.channel(call);
    if (!channel || this.closed) throw closedBefore(call, 'the call was made');
    return channel;
  }

  /**
   * A failed call in the transport taxonomy. One this client cancelled as it closed says so; one
   * that failed for want of a connection (grpc-js's UNAVAILABLE) carries the connection's own
   * failure as its cause (channel-credentials.ts), which errors.ts sorts. Any other status is
   * the server's answer, and the channel's last failure may be an older connection's: it is
   * left out there, or a NOT_FOUND would read as a dropped connection (retried) and any
   * answer after a stale TLS failure as a refused certificate. `kind` is what the call receives,
   * for the limit error when grpc-js refused it as over the channel's receive limit.
   */
  private failureOf(error: unknown, call: OutboundCall, channel: GrpcChannel, kind: ReceiveLimit['kind']): unknown {
    if (this.closed && !call.cancellation.aborted) return closedBefore(call, 'the answer was complete');
    const failure = channel.failure.last;
    if (failure && (error as Partial<ServiceError>).code === GrpcStatus.UNAVAILABLE && error instanceof Error) {
      error.cause ??= failure;
    }
    return errorFromCall(error, call, { bytes: channel.receiveLimit, kind });
  }

  /** The channel for the call's peer; control-plane calls use their own. */
  private channel(call: OutboundCall): Promise<GrpcChannel> {
    const key = `${call.controlPlane ? 'control' : 'work'} ${call.url}`;
    let channel = this.channels.get(key);
    if (!channel) {
      channel = this.open(call.url);
      this.channels.set(key, channel);
      channel.catch(() => this.channels.delete(key));
    }
    return channel;
  }

  private async open(url: string): Promise<GrpcChannel> {
    const grpc = await loadGrpcJs();
    const { config } = this.context;
    const parsed = new URL(url);
    const secure = parsed.protocol === 'grpcs:';
    const failure = new ConnectionFailure();
    const target = `${parsed.hostname}:${parsed.port || (secure ? 443 : 80)}`;
    const credentials = channelCredentials(grpc, parsed.hostname, secure ? this.context.clientTls() : false, failure);
    const options = channelOptions(config.grpc.channelOptions, wireOptions(config));
    const client = new grpc.Client(target, credentials, options);
    if (this.closed) client.close();
    const prefix = parsed.pathname.replace(/\/$/, '');
    const receiveLimit = options['grpc.max_receive_message_length'] as number;
    return { grpc, client, invokePath: prefix + INVOKE_PATH, streamPath: prefix + STREAM_PATH, failure, receiveLimit };
  }
}

/**
 * grpc-js's channel options: every key of `grpc.channelOptions` as given, with the values
 * derived from the configuration (which the same keys replace, see options.ts) over them.
 */
function channelOptions(given: Readonly<Record<string, number | string>>, wire: WireOptions): ChannelOptions {
  const unlimited = (bytes: number) => (bytes >= MAX_MESSAGE_BYTES ? -1 : bytes);
  return {
    ...given,
    'grpc.max_receive_message_length': unlimited(wire.receiveMaxBytes),
    'grpc.max_send_message_length': unlimited(wire.sendMaxBytes),
    ...(wire.keepaliveTimeMs > 0
      ? { 'grpc.keepalive_time_ms': wire.keepaliveTimeMs, 'grpc.keepalive_timeout_ms': wire.keepaliveTimeoutMs }
      : {}),
    // Each channel its own connection: the control-plane channel must not share the work's.
    'grpc.use_local_subchannel_pool': 1,
    'grpc.enable_retries': 0,
    // Channelz (grpc-js's introspection, which parley does not serve) costs on every call.
    'grpc.enable_channelz': 0,
  };
}

/** Call metadata: the caller's headers (auth included), then the correlation ids and trace context. */
function metadataOf(grpc: GrpcJsModule, call: OutboundCall): Metadata {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(call.headers)) {
    if (RESERVED.has(name) || name.startsWith(':') || name.startsWith('grpc-')) continue;
    // A `-bin` key carries bytes; a header value for one is their base64 text.
    metadata.set(name, name.endsWith('-bin') ? Buffer.from(value, 'base64') : value);
  }
  metadata.set(METADATA.requestId, call.requestId);
  if (call.idempotencyKey) metadata.set(METADATA.idempotencyKey, call.idempotencyKey);
  if (call.trace) {
    const trace: Record<string, string> = {};
    writeTraceHeaders(trace, call.trace);
    for (const [name, value] of Object.entries(trace)) metadata.set(name, value);
  }
  return metadata;
}

/** A call cut off, or refused, because the client was closed. */
/**
 * The deadline the server is told (`grpc-timeout`), so it stops the work at the deadline even
 * when the cancellation never reaches it. Counted from now, a little after the attempt's own
 * timer started: that timer fires first and decides the error this side reports.
 */
function deadlineOf(call: OutboundCall): CallOptions {
  return call.timeoutMs === null ? {} : { deadline: Date.now() + call.timeoutMs };
}

function closedBefore(call: OutboundCall, what: string): TransportConnectionError {
  return new TransportConnectionError(`grpc client for ${call.url} closed before ${what}`, {
    url: call.url,
    requestId: call.requestId,
  });
}
