// The grpc packages are optional: they are loaded on first use, so a missing install fails
// only the grpc transport, with an error that names the package. The server runs on
// @grpc/grpc-js, the client on the connect packages. Files that the factory imports eagerly
// (binding.ts, server.ts, client.ts) import them for types only.
import { importOptional } from '../../core/errors.js';
import { lazyLoader } from '../../core/lazy-import.js';

export type GrpcJsModule = typeof import('@grpc/grpc-js');
export type ConnectModule = typeof import('@connectrpc/connect');
export type ConnectNodeModule = typeof import('@connectrpc/connect-node');

export interface ConnectModules {
  readonly connect: ConnectModule;
  readonly node: ConnectNodeModule;
}

export const loadGrpcJs = lazyLoader<GrpcJsModule>(async () => {
  const loaded = await importOptional<GrpcJsModule & { default?: GrpcJsModule }>('@grpc/grpc-js', 'the grpc server');
  // A CommonJS package: its exports are the default export, and named ones where node finds them.
  return loaded.default ?? loaded;
});

// connect-node needs connect, so connect is loaded (and reported missing) first.
export const loadConnect = lazyLoader<ConnectModules>(async () => {
  const connect = await importOptional<ConnectModule>('@connectrpc/connect', 'the grpc client');
  const node = await importOptional<ConnectNodeModule>('@connectrpc/connect-node', 'the grpc client');
  return { connect, node };
});
