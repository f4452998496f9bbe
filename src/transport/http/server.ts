// The standalone http server: node:http (node:https for https: URLs) serving the dispatcher,
// with the deadlines, the connection cap and the keep-alive rules of the transport config.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { BindingContext, TransportServer } from '../binding.js';
import type { Dispatcher } from '../dispatcher.js';
import { serverTlsOptions } from '../../tls/node-tls-options.js';
import { createRequestListener, type ListenerOptions } from './request-listener.js';
import { ConnectionGuard } from './connection-guard.js';
import { effectiveMaxConnections } from '../open-file-limit.js';
import { bindServer, closeServer, deadlineCheckMs, listenUrl, watchConnections } from '../listen.js';

export class HttpServer implements TransportServer {
  private server: Server | null = null;
  private guard: ConnectionGuard | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly context: BindingContext,
    private readonly listenerOptions: ListenerOptions = {},
  ) {}

  async listen(url: string, dispatcher: Dispatcher): Promise<string> {
    const parsed = listenUrl('http', url);
    const { config } = this.context;
    const checkMs = deadlineCheckMs(Math.min(config.headerTimeout, config.bodyTimeout));
    const refusal = { requestId: null, method: null, path: null, error: { status: 503, code: 'unavailable' } };
    const limits = { bodyTimeout: config.bodyTimeout, maxConnections: effectiveMaxConnections(config.maxConnections) };
    const guard = new ConnectionGuard(limits, checkMs, (sent) => dispatcher.countRefused(0, sent, refusal));
    const listener = createRequestListener(dispatcher, { ...this.listenerOptions, guard });
    // A null keepalive_interval turns HTTP keep-alive off: every answer is the connection's last.
    const serve =
      config.keepaliveInterval === null
        ? (req: IncomingMessage, res: ServerResponse, awaitingContinue?: boolean) => {
            res.shouldKeepAlive = false;
            listener(req, res, awaitingContinue);
          }
        : listener;
    const options = { connectionsCheckingInterval: checkMs };
    const secure = parsed.protocol === 'https:';
    const server = secure
      ? // A TLS handshake gets the headers' deadline too.
        createHttpsServer(
          { ...serverTlsOptions(config.tls, url), ...options, handshakeTimeout: config.headerTimeout * 1000 },
          serve,
        )
      : createHttpServer(options, serve);
    // Idle keep-alive connections close after keepalive_timeout.
    server.keepAliveTimeout = config.keepaliveTimeout * 1000;
    // Node checks the headers' deadline; the guard checks the body's, counted from the headers.
    server.headersTimeout = config.headerTimeout * 1000;
    server.requestTimeout = 0;
    // Clients that wait for `100 Continue` get it from the listener, once their request passed
    // the checks made before its body is read (node would send it at once).
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => serve(req, res, true));
    // The guard watches the sockets requests arrive on: over TLS, those of finished handshakes.
    server.on(secure ? 'secureConnection' : 'connection', (socket: Socket) => guard.connected(socket));
    watchConnections(server, this.sockets, config.headerTimeout);
    const bound = await bindServer(server, parsed);
    this.server = server;
    this.guard = guard;
    return bound;
  }

  async close(): Promise<void> {
    const server = this.server;
    const guard = this.guard;
    this.server = null;
    this.guard = null;
    guard?.stop();
    if (!server) return;
    const closed = closeServer(server, this.sockets, this.context.config.shutdownTimeout * 1000);
    // Now that no connection is accepted any more: one that never carried a byte holds nothing.
    guard?.closeUnused();
    await closed;
  }
}
