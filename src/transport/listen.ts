// Binding a node server to a URL's host and port, and closing it within a deadline.
import type { Server } from 'node:net';
import type { Socket } from 'node:net';
import { TransportConnectionError } from './errors.js';

/** Listens on the URL's host and port (0 picks a free one) and resolves with the port. */
export function listenOn(server: Server, url: URL): Promise<number> {
  const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(new TransportConnectionError(`cannot listen on ${host}:${port}: ${error.message}`, { url: url.href, cause: error }));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function defaultPort(protocol: string): number {
  return protocol === 'https:' || protocol === 'wss:' ? 443 : 80;
}

/**
 * Keeps `sockets` up to date with the server's open connections (so close() can end them) and
 * answers malformed HTTP with a bare 400 instead of letting the error escape.
 */
export function watchConnections(server: Server, sockets: Set<Socket>): void {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error: Error, socket: Socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
}

/** Stops accepting, ends idle connections, and destroys the rest after `timeoutMs`. */
export function closeServer(server: Server, sockets: Set<Socket>, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, timeoutMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    const http = server as Server & { closeIdleConnections?: () => void };
    http.closeIdleConnections?.();
  });
}
