// The websocket server: node:http (node:https for wss:) with a `ws` server in noServer mode
// taking the upgrades. The browser origin and the credentials are checked on the upgrade
// request, so a caller that is not let in gets a plain HTTP 403 or 401 and never a connection.
// Any path upgrades.
import {
  createServer as createHttpServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { ServerOptions, WebSocket, WebSocketServer as WsServer } from 'ws';
import { extractCredentials } from '../../auth/credentials.js';
import { headerValue } from '../query-params.js';
import type { SecurityContext } from '../../../generated/types/index.js';
import { serverTlsOptions } from '../../tls/node-tls-options.js';
import type { BindingContext, TransportServer } from '../binding.js';
import type { Dispatcher } from '../dispatcher.js';
import type { Endpoint } from '../endpoint.js';
import { assertNotExpired } from '../credential-expiry.js';
import { EndpointError, toEndpointError } from '../endpoint-error.js';
import { bindServer, closeServer, deadlineCheckMs, listenUrl, watchConnections } from '../listen.js';
import { maxFrameBytes } from './codec.js';
import { ServerConnection } from './server-connection.js';
import { loadWs } from './load.js';
import { AUTH_CHALLENGE } from '../wire-names.js';
import { BrowserOrigins } from '../browser-origin.js';

export class WebSocketServer implements TransportServer {
  private http: Server | null = null;
  private wss: WsServer | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly connections = new Set<ServerConnection>();

  constructor(private readonly context: BindingContext) {}

  async listen(url: string, dispatcher: Dispatcher): Promise<string> {
    const parsed = listenUrl('websocket', url);
    const ws = await loadWs();
    const { config } = this.context;
    // The upgrade request's headers (and a TLS handshake) get the header deadline.
    const deadlines = { connectionsCheckingInterval: deadlineCheckMs(config.headerTimeout) };
    const http =
      parsed.protocol === 'wss:'
        ? createHttpsServer({ ...serverTlsOptions(config.tls, url), ...deadlines, handshakeTimeout: config.headerTimeout * 1000 })
        : createHttpServer(deadlines);
    http.headersTimeout = config.headerTimeout * 1000;
    const options: ServerOptions & { closeTimeout: number } = {
      noServer: true,
      maxPayload: maxFrameBytes(config.limits),
      perMessageDeflate: false,
      clientTracking: false,
      closeTimeout: config.shutdownTimeout * 1000,
    };
    const wss = new ws.WebSocketServer(options);
    const gate = handshakeEndpoint(dispatcher);
    const origins = new BrowserOrigins(config.allowedOrigins);
    http.on('request', answerPlainRequest);
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(wss, dispatcher, gate, origins, req, socket, head).catch((error: unknown) => {
        dispatcher.reportEscaped('a websocket upgrade handler', error);
        socket.destroy();
      });
    });
    watchConnections(http, this.sockets, config.headerTimeout);
    const bound = await bindServer(http, parsed);
    this.http = http;
    this.wss = wss;
    return bound;
  }

  async close(): Promise<void> {
    const http = this.http;
    const wss = this.wss;
    this.http = this.wss = null;
    if (!http) return;
    const timeoutMs = this.context.config.shutdownTimeout * 1000;
    await Promise.all([
      closeServer(http, this.sockets, timeoutMs),
      ...[...this.connections].map((connection) => connection.close(timeoutMs)),
    ]);
    wss?.close();
  }

  private async upgrade(
    wss: WsServer,
    dispatcher: Dispatcher,
    gate: Endpoint | null,
    origins: BrowserOrigins,
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
  ): Promise<void> {
    const onError = () => socket.destroy();
    socket.on('error', onError);
    // WebSocket has no CORS: a page on any site could open this connection and read every
    // answer, so a foreign browser origin is refused before the handshake goes any further.
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const refused = origins.refusal(origin, req.headers.host);
      if (refused) {
        // onError stays: the socket is closed once the refusal is written, or on any error.
        refuseUpgrade(dispatcher, req, socket, refused, dispatcher.logging ? performance.now() : 0);
        return;
      }
    }
    const query = new URL(req.url ?? '/', 'http://parley.invalid').searchParams;
    const credentials = extractCredentials(
      (name) => headerValue(req, name),
      (name) => query.get(name) ?? undefined,
    );
    let authenticated: SecurityContext | null | undefined;
    if (gate) {
      const arrived = dispatcher.logging ? performance.now() : 0;
      try {
        authenticated = await dispatcher.authenticate(gate, credentials);
        // The connection would be closed as soon as it opened: refuse it as an expired token.
        assertNotExpired(authenticated);
      } catch (error) {
        socket.off('error', onError);
        refuseUpgrade(dispatcher, req, socket, toEndpointError(error), arrived);
        return;
      }
    }
    socket.off('error', onError);
    if (this.wss !== wss || socket.destroyed) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const connection = new ServerConnection(ws, socket, dispatcher, credentials, authenticated, this.context.config);
      this.connections.add(connection);
      void connection.closed.then(() => this.connections.delete(connection));
    });
  }
}

/**
 * The route the handshake authenticates as: any protected one, since every request on the
 * connection carries the handshake's credentials. None when every route is public.
 */
function handshakeEndpoint(dispatcher: Dispatcher): Endpoint | null {
  for (const endpoint of dispatcher.endpoints.values()) {
    if (!endpoint.spec.public) return endpoint;
  }
  return null;
}

/** Refuses an upgrade and logs it; the handshake carries no request id, so it is logged without one. */
function refuseUpgrade(
  dispatcher: Dispatcher,
  req: IncomingMessage,
  socket: Duplex,
  refused: EndpointError,
  startedAt: number,
): void {
  rejectUpgrade(socket, refused);
  const path = (req.url ?? '/').split('?', 1)[0]!;
  dispatcher.logRefused({ requestId: null, method: 'GET', path, error: refused, startedAt });
}

/** Refuses an upgrade with a plain HTTP answer carrying the JSON error body. */
function rejectUpgrade(socket: Duplex, error: EndpointError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: error.toObject(null) });
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(error.status === 401 ? [`WWW-Authenticate: ${AUTH_CHALLENGE}`] : []),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** The websocket server serves no pages: plain requests are told to upgrade. */
function answerPlainRequest(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  const error = new EndpointError('upgrade_required', 'this is a websocket endpoint; open a websocket connection');
  res.writeHead(426, { 'content-type': 'application/json', upgrade: 'websocket' });
  res.end(JSON.stringify({ error: error.toObject(null) }));
}
