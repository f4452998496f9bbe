// What every SvcTransport call carries from grpc-js to the service, and the count of the calls
// that never reach the dispatcher, as the http transport counts the requests it refuses, so
// the metrics show every call that arrived.
//
// grpc-js refuses some calls before any service code runs (a message over the receive limit,
// a compressed message that does not decompress, a body without a whole message, a deadline
// that passed first); the service refuses others itself (a message that is not an envelope,
// an envelope without method or path, an unknown route, a call cancelled while it waited for a
// slot). What reaches dispatcher.unary or openStream is counted there, so not here.
//
// A server interceptor (grpc-js's `interceptors` option) sits between grpc-js's call and the
// service for the SvcTransport methods only. It hands the service each request message with
// the call's CallContext, and sees the call end (grpc-js reports the end of every call, answered
// or not, as the listener's onCancel): a call not marked dispatched by then is counted as
// refused, with the bytes it sent and the status message it got.
import type { Metadata, ServerInterceptingCall, ServerInterceptingCallInterface, ServerInterceptor } from '@grpc/grpc-js';
import { LazyAbort } from '../../core/lazy-abort.js';
import type { Refusal, RequestEnding } from '../hooks.js';
import type { Dispatcher } from '../dispatcher.js';
import { GrpcStatus, statusName } from './errors.js';

/** What grpc-js's call reports to (a type grpc-js does not export by name). */
type InterceptingServerListener = Parameters<ServerInterceptingCallInterface['start']>[0];

/** A status as a call sends it (grpc-js's PartialStatusObject, not exported by name). */
type CallStatusObject = Parameters<ServerInterceptingCallInterface['sendStatus']>[0];

/** The length prefix in front of every gRPC message. */
const PREFIX_BYTES = 5;

/** The state of one SvcTransport call that the service and the interceptor share. */
export class CallContext {
  /** Aborted when the call ends before the service answered it (the client left, a deadline passed). */
  readonly abort = new LazyAbort();
  /** Bytes of the request messages, frame prefixes included (decompressed sizes). */
  received = 0;
  /** Set just before the call goes to dispatcher.unary or openStream, which count it. */
  dispatched = false;
  /** Set once the response headers went out (a failure after that sends its status as trailers). */
  headersSent = false;
  /** Set once the service has sent the call's status. */
  answered = false;
  /**
   * Size of what a refused call was answered with: the error object of an `ok: false`
   * envelope (set by the service), or the status message as it goes on the wire.
   */
  errorBytes = 0;
  /** What the service knew of a call it refused (request id, route, error), for the log line. */
  refused: Omit<Refusal, 'startedAt'> | null = null;
  /** performance.now() when the call arrived; only measured when the server logs requests. */
  startedAt = 0;
}

/**
 * The HTTP-like status a request log line gives a call refused with a gRPC status and no wire
 * error object (the usual gRPC-to-HTTP pairs; CANCELLED is nginx's 499 "client closed").
 */
const REFUSAL_STATUS: Readonly<Record<number, number>> = {
  [GrpcStatus.CANCELLED]: 499,
  [GrpcStatus.INVALID_ARGUMENT]: 400,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 413,
  [GrpcStatus.UNIMPLEMENTED]: 404,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.UNAUTHENTICATED]: 401,
};

function endingOf(code: number): RequestEnding {
  return { status: REFUSAL_STATUS[code] ?? 500, code: statusName(code).toLowerCase() };
}

/** A request message as the SvcTransport service receives it. */
export interface ReceivedMessage {
  readonly bytes: Buffer;
  readonly context: CallContext;
}

/** The interceptor that gives the calls to `paths` a CallContext and counts their refusals. */
export function countingRefusals(dispatcher: Dispatcher, paths: ReadonlySet<string>): ServerInterceptor {
  // grpc-js types an interceptor's result as its own ServerInterceptingCall class but uses only
  // the interface, which ContextCall implements; other calls pass through untouched.
  return (method, call) =>
    (paths.has(method.path) ? new ContextCall(call, dispatcher) : call) as unknown as ServerInterceptingCall;
}

/**
 * One call between grpc-js (`next`) and the service's handler (`listener`): it relays every
 * event both ways, wrapping request messages, and is its own listener on grpc-js's side, so a
 * call costs one object here.
 */
class ContextCall implements ServerInterceptingCallInterface, InterceptingServerListener {
  private readonly context = new CallContext();
  private listener: InterceptingServerListener | null = null;
  private messages = 0;

  constructor(
    private readonly next: ServerInterceptingCallInterface,
    private readonly dispatcher: Dispatcher,
  ) {
    if (dispatcher.logging) this.context.startedAt = performance.now();
  }

  // ---- grpc-js to the service

  start(listener: InterceptingServerListener): void {
    this.listener = listener;
    this.next.start(this);
  }

  onReceiveMetadata(metadata: Metadata): void {
    this.listener!.onReceiveMetadata(metadata);
  }

  onReceiveMessage(message: Buffer): void {
    this.messages++;
    this.context.received += PREFIX_BYTES + message.byteLength;
    const received: ReceivedMessage = { bytes: message, context: this.context };
    this.listener!.onReceiveMessage(received);
  }

  onReceiveHalfClose(): void {
    // A body that ended before a whole message (grpc-js would call it UNIMPLEMENTED).
    if (this.messages === 0) {
      this.sendStatus({ code: GrpcStatus.INVALID_ARGUMENT, details: 'the request ended without a whole message' });
      return;
    }
    this.listener!.onReceiveHalfClose();
  }

  /** The end of the call, whichever side ended it. */
  onCancel(): void {
    const { context } = this;
    if (!context.answered) context.abort.abort(new Error('the call ended before it was answered'));
    if (!context.dispatched) {
      const refused = context.refused && { ...context.refused, startedAt: context.startedAt };
      this.dispatcher.countRefused(context.received, context.errorBytes, refused ?? undefined);
    }
    this.listener!.onCancel();
  }

  // ---- the service to grpc-js

  sendMetadata(metadata: Metadata): void {
    this.context.headersSent = true;
    this.next.sendMetadata(metadata);
  }

  sendMessage(message: Buffer, callback: () => void): void {
    this.next.sendMessage(message, callback);
  }

  sendStatus(status: CallStatusObject): void {
    const { context } = this;
    context.answered = true;
    // grpc-js sends the details URI-encoded.
    if (status.code !== 0) {
      context.errorBytes = Buffer.byteLength(encodeURI(status.details ?? ''));
      context.refused ??= { requestId: null, method: null, path: null, error: endingOf(status.code) };
    }
    this.next.sendStatus(status);
  }

  startRead(): void {
    this.next.startRead();
  }

  getPeer() {
    return this.next.getPeer();
  }

  getDeadline() {
    return this.next.getDeadline();
  }

  getHost() {
    return this.next.getHost();
  }

  getAuthContext() {
    return this.next.getAuthContext();
  }

  getConnectionInfo() {
    return this.next.getConnectionInfo();
  }

  getMetricsRecorder() {
    return this.next.getMetricsRecorder();
  }
}
