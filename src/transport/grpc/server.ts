// The grpc server: node:http2 (TLS for grpcs:) in front of connect's gRPC protocol handlers.
//
// Served on one port:
//   svc.transport.v1.SvcTransport   Invoke and Stream over the shared dispatcher, in three
//                                   encodings: binary protobuf (`application/grpc`,
//                                   `+proto`), ProtoJSON (`application/grpc+json`), and the
//                                   spec's pass-through JSON (JSON bytes under plain
//                                   `application/grpc`, see passthrough-json.ts)
//   grpc.health.v1.Health           unless config.grpc.enableHealth is false
//   grpc.reflection.v1 / v1alpha    unless config.grpc.enableReflection is false
// Anything else answers UNIMPLEMENTED. Only the gRPC protocol is switched on (not Connect or
// gRPC-Web): the transport is gRPC, and one protocol is one thing to secure and test.
//
// Requests are routed by path to connect's universal handlers directly (the few lines
// connectNodeAdapter would run), so the SvcTransport handlers can be wrapped by the router
// that reads the request message and picks JSON or binary protobuf (passthrough-json.ts) and
// by the count of calls refused before dispatch (refused-calls.ts). JSON messages, under any
// content type, go to the same methods registered with BytesValue messages (json-method.ts),
// so their payloads are parsed once as JSON and never built into protobuf Value trees.
//
// Limits: message sizes from options.ts, the receive limit checked on the frame and while
// decompressing (request-message.ts); `maximum_concurrent_rpcs` is a slot every Invoke and
// Stream holds, control-plane calls excepted (excess calls wait, as the spec says), and the
// HTTP/2 stream limit per connection leaves room for it. Keepalive: every connection is PINGed each
// keepalive_interval and dropped when a PING goes unanswered for keepalive_timeout.
// Stop: health turns NOT_SERVING (watchers receive it and end), the listener closes, every
// connection gets a GOAWAY and closes by itself once its in-flight calls are done; after
// graceful_shutdown_timeout the connections still open are destroyed.
import {
  constants as http2Constants,
  createSecureServer,
  createServer,
  type Http2SecureServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from 'node:http2';
import type { UniversalHandler } from '@connectrpc/connect/protocol';
import type { DescService } from '@bufbuild/protobuf';
import { Health } from '../../../generated/proto/grpc/health/v1/health_pb.js';
import { ServerReflection as ServerReflectionV1 } from '../../../generated/proto/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ServerReflectionV1alpha } from '../../../generated/proto/grpc/reflection/v1alpha/reflection_pb.js';
import { SvcTransport } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { serverTlsOptions } from '../../tls/node-tls-options.js';
import type { BindingContext, TransportServer } from '../binding.js';
import type { Dispatcher } from '../dispatcher.js';
import { Slots } from '../slots.js';
import { bindServer, listenUrl } from '../listen.js';
import { loadConnect } from './load.js';
import { HealthState, ServingStatus, createHealthService } from './health-service.js';
import { jsonEnvelopes } from './json-codec.js';
import { jsonInvoke, jsonStream } from './json-method.js';
import { routeByMessage } from './passthrough-json.js';
import { RefusedCalls } from './refused-calls.js';
import { DescriptorIndex, createReflectionServiceV1, createReflectionServiceV1alpha } from './reflection-service.js';
import { GrpcStatus } from './errors.js';
import { createTransportHandlers, createTransportService } from './transport-service.js';
import { reportingEscapedErrors } from './escaped-errors.js';
import { MAX_MESSAGE_BYTES, wireOptions, type WireOptions } from './options.js';

/** What wrapping a message in a BytesValue adds: a tag and a length of at most 5 bytes. */
const BYTES_VALUE_ROOM = 6;

type NodeServer = Http2Server | Http2SecureServer;

export class GrpcServer implements TransportServer {
  private server: NodeServer | null = null;
  private health: HealthState | null = null;
  private readonly sessions = new Set<Http2Session>();
  private closing = false;

  constructor(private readonly context: BindingContext) {}

  async listen(url: string, dispatcher: Dispatcher): Promise<string> {
    const parsed = listenUrl('grpc', url);
    const { config } = this.context;
    const wire = wireOptions(config, 'server');
    const handle = await this.createHandler(dispatcher, wire);
    const settings = { maxConcurrentStreams: wire.maxConcurrentStreams };
    const server: NodeServer =
      parsed.protocol === 'grpcs:'
        ? createSecureServer({ ...serverTlsOptions(config.tls, url), settings, allowHTTP1: false })
        : createServer({ settings });
    server.on('request', handle);
    server.on('session', (session: Http2Session) => this.track(session, wire));
    // A broken connection is that connection's problem only.
    server.on('sessionError', () => undefined);
    const bound = await bindServer(server, parsed);
    this.server = server;
    this.health?.setAll(ServingStatus.SERVING);
    return bound;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    this.closing = true;
    this.health?.close();
    const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    // GOAWAY: no new calls; each connection closes by itself once its calls are done (and
    // their last bytes written). Whatever is still open after the grace period is cut off.
    const sessionsClosed = [...this.sessions].map((session) => {
      if (session.destroyed) return Promise.resolve();
      const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
      if (!session.closed) session.close();
      return closed;
    });
    await withTimeout(
      Promise.all(sessionsClosed).then(() => undefined),
      this.context.config.grpc.gracefulShutdownTimeout * 1000,
    );
    for (const session of this.sessions) session.destroy();
    await withTimeout(listenerClosed, this.context.config.shutdownTimeout * 1000);
  }

  /** Builds the connect router and the node request handler in front of it. */
  private async createHandler(dispatcher: Dispatcher, wire: WireOptions) {
    const { connect, node } = await loadConnect();
    const { config } = this.context;
    const router = connect.createConnectRouter({
      grpc: true,
      grpcWeb: false,
      connect: false,
      readMaxBytes: wire.receiveMaxBytes,
      writeMaxBytes: wire.sendMaxBytes,
      acceptCompression: [node.compressionGzip],
      // Unknown JSON members are ignored (an SSE-style `jsonrpc` member, future fields).
      // Every envelope scalar is `optional`, so ProtoJSON writes exactly the fields set.
      jsonOptions: { ignoreUnknownFields: true },
    });
    // The JSON route (json-method.ts): the messages are BytesValues around checked JSON, a
    // few bytes over the limits; requests arrive decompressed and answers go uncompressed.
    const jsonRouter = connect.createConnectRouter({
      grpc: true,
      grpcWeb: false,
      connect: false,
      readMaxBytes: Math.min(MAX_MESSAGE_BYTES, wire.receiveMaxBytes + BYTES_VALUE_ROOM),
      writeMaxBytes: Math.min(MAX_MESSAGE_BYTES, wire.sendMaxBytes + BYTES_VALUE_ROOM),
      acceptCompression: [],
    });
    const rpcSlots = new Slots(config.grpc.maximumConcurrentRpcs);
    const refused = new RefusedCalls(connect, dispatcher);
    const serviceOptions = { connect, dispatcher, rpcSlots, refused };
    router.service(SvcTransport, createTransportService(serviceOptions));
    const json = reportingEscapedErrors(createTransportHandlers(serviceOptions, jsonEnvelopes(connect)));
    jsonRouter.rpc(jsonInvoke, json.invoke as never);
    jsonRouter.rpc(jsonStream, json.stream as never);
    const jsonPaths = new Map(jsonRouter.handlers.map((handler) => [handler.requestPath, handler]));
    const served: DescService[] = [SvcTransport];
    if (config.grpc.enableHealth) {
      this.health = new HealthState(['', SvcTransport.typeName]);
      router.service(Health, createHealthService(connect, this.health));
      served.push(Health);
    }
    if (config.grpc.enableReflection) {
      const index = new DescriptorIndex([...served, ServerReflectionV1, ServerReflectionV1alpha]);
      router.service(ServerReflectionV1, createReflectionServiceV1(index));
      router.service(ServerReflectionV1alpha, createReflectionServiceV1alpha(index));
    }
    const paths = new Map<string, UniversalHandler>();
    for (const handler of router.handlers) {
      const json = jsonPaths.get(handler.requestPath);
      const routed = json ? routeByMessage({ connect, proto: handler, json, receiveMaxBytes: wire.receiveMaxBytes }) : handler;
      paths.set(handler.requestPath, json ? refused.counting(routed) : handler);
    }
    return (req: Http2ServerRequest, res: Http2ServerResponse): void => {
      const path = (req.url ?? '').split('?', 1)[0]!;
      const handler = paths.get(path);
      if (!handler) {
        unimplemented(req, res, path);
        return;
      }
      // The call cannot be answered (a request connect refuses to read, a client that went
      // away mid-write): the stream is the casualty, never the server.
      const fail = () => {
        if (!res.stream.destroyed) res.stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR);
      };
      try {
        const request = node.universalRequestFromNodeRequest(req, res, undefined, undefined);
        handler(request)
          .then((response) => node.universalResponseToNodeResponse(response, res))
          .catch(fail);
      } catch {
        fail();
      }
    };
  }

  private track(session: Http2Session, wire: WireOptions): void {
    this.sessions.add(session);
    session.on('error', () => undefined);
    // A connection accepted while stopping gets its GOAWAY at once.
    if (this.closing) session.close();
    let keepalive: NodeJS.Timeout | null = null;
    if (wire.keepaliveTimeMs > 0) {
      keepalive = setInterval(() => ping(session, wire.keepaliveTimeoutMs), wire.keepaliveTimeMs);
      keepalive.unref();
    }
    session.once('close', () => {
      if (keepalive) clearInterval(keepalive);
      this.sessions.delete(session);
    });
  }
}

/** Sends a PING; a connection that does not answer within `timeoutMs` is dropped. */
function ping(session: Http2Session, timeoutMs: number): void {
  if (session.closed || session.destroyed) return;
  const watchdog = setTimeout(() => session.destroy(), timeoutMs);
  watchdog.unref();
  const sent = session.ping((error) => {
    clearTimeout(watchdog);
    if (error && !session.destroyed) session.destroy();
  });
  if (!sent) clearTimeout(watchdog);
}

/** A trailers-only gRPC answer for a service or method this server does not have. */
function unimplemented(req: Http2ServerRequest, res: Http2ServerResponse, path: string): void {
  req.resume();
  const contentType = String(req.headers['content-type'] ?? '');
  if (!/^application\/grpc/i.test(contentType)) {
    res.writeHead(404).end();
    return;
  }
  if (res.stream.destroyed || res.stream.headersSent) return;
  res.stream.respond(
    {
      ':status': 200,
      'content-type': 'application/grpc',
      'grpc-status': String(GrpcStatus.UNIMPLEMENTED),
      'grpc-message': encodeURIComponent(`unknown service or method ${path}`),
    },
    { endStream: true },
  );
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
