// The grpc server: @grpc/grpc-js's server, fed the connections of a listener of our own
// (node:net, or node:tls for grpcs:) through grpc-js's connection injector.
//
// Served on one port:
//   svc.transport.v1.SvcTransport   Invoke and Stream over the shared dispatcher, in three
//                                   encodings told apart by the message (message-encoding.ts):
//                                   binary protobuf, ProtoJSON (`application/grpc+json`) and
//                                   the spec's pass-through JSON (JSON bytes under plain
//                                   `application/grpc`)
//   grpc.health.v1.Health           unless config.grpc.enableHealth is false
//   grpc.reflection.v1 / v1alpha    unless config.grpc.enableReflection is false
//   the protobuf services of the endpoints that carry a gRPC method (Endpoint.grpc), such
//                                   as A2A's lf.a2a.v1.A2AService, through the same dispatcher
//                                   (method-service.ts)
// Anything else answers UNIMPLEMENTED (grpc-js), and a request that is not gRPC at all 415.
//
// Why a listener of our own: the listen URL rules and the bound URL are those of every other
// transport (listen.ts), TLS is set up from parley's TLS settings like theirs (TLS 1.2 or newer,
// mutual TLS with rejectUnauthorized), and stopping is in our hands: the listener closes, and
// each connection is known until it is gone.
//
// grpc-js does the wire: framing, deadlines (grpc-timeout), message sizes (the receive limit
// checked on the frame length and while decompressing), keepalive pings, the HTTP/2 stream
// limit. The options it gets are derived from the transport configuration (options.ts), and
// every other key of `grpc.channelOptions` is passed to it unchanged. Each SvcTransport call
// holds a `maximum_concurrent_rpcs` slot (transport-service.ts).
//
// Stop: health turns NOT_SERVING (watchers receive it and end), the listener closes, every
// connection gets a GOAWAY and closes by itself once its in-flight calls are done; after
// graceful_shutdown_timeout the connections still open are destroyed.
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { DescService } from '@bufbuild/protobuf';
import type { ChannelOptions, ConnectionInjector, Server as GrpcJsServer } from '@grpc/grpc-js';
import { Health } from '../../../generated/proto/grpc/health/v1/health_pb.js';
import { ServerReflection as ServerReflectionV1 } from '../../../generated/proto/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ServerReflectionV1alpha } from '../../../generated/proto/grpc/reflection/v1alpha/reflection_pb.js';
import { SvcTransport } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { serverTlsOptions } from '../../tls/node-tls-options.js';
import type { BindingContext, TransportServer } from '../binding.js';
import type { Dispatcher } from '../dispatcher.js';
import { closeWithin } from '../close-within.js';
import { bindServer, listenUrl } from '../listen.js';
import { Slots } from '../slots.js';
import { createHealthService, HealthState, ServingStatus } from './health-service.js';
import { createMethodService, methodServices } from './method-service.js';
import { loadGrpcJs } from './load.js';
import { MAX_MESSAGE_BYTES, type WireOptions, wireOptions } from './options.js';
import { serviceDefinition } from './protobuf-service.js';
import { createReflectionService, DescriptorIndex } from './reflection-service.js';
import { countingRefusals } from './refused-calls.js';
import { createTransportService, INVOKE_PATH, STREAM_PATH, transportDefinition } from './transport-service.js';

export class GrpcServer implements TransportServer {
  private listener: NetServer | null = null;
  private grpc: GrpcJsServer | null = null;
  private injector: ConnectionInjector | null = null;
  private health: HealthState | null = null;
  private readonly sockets = new Set<Socket>();
  private closing = false;

  constructor(private readonly context: BindingContext) {}

  async listen(url: string, dispatcher: Dispatcher): Promise<string> {
    const parsed = listenUrl('grpc', url);
    const { config } = this.context;
    const grpc = await loadGrpcJs();
    const wire = wireOptions(config, 'server');
    const methods = methodServices(dispatcher.endpoints);
    const counted = new Set([INVOKE_PATH, STREAM_PATH, ...methods.flatMap((service) => service.paths)]);
    const server = new grpc.Server({
      ...serverOptions(config.grpc.channelOptions, wire),
      interceptors: [countingRefusals(dispatcher, counted)],
    });
    const rpcSlots = new Slots(config.grpc.maximumConcurrentRpcs);
    server.addService(transportDefinition, createTransportService({ grpc, dispatcher, rpcSlots }));
    const report = (where: string, error: unknown) => dispatcher.reportEscaped(where, error);
    for (const service of methods) {
      server.addService(service.definition, createMethodService(service, { grpc, dispatcher, rpcSlots, report }));
    }
    const served: DescService[] = [SvcTransport, ...methods.map((service) => service.service)];
    if (config.grpc.enableHealth) {
      this.health = new HealthState(['', ...served.map((service) => service.typeName)]);
      server.addService(
        serviceDefinition(Health),
        createHealthService(grpc, this.health, (where, error) => dispatcher.reportEscaped(where, error)),
      );
      served.push(Health);
    }
    if (config.grpc.enableReflection) {
      const reflection = createReflectionService(new DescriptorIndex([...served, ServerReflectionV1, ServerReflectionV1alpha]));
      server.addService(serviceDefinition(ServerReflectionV1), reflection);
      server.addService(serviceDefinition(ServerReflectionV1alpha), reflection);
    }
    // TLS, when there is any, ends in our listener: grpc-js gets the decrypted connections.
    const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    const secure = parsed.protocol === 'grpcs:';
    const listener: NetServer = secure
      ? createTlsServer({ ...serverTlsOptions(config.tls, url), ALPNProtocols: ['h2'] })
      : createNetServer();
    listener.on(secure ? 'secureConnection' : 'connection', (socket: Socket) => this.accept(socket, injector));
    this.grpc = server;
    this.injector = injector;
    const bound = await bindServer(listener, parsed);
    this.listener = listener;
    this.health?.setAll(ServingStatus.SERVING);
    return bound;
  }

  async close(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    if (!listener) return;
    this.closing = true;
    this.health?.close();
    const listenerClosed = new Promise<void>((resolve) => listener.close(() => resolve()));
    // GOAWAY: no new calls; each connection closes by itself once its calls are done (and
    // their last bytes written). Whatever is still open after the grace period is cut off.
    const graceMs = this.context.config.grpc.gracefulShutdownTimeout * 1000;
    const socketsClosed = [...this.sockets].map(
      (socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())),
    );
    this.injector?.drain(graceMs);
    await closeWithin(Promise.all(socketsClosed), graceMs, () => {
      for (const socket of this.sockets) socket.destroy();
    });
    this.grpc?.forceShutdown();
    this.grpc = null;
    this.injector = null;
    // Connections still in their TLS handshake were never handed over: the wait for them ends.
    await closeWithin(listenerClosed, this.context.config.shutdownTimeout * 1000);
  }

  private accept(socket: Socket, injector: ConnectionInjector): void {
    // A broken connection is that connection's problem only.
    socket.on('error', () => undefined);
    // A connection that arrives while stopping is not served.
    if (this.closing) return void socket.destroy();
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    injector.injectConnection(socket);
  }
}

/**
 * grpc-js's options: every key of `grpc.channelOptions` as given, with the values derived
 * from the configuration (which the same keys replace, see options.ts) over them.
 */
function serverOptions(channelOptions: Readonly<Record<string, number | string>>, wire: WireOptions): ChannelOptions {
  const unlimited = (bytes: number) => (bytes >= MAX_MESSAGE_BYTES ? -1 : bytes);
  return {
    ...channelOptions,
    'grpc.max_receive_message_length': unlimited(wire.receiveMaxBytes),
    'grpc.max_send_message_length': unlimited(wire.sendMaxBytes),
    'grpc.keepalive_time_ms': wire.keepaliveTimeMs,
    'grpc.keepalive_timeout_ms': wire.keepaliveTimeoutMs,
    'grpc.max_concurrent_streams': wire.maxConcurrentStreams,
    // Channelz (grpc-js's introspection service, which parley does not serve) costs on every call.
    'grpc.enable_channelz': 0,
  };
}
