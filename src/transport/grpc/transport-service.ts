// svc.transport.v1.SvcTransport served over the shared dispatcher: Invoke carries one request
// envelope to one response envelope; Stream carries one request envelope to the task's
// event envelopes, the last one with `final` true.
//
// Application errors come back as an `ok: false` envelope with the wire error object (see
// errors.ts for why); only a missing or rejected credential aborts the call, with
// UNAUTHENTICATED, as the spec requires. Every call holds one of the `maximum_concurrent_rpcs`
// slots while it runs (a stream for its whole life), except control-plane calls, which must
// reach the work they control however busy the server is. A call refused before it reaches
// the dispatcher is counted by refused-calls.ts; the service marks which calls got there.
//
// The same service runs over two message shapes (an EnvelopeCodec each): the envelope
// messages of transport.proto, whose JSON payloads are google.protobuf.Value trees (binary
// protobuf clients), and the envelope's JSON text as bytes (every JSON client, see
// json-method.ts), where payloads never become Value trees.
import type { Code, HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { SvcTransport } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import type { EncodedJson } from '../../core/json.js';
import type { Dispatcher, StreamFrame } from '../dispatcher.js';
import type { Endpoint } from '../endpoint.js';
import { type EndpointError, toEndpointError, type ErrorObject } from '../endpoint-error.js';
import type { Slots } from '../slots.js';
import type { ConnectModule } from './load.js';
import {
  METADATA,
  decodeRequest,
  failureEnvelope,
  successEnvelope,
  valueEnvelope,
  textEnvelope,
  type DecodedRequest,
  type RequestEnvelope,
  type ResponseEnvelope,
} from './codec.js';
import { reportingEscapedErrors } from './escaped-errors.js';
import type { CallTally, RefusedCalls } from './refused-calls.js';
import { GrpcStatus } from './errors.js';

export interface TransportServiceOptions {
  readonly connect: ConnectModule;
  readonly dispatcher: Dispatcher;
  /** `maximum_concurrent_rpcs`: excess calls wait here for a slot. */
  readonly rpcSlots: Slots;
  /** Where a call is marked as dispatched, or notes the error it was refused with. */
  readonly refused: RefusedCalls;
}

/** How one message shape carries request and response envelopes. */
export interface EnvelopeCodec<Request, Response> {
  decode(request: Request, metadata: Headers, signal: AbortSignal): DecodedRequest;
  /** A unary JSON result, as the text the dispatcher encoded and size-checked. */
  success(requestId: string, encoded: EncodedJson): Response;
  /** A text/html result. */
  text(requestId: string, html: string): Response;
  /** A stream event: its encoded text and the normalized value it was made from. */
  event(requestId: string, encoded: EncodedJson, value: unknown, final: boolean): Response;
  failure(requestId: string, error: ErrorObject): Response;
}

/** The envelope messages of transport.proto, payloads as google.protobuf.Value. */
const protoEnvelopes: EnvelopeCodec<RequestEnvelope, ResponseEnvelope> = {
  decode: decodeRequest,
  success: (requestId, encoded) => successEnvelope(requestId, encoded.text, true),
  text: textEnvelope,
  event: (requestId, _encoded, value, final) => valueEnvelope(requestId, value, final),
  failure: failureEnvelope,
};

export interface TransportHandlers<Request, Response> {
  invoke(request: Request, context: HandlerContext): Promise<Response>;
  stream(request: Request, context: HandlerContext): AsyncGenerator<Response>;
}

export function createTransportService(options: TransportServiceOptions): ServiceImpl<typeof SvcTransport> {
  return reportingEscapedErrors(createTransportHandlers(options, protoEnvelopes));
}

export function createTransportHandlers<Request, Response>(
  options: TransportServiceOptions,
  codec: EnvelopeCodec<Request, Response>,
): TransportHandlers<Request, Response> {
  const { connect, dispatcher, rpcSlots, refused } = options;

  /** Auth failures abort the call; every other EndpointError becomes an envelope. */
  const abortIfUnauthenticated = (error: EndpointError): void => {
    if (error.status === 401) {
      throw new connect.ConnectError(error.message, GrpcStatus.UNAUTHENTICATED as Code);
    }
  };

  /** A call whose client went away while it waited for a slot ends as CANCELLED. */
  const acquire = async (context: HandlerContext): Promise<() => void> => {
    try {
      return await rpcSlots.acquire(context.signal);
    } catch (error) {
      throw new connect.ConnectError(
        'the call was cancelled while waiting for a slot',
        GrpcStatus.CANCELLED as Code,
        undefined,
        undefined,
        error,
      );
    }
  };

  /**
   * The answer to a call refused before dispatch; its size goes into the count (refused-calls.ts).
   * Nesting past the limit ends the call with INVALID_ARGUMENT, as deeper nesting that the
   * message parser refuses does.
   */
  const refuse = (tally: CallTally, requestId: string, error: EndpointError, tooDeep = false): Response => {
    if (tooDeep) throw new connect.ConnectError(error.message, GrpcStatus.INVALID_ARGUMENT as Code);
    const object = error.toObject(requestId);
    tally.errorBytes = Buffer.byteLength(JSON.stringify(object));
    return codec.failure(requestId, object);
  };

  return {
    async invoke(request: Request, context: HandlerContext): Promise<Response> {
      const tally = refused.tally(context);
      const decoded = codec.decode(request, context.requestHeader, context.signal);
      context.responseHeader.set(METADATA.requestId, decoded.requestId);
      if (!decoded.ok) return refuse(tally, decoded.requestId, decoded.error, decoded.tooDeep);
      const { requestId, inbound } = decoded;
      let release: () => void = () => undefined;
      try {
        const endpoint = dispatcher.route(inbound.method, inbound.path);
        // Control-plane calls (cancellation) never wait behind the work they control.
        if (!endpoint.spec.controlPlane) release = await acquire(context);
        tally.dispatched = true;
        const outcome = await dispatcher.unary(inbound, endpoint);
        return outcome.kind === 'json' ? codec.success(requestId, outcome.encoded) : codec.text(requestId, outcome.text);
      } catch (raw) {
        if (raw instanceof connect.ConnectError) throw raw;
        const error = toEndpointError(raw);
        if (!tally.dispatched) return refuse(tally, requestId, error);
        abortIfUnauthenticated(error);
        return codec.failure(requestId, error.toObject(requestId));
      } finally {
        release();
      }
    },

    async *stream(request: Request, context: HandlerContext): AsyncGenerator<Response> {
      const tally = refused.tally(context);
      const decoded = codec.decode(request, context.requestHeader, context.signal);
      context.responseHeader.set(METADATA.requestId, decoded.requestId);
      if (!decoded.ok) {
        yield refuse(tally, decoded.requestId, decoded.error, decoded.tooDeep);
        return;
      }
      const { requestId, inbound } = decoded;
      // Routed before waiting for a slot: an unknown path is refused at once, as a request
      // (the stream never opened), like on the other transports.
      let endpoint: Endpoint;
      try {
        endpoint = dispatcher.route(inbound.method, inbound.path);
      } catch (raw) {
        yield refuse(tally, requestId, toEndpointError(raw));
        return;
      }
      const release = await acquire(context);
      try {
        let frames: AsyncGenerator<StreamFrame, void, undefined>;
        try {
          tally.dispatched = true;
          frames = await dispatcher.openStream(inbound, endpoint);
        } catch (raw) {
          // Refused before the first event (auth, validation), counted as a failed stream.
          const error = toEndpointError(raw);
          abortIfUnauthenticated(error);
          yield codec.failure(requestId, error.toObject(requestId));
          return;
        }
        // Leaving this loop early (the client cancelled, a write failed) returns `frames`,
        // which releases the dispatcher's stream slot and counts the stream as failed.
        for await (const frame of frames) {
          yield frame.ok
            ? codec.event(requestId, frame.encoded, frame.value, frame.final)
            : codec.failure(requestId, frame.error);
          if (frame.final) return;
        }
      } finally {
        release();
      }
    },
  };
}
