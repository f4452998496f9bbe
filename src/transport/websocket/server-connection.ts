// One accepted websocket connection on the server. Frames are served concurrently up to a
// bound; beyond it they wait in a short queue and the socket stops being read, so a client
// that pipelines faster than the handlers run is slowed down instead of buffered without
// end. Every request of the connection carries the credentials of its handshake, and all of
// them are aborted when the connection goes away (which releases their stream slots). The
// handshake's credentials count until they expire: then the connection is closed with 4401,
// and a frame that arrives first is refused as unauthenticated before the close.
import type { SecurityContext } from '../../../generated/types/index.js';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { ResolvedConfig } from '../config.js';
import type { Dispatcher } from '../dispatcher.js';
import { Inbound, type Endpoint, type InboundRequest } from '../endpoint.js';
import { LazyAbort } from '../../core/lazy-abort.js';
import { toEndpointError, type EndpointError } from '../endpoint-error.js';
import {
  decodeLargeRequestFrame,
  decodeRequestFrame,
  errorFrame,
  frameBytes,
  okFrame,
  TEXT_FRAME,
  type RawData,
} from './codec.js';
import { isLargePayload, largePayloadTurn } from '../../core/large-payload-turns.js';
import { utf8InTurns } from '../../core/utf8-in-turns.js';
import { startPings } from './keepalive.js';
import { StreamCork } from '../stream-cork.js';
import { closeWithin } from '../close-within.js';
import { CREDENTIALS_EXPIRED, expiryOf, whenExpired } from '../credential-expiry.js';
import { CLOSE_CREDENTIALS_EXPIRED } from './close-codes.js';

/** Above this many bytes waiting in the socket, senders wait for it to drain. */
const SEND_HIGH_WATER = 1024 * 1024;

export class ServerConnection {
  private readonly waiting: Array<{ readonly data: RawData; readonly isBinary: boolean }> = [];
  private serving = 0;
  /** Called once the last frame being served has had its answer written (a graceful close waits for it). */
  private onIdle: (() => void) | null = null;
  /**
   * Aborts every request of the connection when it closes. One for all of them: the protocol
   * has no way to cancel a single request, only to go away.
   */
  private readonly gone = new LazyAbort();
  /** Resolves once the socket has closed and every request on it was aborted. */
  readonly closed: Promise<void>;

  /** Gathers stream frames into few writes (one a turn, at most one a flush interval). */
  private readonly cork: StreamCork;

  constructor(
    private readonly socket: WebSocket,
    /** The TCP (or TLS) socket under `socket`, corked while a turn's frames are written. */
    raw: Duplex,
    private readonly dispatcher: Dispatcher,
    private readonly credentials: string | null,
    /** The handshake's security context, so frames are not authenticated one by one. */
    private readonly authenticated: SecurityContext | null | undefined,
    private readonly config: ResolvedConfig,
  ) {
    this.cork = new StreamCork(raw, config.streamFlushInterval * 1000);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      // The common case, a free slot and nobody ahead, is served at once, without the queue.
      if (this.serving < config.limits.maxConcurrentRequests && this.waiting.length === 0) void this.start(data, isBinary);
      else {
        this.waiting.push({ data, isBinary });
        this.pump();
      }
    });
    // ws reports protocol violations (an oversize frame, bad UTF-8) here and then closes the
    // connection with the matching close code; the close is all this side sends. The frame is
    // still a refused request: counted, without a size, which ws does not report.
    socket.on('error', () => dispatcher.countRefused(0, 0));
    const expiresAt = expiryOf(authenticated);
    const stopWaiting = expiresAt === null ? null : whenExpired(expiresAt, () => this.expire());
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        stopWaiting?.();
        this.waiting.length = 0;
        this.gone.abort(new Error('websocket connection closed'));
        resolve();
      });
    });
    startPings(socket, config.keepaliveInterval, config.keepaliveTimeout);
  }

  /** Sends a close frame; a peer that has not closed after `timeoutMs` is cut off. */
  async close(timeoutMs: number, code = 1001, reason = 'server shutting down'): Promise<void> {
    if (this.socket.readyState === this.socket.CLOSED) return this.closed;
    // Answers still being written go out before the close frame (bounded by the same deadline).
    if (this.serving > 0 && code === 1001) {
      await closeWithin(new Promise<void>((resolve) => (this.onIdle = resolve)), timeoutMs);
      this.onIdle = null;
    }
    // Held frames go before the close frame.
    this.cork.flush();
    this.socket.close(code, reason);
    await closeWithin(this.closed, timeoutMs, () => this.socket.terminate());
  }

  /** The handshake's credentials expired: nothing more is served on this connection. */
  private expire(): void {
    this.waiting.length = 0;
    void this.close(this.config.shutdownTimeout * 1000, CLOSE_CREDENTIALS_EXPIRED, CREDENTIALS_EXPIRED);
  }

  /**
   * Serving a frame failed outside every answer path: the connection can no longer be trusted
   * to answer in order, so it is closed (1011, internal error); the process carries on.
   */
  private escaped(error: unknown): void {
    this.dispatcher.reportEscaped('a websocket connection handler', error);
    this.waiting.length = 0;
    void this.close(this.config.shutdownTimeout * 1000, 1011, 'internal error');
  }

  private pump(): void {
    const capacity = this.config.limits.maxConcurrentRequests;
    while (this.serving < capacity && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      void this.start(next.data, next.isBinary);
    }
    if (this.waiting.length > 0) {
      if (!this.socket.isPaused) this.socket.pause();
    } else if (this.socket.isPaused) {
      this.socket.resume();
    }
  }

  /**
   * Serves one frame in a slot and frees the slot after. The bookkeeping sits in the one async
   * function that serves the frame, rather than in promise handlers chained to it: those would
   * be three more promises and two closures for every frame.
   */
  private async start(data: RawData, isBinary: boolean): Promise<void> {
    this.serving++;
    try {
      await this.serve(data, isBinary);
    } catch (error) {
      this.escaped(error);
    } finally {
      this.serving--;
      this.pump();
      if (this.serving === 0) this.onIdle?.();
    }
  }

  private async serve(data: RawData, isBinary: boolean): Promise<void> {
    // Timed here only for the log line of a frame refused before dispatch (which times the rest).
    const arrived = this.dispatcher.logging ? performance.now() : 0;
    // A large frame's decoding, then its serving, are heavy steps: each waits for its turn.
    const large = isLargePayload(frameBytes(data));
    if (large) await largePayloadTurn();
    const maxRequestBytes = this.config.limits.maxRequestBytes;
    const decoded = large
      ? await decodeLargeRequestFrame(data, isBinary, maxRequestBytes)
      : decodeRequestFrame(data, isBinary, maxRequestBytes);
    if (!decoded.ok) return this.refuse(decoded.id, decoded.error, decoded.bytes, arrived);
    const frame = decoded.frame;
    let endpoint: Endpoint;
    try {
      endpoint = this.dispatcher.route(frame.method, frame.path);
    } catch (error) {
      return this.refuse(frame.id, toEndpointError(error), frame.bytes, arrived, frame);
    }
    const request = new Inbound(
      {
        method: frame.method,
        path: frame.path,
        data: frame.data,
        params: frame.params,
        requestId: frame.id,
        idempotencyKey: frame.idempotencyKey,
        credentials: this.credentials,
        receivedBytes: frame.bytes,
        authenticated: this.authenticated,
        trace: frame.trace,
      },
      this.gone,
    );
    if (large) await largePayloadTurn();
    try {
      if (endpoint.spec.streaming) await this.serveStream(endpoint, request);
      else await this.serveUnary(endpoint, request);
    } catch (error) {
      // The dispatcher has counted this one already.
      const failure = toEndpointError(error);
      await this.send(errorFrame(frame.id, failure.toObject(frame.id)));
      // Refused for the handshake's credentials (expired before the timer said so): the
      // connection has nothing left to serve.
      if (failure.code === 'unauthenticated' && this.authenticated) this.expire();
    }
  }

  /**
   * Answers a frame refused before it reached the dispatcher (unreadable, not an envelope,
   * no such route) and counts it, as the http transport counts the requests it refuses.
   */
  private refuse(
    id: string | null,
    error: EndpointError,
    receivedBytes: number,
    startedAt: number,
    route: { readonly method: string | null; readonly path: string | null } = UNREADABLE,
  ): Promise<void> {
    const text = errorFrame(id, error.toObject(id));
    const { method, path } = route;
    this.dispatcher.countRefused(receivedBytes, Buffer.byteLength(text), { requestId: id, method, path, error, startedAt });
    return this.send(text);
  }

  private async serveUnary(endpoint: Endpoint, request: InboundRequest): Promise<void> {
    const outcome = await this.dispatcher.unary(request, endpoint);
    const result = outcome.kind === 'json' ? outcome.encoded.text : JSON.stringify(outcome.text);
    const frame = okFrame(request.requestId, result, true);
    // A large answer's frame is encoded as UTF-8 a slice per turn, then sent as those bytes.
    const large = outcome.kind === 'json' && isLargePayload(outcome.encoded.bytes);
    await this.send(large ? await utf8InTurns(frame) : frame);
  }

  /** Errors before the first event are thrown (one error frame); after it, frames carry them. */
  private async serveStream(endpoint: Endpoint, request: InboundRequest): Promise<void> {
    const frames = await this.dispatcher.openStream(request, endpoint);
    // Read on past the final frame: the frames end right after it, and ending them ourselves
    // at the final frame would count the stream as failed.
    for await (const frame of frames) {
      if (this.gone.aborted) break;
      await this.send(
        frame.ok ? okFrame(request.requestId, frame.encoded.text, frame.final) : errorFrame(request.requestId, frame.error),
        !frame.final,
      );
    }
  }

  /**
   * Sends a frame; resolves at once unless the socket's buffer is full, then once it drains.
   * A stream's frames before its last (`held`) may wait for the ones that follow (StreamCork);
   * anything else goes out at once, with whatever was held before it.
   */
  private send(text: string | Buffer, held = false): Promise<void> {
    if (this.socket.readyState !== this.socket.OPEN) return SENT;
    if (held) this.cork.hold();
    // Below the high-water mark nobody waits, so no write callback is needed either. A string
    // goes to ws as it is: a server's frames are not masked, so ws measures it and the socket
    // writes it as UTF-8 straight from the string. Made a Buffer here first, the frame was
    // joined into one string, measured, copied into a pooled Buffer and wrapped, per answer.
    // For the mark, a string's length stands for its size (short of it for text that is not
    // ASCII): close enough for a bound of 1 MiB, and no scan of the text.
    if (this.socket.bufferedAmount + text.length <= SEND_HIGH_WATER) {
      this.socket.send(text, TEXT_FRAME);
      if (!held) this.cork.flush();
      return SENT;
    }
    // Past the high-water mark nothing is held: the answer is waited for.
    const sent = new Promise<void>((resolve) => this.socket.send(text, TEXT_FRAME, () => resolve()));
    this.cork.flush();
    return sent;
  }
}

const SENT = Promise.resolve();

/** The route of a frame that could not be read as a request: none. */
const UNREADABLE = { method: null, path: null } as const;
