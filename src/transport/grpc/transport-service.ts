// svc.transport.v1.SvcTransport served over the shared dispatcher as @grpc/grpc-js handlers:
// Invoke carries one request envelope to one response envelope; Stream carries one request
// envelope to the task's event envelopes, the last one with `final` true.
//
// Messages reach the handlers as bytes (identity serializers) with the call's CallContext
// (refused-calls.ts); message-encoding.ts picks the codec that reads them and writes the
// answers, binary protobuf or JSON. Application errors come back as an `ok: false` envelope
// with the wire error object (see errors.ts for why); only a missing or rejected credential
// aborts the call, with UNAUTHENTICATED, as the spec requires. Every call holds one of the
// `maximum_concurrent_rpcs` slots while it runs (a stream for its whole life), except
// control-plane calls, which must reach the work they control however busy the server is.
import type {
  Metadata,
  sendUnaryData,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { isLargePayload, largePayloadTurn } from '../../core/large-payload-turns.js';
import type { Dispatcher, StreamFrame } from '../dispatcher.js';
import type { Endpoint } from '../endpoint.js';
import { type EndpointError, toEndpointError } from '../endpoint-error.js';
import type { Slots } from '../slots.js';
import { METADATA } from './codec.js';
import { CallStatus, GrpcStatus } from './errors.js';
import { callStatusOf } from './call-status.js';
import type { GrpcJsModule } from './load.js';
import { codecFor, type EnvelopeCodec } from './message-encoding.js';
import type { CallContext, ReceivedMessage } from './refused-calls.js';
import { writeInTurn } from './stream-write.js';

export const INVOKE_PATH = '/svc.transport.v1.SvcTransport/Invoke';
export const STREAM_PATH = '/svc.transport.v1.SvcTransport/Stream';

export interface TransportServiceOptions {
  readonly grpc: GrpcJsModule;
  readonly dispatcher: Dispatcher;
  /** `maximum_concurrent_rpcs`: excess calls wait here for a slot. */
  readonly rpcSlots: Slots;
}

const identity = (bytes: Buffer): Buffer => bytes;
const unchanged = {
  requestSerialize: identity,
  requestDeserialize: identity,
  responseSerialize: identity,
  responseDeserialize: identity,
};

/** The service's methods as grpc-js sees them: bytes in, bytes out. */
export const transportDefinition: ServiceDefinition = {
  invoke: { path: INVOKE_PATH, requestStream: false, responseStream: false, ...unchanged },
  stream: { path: STREAM_PATH, requestStream: false, responseStream: true, ...unchanged },
};

type UnaryCall = ServerUnaryCall<ReceivedMessage, Buffer>;
type StreamCall = ServerWritableStream<ReceivedMessage, Buffer>;

export function createTransportService(options: TransportServiceOptions): UntypedServiceImplementation {
  const { grpc, dispatcher, rpcSlots } = options;
  const report = (where: string, error: unknown) => dispatcher.reportEscaped(where, error);

  /** Response metadata: the codec's content type and, once known, the request id. */
  const responseMetadata = (codec: EnvelopeCodec, requestId: string | null): Metadata => {
    const metadata = new grpc.Metadata();
    if (codec.contentType !== null) metadata.set('content-type', codec.contentType);
    if (requestId !== null) metadata.set(METADATA.requestId, requestId);
    return metadata;
  };

  /** The status a failed call ends with; metadata only when no headers went out before it. */
  const statusOf = (error: unknown, codec: EnvelopeCodec, headersSent: boolean) => {
    const status = callStatusOf(error, report);
    return { code: status.code, details: status.message, metadata: headersSent ? undefined : responseMetadata(codec, null) };
  };

  /** Auth failures end the call; every other EndpointError becomes an envelope. */
  const throwIfUnauthenticated = (error: EndpointError): void => {
    if (error.status === 401) throw new CallStatus(GrpcStatus.UNAUTHENTICATED, error.message);
  };

  /** A call whose client went away while it waited for a slot ends as CANCELLED. */
  const acquire = async (context: CallContext): Promise<() => void> => {
    try {
      return await rpcSlots.acquire(() => context.abort.signal);
    } catch {
      throw new CallStatus(GrpcStatus.CANCELLED, 'the call was cancelled while waiting for a slot');
    }
  };

  /**
   * The answer to a call refused before dispatch; its size goes into the count (refused-calls.ts).
   * Nesting past the limit ends the call with INVALID_ARGUMENT, as deeper nesting that the
   * message parser refuses does.
   */
  const refuse = (
    context: CallContext,
    codec: EnvelopeCodec,
    requestId: string,
    error: EndpointError,
    tooDeep = false,
    route: { readonly method: string; readonly path: string } | null = null,
  ) => {
    context.refused = {
      requestId,
      method: route?.method ?? null,
      path: route?.path ?? null,
      error: { status: error.status, code: error.code },
    };
    if (tooDeep) throw new CallStatus(GrpcStatus.INVALID_ARGUMENT, error.message);
    const object = error.toObject(requestId);
    context.errorBytes = Buffer.byteLength(JSON.stringify(object));
    return codec.failure(requestId, object);
  };

  /** Invoke's answer message; the response headers go out as soon as the request id is known. */
  const answerInvoke = async (call: UnaryCall, codec: EnvelopeCodec): Promise<Buffer> => {
    const { bytes, context } = call.request;
    // A large message's decoding (on a worker, or in a turn), its serving and its answer's
    // encoding are heavy steps: each waits for its turn.
    const large = isLargePayload(bytes.length);
    const decoded = large
      ? await codec.decodeLarge(bytes, call.metadata, context.abort)
      : codec.decode(bytes, call.metadata, context.abort);
    call.sendMetadata(responseMetadata(codec, decoded.requestId));
    if (!decoded.ok) return refuse(context, codec, decoded.requestId, decoded.error, decoded.tooDeep);
    const { requestId, inbound } = decoded;
    let release: (() => void) | null = null;
    try {
      const endpoint = dispatcher.route(inbound.method, inbound.path);
      // Control-plane calls (cancellation, probes) never wait behind the work they control;
      // model-backed calls wait for a model slot in the dispatcher, holding no RPC slot.
      if (!endpoint.spec.controlPlane && !endpoint.modelBacked) release = await acquire(context);
      context.dispatched = true;
      if (large) await largePayloadTurn();
      const outcome = await dispatcher.unary(inbound, endpoint);
      if (outcome.kind === 'text') return codec.text(requestId, outcome.text);
      if (isLargePayload(outcome.encoded.bytes)) return await codec.successLarge(requestId, outcome.encoded);
      return codec.success(requestId, outcome.encoded);
    } catch (raw) {
      if (raw instanceof CallStatus) throw raw;
      const error = toEndpointError(raw);
      if (!context.dispatched) return refuse(context, codec, requestId, error, false, inbound);
      throwIfUnauthenticated(error);
      return codec.failure(requestId, error.toObject(requestId));
    } finally {
      release?.();
    }
  };

  const invoke = (call: UnaryCall, callback: sendUnaryData<Buffer>): void => {
    const { bytes, context } = call.request;
    const codec = codecFor(bytes, 'invoke');
    answerInvoke(call, codec).then(
      (message) => {
        // grpc-js copies the message into its frame: for a large one, a heavy step of its own.
        if (isLargePayload(message.length)) void largePayloadTurn().then(() => callback(null, message));
        else callback(null, message);
      },
      (error: unknown) => callback(statusOf(error, codec, context.headersSent)),
    );
  };

  const write = (call: StreamCall, context: CallContext, message: Buffer) => writeInTurn(call, context, message);

  /** Stream's events, written as they come; the call is ended by the caller. */
  const answerStream = async (call: StreamCall, codec: EnvelopeCodec): Promise<void> => {
    const { bytes, context } = call.request;
    const large = isLargePayload(bytes.length);
    const decoded = large
      ? await codec.decodeLarge(bytes, call.metadata, context.abort)
      : codec.decode(bytes, call.metadata, context.abort);
    call.sendMetadata(responseMetadata(codec, decoded.requestId));
    if (!decoded.ok) {
      await write(call, context, refuse(context, codec, decoded.requestId, decoded.error, decoded.tooDeep));
      return;
    }
    const { requestId, inbound } = decoded;
    // Routed before waiting for a slot: an unknown path is refused at once, as a request
    // (the stream never opened), like on the other transports.
    let endpoint: Endpoint;
    try {
      endpoint = dispatcher.route(inbound.method, inbound.path);
    } catch (raw) {
      await write(call, context, refuse(context, codec, requestId, toEndpointError(raw), false, inbound));
      return;
    }
    const release = endpoint.modelBacked ? () => undefined : await acquire(context);
    try {
      let frames: AsyncGenerator<StreamFrame, void, undefined>;
      try {
        context.dispatched = true;
        if (large) await largePayloadTurn();
        frames = await dispatcher.openStream(inbound, endpoint);
      } catch (raw) {
        // Refused before the first event (auth, validation), counted as a failed stream.
        const error = toEndpointError(raw);
        throwIfUnauthenticated(error);
        await write(call, context, codec.failure(requestId, error.toObject(requestId)));
        return;
      }
      // Leaving this loop early (the client went away, the final event) returns `frames`,
      // which releases the dispatcher's stream slot and counts a stream that did not finish
      // as failed.
      for await (const frame of frames) {
        const message = frame.ok
          ? codec.event(requestId, frame.encoded, frame.value, frame.final)
          : codec.failure(requestId, frame.error);
        if (!(await write(call, context, message)) || frame.final) return;
      }
    } finally {
      release();
    }
  };

  const stream = (call: StreamCall): void => {
    const { bytes, context } = call.request;
    const codec = codecFor(bytes, 'stream');
    answerStream(call, codec).then(
      () => call.end(),
      // grpc-js ends a server stream with the status of an 'error' it is given.
      (error: unknown) => call.emit('error', statusOf(error, codec, context.headersSent)),
    );
  };

  return { invoke, stream };
}
