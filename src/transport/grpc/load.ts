// The grpc package is optional: @grpc/grpc-js, which both the server and the client run on, is
// loaded on first use, so a missing install fails only the grpc transport, with an error that
// names the package. Files that the factory imports eagerly (binding.ts, server.ts, client.ts)
// import it for types only.
import { importOptional } from '../../core/errors.js';
import { lazyLoader } from '../../core/lazy-import.js';

export type GrpcJsModule = typeof import('@grpc/grpc-js');

export const loadGrpcJs = lazyLoader<GrpcJsModule>(async () => {
  const loaded = await importOptional<GrpcJsModule & { default?: GrpcJsModule }>('@grpc/grpc-js', 'the grpc transport');
  // A CommonJS package: its exports are the default export, and named ones where node finds them.
  return loaded.default ?? loaded;
});
