// One client connection slot: a long-lived websocket, opened lazily with the call's headers
// on the upgrade, carrying one call at a time. A lock serializes the calls; a stream keeps
// it until its final frame. Whenever an answer may still be on its way for a call that is
// over (abort, early exit, protocol violation), the connection is dropped and the next call
// opens a fresh one, so a late frame can never be taken for another call's answer.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { ClientOptions, WebSocket } from 'ws';
import type { LazyAbort } from '../../core/lazy-abort.js';
import type { ClientTlsOptions } from '../../tls/node-tls-options.js';
import type { InboundEvent, InboundReply, OutboundCall } from '../binding.js';
import { resultBytes } from '../envelope.js';
import type { ResolvedConfig } from '../config.js';
import { TransportConnectionError, TransportLimitError, TransportProtocolError } from '../errors.js';
import { mapSocketError } from '../node-failures.js';
import { errorFromResponse, remoteErrorFrom } from '../wire-errors.js';
import { Slots } from '../slots.js';
import { closeWithin } from '../close-within.js';
import { CLOSE_CREDENTIALS_EXPIRED } from './close-codes.js';
import { decodeResponseFrame, maxFrameBytes, requestFrame, sendRequestMessage, type RawData } from './codec.js';
import { startPings } from './keepalive.js';
import { loadWs } from './load.js';

/** Stream frames a slow consumer may leave unread before the socket stops being read. */
const MAX_UNREAD_FRAMES = 16;
/** How much of a refused handshake's body is read for its error object. */
const MAX_HANDSHAKE_BODY = 64 * 1024;

export class ClientConnection {
  private readonly lock = new Slots(1);
  private current: PooledSocket | null = null;
  private readonly open = new Set<PooledSocket>();
  private closed = false;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly clientTls: () => ClientTlsOptions,
  ) {}

  async send(call: OutboundCall): Promise<InboundReply> {
    call.cancellation.throwIfAborted();
    const release = this.lock.tryAcquire() ?? (await this.lock.acquire(() => call.signal));
    let connection: PooledSocket | null = null;
    let answered = false;
    try {
      connection = this.reusable(call) ?? (await this.connect(call));
      const frame = await this.begin(connection, call).next(call.cancellation);
      if (!frame.final) {
        throw new TransportProtocolError(`unary answer from ${call.url} is not marked final`, {
          url: call.url,
          requestId: call.requestId,
        });
      }
      answered = true;
      if (!frame.ok) throw remoteErrorFrom(frame.error, call.url, call.requestId);
      return { value: frame.result, bytes: resultBytes(frame, this.config.limits.maxResponseBytes) };
    } finally {
      if (connection) this.finish(connection, answered);
      release();
    }
  }

  async *stream(call: OutboundCall): AsyncGenerator<InboundEvent, void, undefined> {
    call.cancellation.throwIfAborted();
    const release = this.lock.tryAcquire() ?? (await this.lock.acquire(() => call.signal));
    let connection: PooledSocket | null = null;
    let ended = false;
    try {
      connection = this.reusable(call) ?? (await this.connect(call));
      const exchange = this.begin(connection, call);
      for (;;) {
        const frame = await exchange.next(call.cancellation);
        ended = frame.final;
        yield frame;
        if (ended) return;
      }
    } finally {
      if (connection) this.finish(connection, ended);
      release();
    }
  }

  /** Closes every connection: a close frame first, then a cut after `shutdownTimeout`. */
  async close(): Promise<void> {
    this.closed = true;
    this.current = null;
    const timeoutMs = this.config.shutdownTimeout * 1000;
    await Promise.all([...this.open].map((connection) => connection.close(timeoutMs)));
  }

  /** Starts a call on the connection: its frames go to a fresh exchange. */
  private begin(connection: PooledSocket, call: OutboundCall): Exchange {
    const exchange = new Exchange(call.requestId, connection.socket);
    connection.exchange = exchange;
    connection.raw?.ref();
    // As a Buffer, ws masks the frame into one buffer and writes it once (a string takes a
    // header and a payload write). A write that fails closes the socket; the close handler
    // fails the exchange, so no write callback is needed.
    sendRequestMessage(connection.socket, Buffer.from(requestFrame(call)));
    return exchange;
  }

  /** Ends a call: a connection that may still deliver part of its answer is dropped. */
  private finish(connection: PooledSocket, complete: boolean): void {
    const exchange = connection.exchange;
    connection.exchange = null;
    if (!complete || (exchange && !exchange.complete)) {
      this.drop(connection);
      return;
    }
    if (connection.socket.isPaused) connection.socket.resume();
    // An idle connection does not keep the process alive; a pending call does.
    connection.raw?.unref();
  }

  private drop(connection: PooledSocket): void {
    if (this.current === connection) this.current = null;
    connection.socket.terminate();
  }

  /** The open connection for these headers, if there is one (no await on the common path). */
  private reusable(call: OutboundCall): PooledSocket | null {
    const current = this.current;
    if (current && current.key === connectionKey(call) && current.socket.readyState === current.socket.OPEN) return current;
    return null;
  }

  /** A new connection for these headers, replacing the current one. */
  private async connect(call: OutboundCall): Promise<PooledSocket> {
    const key = connectionKey(call);
    if (this.current) this.drop(this.current);
    const ws = await loadWs();
    call.cancellation.throwIfAborted();
    const options: ClientOptions & { closeTimeout: number } = {
      headers: { ...call.headers },
      maxPayload: maxFrameBytes(this.config.limits),
      perMessageDeflate: false,
      followRedirects: false,
      closeTimeout: this.config.shutdownTimeout * 1000,
      // Handed to tls.connect as they are; @types/ws types checkServerIdentity more narrowly than node does.
      ...(call.url.startsWith('wss:') ? (this.clientTls() as ClientOptions) : {}),
    };
    const socket = new ws.WebSocket(call.url, options);
    return new Promise<PooledSocket>((resolve, reject) => {
      let raw: Socket | null = null;
      let settled = false;
      const settle = (error: unknown, connection?: PooledSocket) => {
        if (settled) return;
        settled = true;
        call.signal.removeEventListener('abort', onAbort);
        if (connection) return resolve(connection);
        socket.terminate();
        reject(error);
      };
      const onAbort = () => settle(call.signal.reason);
      call.signal.addEventListener('abort', onAbort, { once: true });
      socket.once('upgrade', (res: IncomingMessage) => {
        raw = res.socket as Socket;
      });
      // A refused handshake (401 and friends): its JSON error body becomes the remote error.
      socket.on('unexpected-response', (_req, res: IncomingMessage) => {
        void readSome(res, MAX_HANDSHAKE_BODY).then((text) => settle(errorFromResponse(res, text, call)));
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        if (!settled) settle(mapSocketError(error, call));
      });
      socket.once('close', () => settle(connectionLost(call.url, call.requestId, 'closed during the handshake')));
      socket.once('open', () => {
        // A handshake that finishes after close() must not leave a connection nobody closes.
        if (this.closed) settle(connectionLost(call.url, call.requestId, 'opened after the client was closed'));
        else settle(null, this.adopt(socket, raw, key, call.url));
      });
    });
  }

  /** Wires an open socket: frames to the current exchange, failures to whoever waits. */
  private adopt(socket: WebSocket, raw: Socket | null, key: string, url: string): PooledSocket {
    const connection = new PooledSocket(socket, raw, key);
    this.current = connection;
    this.open.add(connection);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const exchange = connection.exchange;
      if (!exchange || exchange.complete) {
        // Nobody asked for this frame: the peer does not follow the protocol.
        this.drop(connection);
        return;
      }
      let frame: InboundEvent;
      try {
        frame = decodeResponseFrame(data, isBinary, url, exchange.requestId);
      } catch (error) {
        exchange.fail(error);
        this.drop(connection);
        return;
      }
      exchange.push(frame);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const exchange = connection.exchange;
      if (!exchange) return;
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        const limit = maxFrameBytes(this.config.limits);
        exchange.fail(
          // An incoming frame is an answer or a stream event; either way it is the response side.
          new TransportLimitError(`a frame from ${url} is larger than the ${limit}-byte frame limit`, {
            kind: 'response',
            url,
            requestId: exchange.requestId,
            limit,
            size: limit + 1,
          }),
        );
      } else {
        exchange.fail(connectionLost(url, exchange.requestId, error.message));
      }
    });
    socket.once('close', (code: number, reason: Buffer) => {
      if (this.current === connection) this.current = null;
      this.open.delete(connection);
      const exchange = connection.exchange;
      if (!exchange) return;
      if (code === 1009) {
        exchange.fail(
          new TransportLimitError(`${url} refused the request frame as too large (close code 1009)`, {
            kind: 'request',
            url,
            requestId: exchange.requestId,
            limit: 0,
            size: 0,
          }),
        );
      } else if (code === CLOSE_CREDENTIALS_EXPIRED) {
        // As the server's refusal of a request would say it; a retry with the same token cannot help.
        const message = reason.length > 0 ? reason.toString('utf8') : 'the credentials expired';
        exchange.fail(remoteErrorFrom({ status: 401, code: 'unauthenticated', message }, url, exchange.requestId));
      } else {
        const why = reason.length > 0 ? `${code}: ${reason.toString('utf8')}` : String(code);
        exchange.fail(connectionLost(url, exchange.requestId, `closed before the answer was complete (code ${why})`));
      }
    });
    startPings(socket, this.config.keepaliveInterval, this.config.keepaliveTimeout);
    raw?.unref();
    return connection;
  }
}

class PooledSocket {
  exchange: Exchange | null = null;
  private closing: Promise<void> | null = null;

  constructor(
    readonly socket: WebSocket,
    readonly raw: Socket | null,
    readonly key: string,
  ) {}

  close(timeoutMs: number): Promise<void> {
    if (!this.closing && this.socket.readyState !== this.socket.CLOSED) {
      const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
      this.socket.close(1000, 'client closing');
      this.closing = closeWithin(closed, timeoutMs, () => this.socket.terminate());
    }
    return this.closing ?? Promise.resolve();
  }
}

/** The frames of one call, in arrival order, and the failure that ends them early. */
class Exchange {
  private readonly frames: InboundEvent[] = [];
  private failure: { readonly error: unknown } | null = null;
  private wake: (() => void) | null = null;
  /** True once the final frame arrived. */
  complete = false;

  constructor(
    readonly requestId: string,
    private readonly socket: WebSocket,
  ) {}

  push(frame: InboundEvent): void {
    this.frames.push(frame);
    if (frame.final) this.complete = true;
    if (this.frames.length >= MAX_UNREAD_FRAMES && !this.socket.isPaused) this.socket.pause();
    this.wake?.();
  }

  /** The first failure wins; frames that arrived before it are still delivered. */
  fail(error: unknown): void {
    this.failure ??= { error };
    this.wake?.();
  }

  async next(cancellation: LazyAbort): Promise<InboundEvent> {
    for (;;) {
      const frame = this.frames.shift();
      if (frame) {
        if (this.socket.isPaused && this.frames.length < MAX_UNREAD_FRAMES / 2) this.socket.resume();
        return frame;
      }
      if (this.failure) throw this.failure.error;
      cancellation.throwIfAborted();
      await new Promise<void>((resolve) => {
        let stopListening: (() => void) | null = null;
        const done = () => {
          stopListening?.();
          this.wake = null;
          resolve();
        };
        this.wake = done;
        stopListening = cancellation.onAbort(done);
      });
    }
  }
}

function connectionLost(url: string, requestId: string, why: string): TransportConnectionError {
  return new TransportConnectionError(`websocket connection to ${url} ${why}`, { url, requestId });
}

/** Reads at most `limit` bytes of a body; never fails (what was read is what there is). */
function readSome(res: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
    res.on('data', (chunk: Buffer) => {
      if (size >= limit) return;
      chunks.push(chunk);
      size += chunk.length;
    });
    res.once('end', done);
    res.once('close', done);
    res.once('error', done);
  });
}

/** Calls share a connection when they go to the same URL with the same handshake headers. */
function connectionKey(call: OutboundCall): string {
  const names = Object.keys(call.headers);
  if (names.length === 0) return call.url;
  return JSON.stringify([call.url, names.sort().map((name) => [name, call.headers[name]])]);
}
