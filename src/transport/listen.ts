// Binding a node server to a URL's host and port, and closing it within a deadline.
import type { ServerResponse } from 'node:http';
import type { Server } from 'node:net';
import type { Socket } from 'node:net';
import { InvalidArgumentError } from '../core/errors.js';
import { closeWithin } from './close-within.js';
import { TransportConnectionError } from './errors.js';

/**
 * The one rule for the URL a server listens on, whatever its transport: it must parse, name a
 * host, and give its port explicitly (`:0` picks a free one). Written out because a URL object
 * hides a scheme's default port (`http://h:80` and `http://h` look alike once parsed).
 */
export function listenUrl(transport: string, url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidArgumentError(`${transport} transport: ${JSON.stringify(url)} is not a URL`, 'invalid_url');
  }
  if (!parsed.hostname) {
    throw new InvalidArgumentError(`${transport} transport: ${JSON.stringify(url)} has no host name to listen on`, 'invalid_url');
  }
  if (!EXPLICIT_PORT.test(url)) {
    throw new InvalidArgumentError(
      `${transport} transport: ${JSON.stringify(url)} needs an explicit port to listen on (use :0 for any free port)`,
      'invalid_url',
    );
  }
  return parsed;
}

// scheme://[userinfo@]host:port, the host a name, an IPv4 address or a bracketed IPv6 one.
const EXPLICIT_PORT = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):\d+(?:[/?#]|$)/i;

/**
 * Listens on the URL's host and port and resolves with the URL actually bound: the real port
 * in place of 0, and no trailing slash.
 */
export function bindServer(server: Server, url: URL): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || defaultPort(url.protocol));
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(new TransportConnectionError(`cannot listen on ${host}:${port}: ${error.message}`, { url: url.href, cause: error }));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      const bound = new URL(url.href);
      bound.port = String(typeof address === 'object' && address ? address.port : port);
      resolve(bound.href.replace(/\/$/, ''));
    });
  });
}

// The port `new URL` leaves out because it is the scheme's default; listenUrl made sure one was written.
function defaultPort(protocol: string): number {
  return protocol === 'https:' || protocol === 'wss:' ? 443 : 80;
}

/**
 * How often node checks header deadlines (its `connectionsCheckingInterval`, 30 s unless told):
 * a quarter of the deadline, between 10 ms and 1 s, so a deadline is kept to within a quarter.
 */
export function deadlineCheckMs(seconds: number): number {
  return Math.max(10, Math.min(1000, Math.floor((seconds * 1000) / 4)));
}

/**
 * Keeps `sockets` up to date with the server's open connections (so close() can end them) and
 * answers malformed HTTP with a bare 400 instead of letting the error escape, and headers that
 * missed their deadline (`headerTimeout` seconds, set as the server's headersTimeout) with 408.
 */
export function watchConnections(server: Server, sockets: Set<Socket>, headerTimeout?: number): void {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const timedOut = headerTimeout === undefined ? '' : requestTimeoutAnswer(headerTimeout);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // An answer already on its way on this connection must not be cut into.
    const answering = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
    if (!socket.writable || answering) return void socket.destroy();
    socket.end(
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && timedOut ? timedOut : 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n',
    );
    // A peer that never closes its side would otherwise hold the connection half-open.
    const timer = setTimeout(() => socket.destroy(), 1000);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

/** The 408 sent when a request's headers stall, with the JSON error body every error has. */
function requestTimeoutAnswer(headerTimeout: number): string {
  const body = JSON.stringify({
    error: {
      code: 'request_timeout',
      message: `request headers did not arrive within ${headerTimeout} s`,
      status: 408,
      request_id: null,
      details: { timeout: headerTimeout },
    },
  });
  return (
    'HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

/** Stops accepting, ends idle connections, and destroys the rest after `timeoutMs`. */
export function closeServer(server: Server, sockets: Set<Socket>, timeoutMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const http = server as Server & { closeIdleConnections?: () => void };
  http.closeIdleConnections?.();
  // A connection whose answer is still being written is not idle yet, and node would keep it
  // open for the next request once the answer is out: close it then instead (and tell the
  // client so, when its headers have not gone yet), so stop does not wait out the deadline.
  for (const socket of sockets) {
    const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!answering || answering.writableFinished) continue;
    if (!answering.headersSent) answering.shouldKeepAlive = false;
    answering.once('finish', () => socket.end());
  }
  return closeWithin(closed, timeoutMs, () => {
    for (const socket of sockets) socket.destroy();
  });
}
