// The connect packages are optional: they are loaded on first use, so a missing install fails
// only the grpc transport, with an error that names the package. Files that the factory
// imports eagerly (binding.ts, server.ts, client.ts) import connect for types only.
import { importOptional } from '../../core/errors.js';
import { lazyLoader } from '../../core/lazy-import.js';

export type ConnectModule = typeof import('@connectrpc/connect');
export type ConnectNodeModule = typeof import('@connectrpc/connect-node');

export interface ConnectModules {
  readonly connect: ConnectModule;
  readonly node: ConnectNodeModule;
}

// connect-node needs connect, so connect is loaded (and reported missing) first.
export const loadConnect = lazyLoader<ConnectModules>(async () => {
  const connect = await importOptional<ConnectModule>('@connectrpc/connect', 'the grpc transport');
  const node = await importOptional<ConnectNodeModule>('@connectrpc/connect-node', 'the grpc transport');
  return { connect, node };
});
