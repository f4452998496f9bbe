// The deadlines and the connection cap of the http and sse servers. Node's own headersTimeout
// covers a request whose headers stall; this guard adds the body deadline (counted from the end
// of the headers, which node's requestTimeout is not) and keeps the number of open connections
// under `maxConnections` by closing the one that has waited longest without finishing a request.
// A connection whose answer is under way (a stream, a task being worked on) is never closed to
// make room: when only such connections are left, the newcomer is refused (refused-connection.ts).
// One timer per server sweeps the bodies being read, so a request costs no timer of its own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { EndpointError } from '../endpoint-error.js';
import { refusalAnswer, turnAway } from './refused-connection.js';

export interface GuardLimits {
  /** Seconds a request's body may take, from the end of its headers. */
  readonly bodyTimeout: number;
  readonly maxConnections: number;
}

/** What the guard knows of one connection. */
export class ConnectionWatch {
  /** The latest request on the connection and its answer; null before the first. */
  req: IncomingMessage | null = null;
  res: ServerResponse | null = null;
  /** When the latest request's headers ended (ms, performance clock). */
  startedAt: number;
  /** The last sign of progress: connected, a request began, or a piece of its body came. */
  progressAt: number;
  /** Fails the body being read; set by the reader while it reads. */
  expire: ((error: EndpointError) => void) | null = null;

  constructor(
    readonly socket: Socket,
    private readonly guard: ConnectionGuard,
  ) {
    this.startedAt = this.progressAt = performance.now();
  }

  /** A piece of body came: a progressing upload is not taken for a stalled one. */
  progressed(): void {
    // The sweep's clock may be behind the moment the request started.
    if (this.guard.now > this.progressAt) this.progressAt = this.guard.now;
  }

  /** A request is being answered: its body is all here and its answer is not finished. */
  get busy(): boolean {
    return this.req?.complete === true && !this.res!.writableFinished;
  }
}

export class ConnectionGuard {
  private readonly watches = new Map<Socket, ConnectionWatch>();
  /** Connections turned away at the cap: a request read on one of them is dropped, never served. */
  private readonly refused = new WeakSet<Socket>();
  private timer: NodeJS.Timeout | null = null;
  /** The sweep's clock: precise enough to order connections by how long they waited, and free to read. */
  now = performance.now();
  /** The 503 a newcomer gets at the cap, made at the first refusal and kept (the cap never changes). */
  private refusal: { readonly text: string; readonly bytes: number } | null = null;

  constructor(
    private readonly limits: GuardLimits,
    /** How often body deadlines are checked (see deadlineCheckMs). */
    private readonly sweepMs: number,
    /** Told of each connection refused at the cap, with the bytes of its answer (for the metrics). */
    private readonly onRefused: (sentBytes: number) => void = () => undefined,
  ) {}

  /**
   * Registers a new connection, closing an idle or stalled one first when the cap is reached;
   * when every open connection is busy, the new one is answered 503 and closed instead.
   */
  connected(socket: Socket): void {
    this.start();
    if (this.watches.size >= this.limits.maxConnections && !this.evictOne()) {
      this.refused.add(socket);
      // Refusals come in bursts, when the server is busiest: the answer is written, not remade.
      if (!this.refusal) {
        const text = refusalAnswer(this.limits.maxConnections);
        this.refusal = { text, bytes: Buffer.byteLength(text) };
      }
      turnAway(socket, this.refusal.text);
      this.onRefused(this.refusal.bytes);
      return;
    }
    this.watches.set(socket, new ConnectionWatch(socket, this));
    socket.once('close', () => this.watches.delete(socket));
  }

  /** Whether `socket` was turned away at the cap (its requests are not served). */
  isRefused(socket: Socket): boolean {
    return this.refused.has(socket);
  }

  /** A request's headers have arrived; its body is read next. Null for a connection not watched. */
  requestStarted(req: IncomingMessage, res: ServerResponse): ConnectionWatch | null {
    const watch = this.watches.get(req.socket);
    if (!watch) return null;
    watch.req = req;
    watch.res = res;
    watch.expire = null;
    watch.startedAt = watch.progressAt = performance.now();
    return watch;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * For a stopping server: closes each connection on which not one byte has arrived. Node takes
   * such a connection for one waiting for its headers, not for an idle one, so server.close()
   * would wait for it until the deadline; fetch in Node 20 opens one when its caller leaves a
   * stream and never uses it. Nothing was asked on it, so nothing is cut short.
   */
  closeUnused(): void {
    for (const watch of this.watches.values()) {
      if (watch.req === null && watch.socket.bytesRead === 0) watch.socket.destroy();
    }
  }

  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.sweepMs);
    this.timer.unref();
  }

  /** Fails every body that has been read for longer than bodyTimeout. */
  private sweep(): void {
    const now = (this.now = performance.now());
    const deadline = now - this.limits.bodyTimeout * 1000;
    for (const watch of this.watches.values()) {
      if (watch.expire === null || watch.startedAt > deadline) continue;
      const expire = watch.expire;
      watch.expire = null;
      expire(
        new EndpointError('request_timeout', `request body did not arrive within ${this.limits.bodyTimeout} s of its headers`, {
          timeout: this.limits.bodyTimeout,
        }),
      );
    }
  }

  /**
   * Closes the connection that has waited longest without finishing a request (idle ones,
   * ones still sending headers, stalled uploads) and says whether there was one: a connection
   * whose answer is under way is never chosen.
   */
  private evictOne(): boolean {
    let victim: ConnectionWatch | null = null;
    for (const watch of this.watches.values()) {
      if (watch.busy) continue;
      if (victim === null || watch.progressAt < victim.progressAt) victim = watch;
    }
    if (!victim) return false;
    // Forgotten at once so a burst of connections does not pick the same victim twice.
    this.watches.delete(victim.socket);
    victim.socket.destroy();
    return true;
  }
}
