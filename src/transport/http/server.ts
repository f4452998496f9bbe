// The standalone http server: node:http (node:https for https: URLs) serving the dispatcher.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { BindingContext, TransportServer } from '../binding.js';
import type { Dispatcher } from '../dispatcher.js';
import { serverTlsOptions } from '../../tls/node-tls-options.js';
import { createRequestListener, type ListenerOptions } from './request-listener.js';
import { closeServer, listenOn, watchConnections } from '../listen.js';

export class HttpServer implements TransportServer {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly context: BindingContext,
    private readonly listenerOptions: ListenerOptions = {},
  ) {}

  async listen(url: string, dispatcher: Dispatcher): Promise<string> {
    const parsed = new URL(url);
    const listener = createRequestListener(dispatcher, this.listenerOptions);
    const { config } = this.context;
    const server =
      parsed.protocol === 'https:'
        ? createHttpsServer(serverTlsOptions(config.tls, url), listener)
        : createHttpServer(listener);
    // Idle keep-alive connections close after keepalive_timeout; null interval turns keep-alive off.
    server.keepAliveTimeout = config.keepaliveInterval === null ? 0 : config.keepaliveTimeout * 1000;
    server.headersTimeout = Math.max(60_000, server.keepAliveTimeout + 1000);
    server.requestTimeout = 0;
    // Clients that wait for `100 Continue` get it from the listener, once their request passed
    // the checks made before its body is read (node would send it at once).
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => listener(req, res, true));
    watchConnections(server, this.sockets);
    const port = await listenOn(server, parsed);
    this.server = server;
    parsed.port = String(port);
    return parsed.href.replace(/\/$/, '');
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await closeServer(server, this.sockets, this.context.config.shutdownTimeout * 1000);
  }
}
