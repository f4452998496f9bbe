// grpc: svc.transport.v1.SvcTransport over HTTP/2 (grpc:// and grpcs://). Nothing here loads
// the optional packages eagerly; the server (@grpc/grpc-js) and the client (connect) load them
// when they first need them.
import type { TransportBinding } from '../binding.js';
import { GrpcClient } from './client.js';
import { GrpcServer } from './server.js';

export const grpcBinding: TransportBinding = {
  name: 'grpc',
  schemes: ['grpc:', 'grpcs:'],
  capabilities: { networked: true, streaming: true, tls: true, bidirectional: false, persistent_connections: true, pages: false },
  createServer: (context) => new GrpcServer(context),
  createClient: (context) => new GrpcClient(context, { codec: context.config.grpc.codec }),
};
