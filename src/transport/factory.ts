// Transports by name, and by URL scheme. Names are case-insensitive; `json-rpc` and
// `sse-json-rpc` mean `sse`.
// Each binding is imported only when asked for, so a missing optional package (ws,
// @grpc/grpc-js) fails only the transport that needs it, naming the package.
import { InvalidArgumentError } from '../core/errors.js';
import type { TransportBinding } from './binding.js';
import type { TransportName } from './capabilities.js';
import { Transport, type TransportOptions } from './transport.js';

export const TRANSPORT_NAMES: readonly TransportName[] = ['http', 'runtime', 'websocket', 'sse', 'grpc'];

const ALIASES: Readonly<Record<string, TransportName>> = {
  http: 'http',
  runtime: 'runtime',
  websocket: 'websocket',
  sse: 'sse',
  'json-rpc': 'sse',
  'sse-json-rpc': 'sse',
  grpc: 'grpc',
};

/**
 * The transport a URL scheme implies, from the schemes each binding declares: where two
 * transports share a scheme (http and sse) the first in TRANSPORT_NAMES order owns it. Kept as
 * a literal so choosing a transport loads none; a test holds it equal to the bindings' schemes.
 */
export const SCHEME_TRANSPORTS: Readonly<Record<string, TransportName>> = Object.freeze({
  'http:': 'http',
  'https:': 'http',
  'runtime:': 'runtime',
  'ws:': 'websocket',
  'wss:': 'websocket',
  'grpc:': 'grpc',
  'grpcs:': 'grpc',
});

const LOADERS: Readonly<Record<TransportName, () => Promise<TransportBinding>>> = {
  http: async () => (await import('./http/binding.js')).httpBinding,
  runtime: async () => (await import('./runtime/binding.js')).runtimeBinding,
  sse: async () => (await import('./sse/binding.js')).sseBinding,
  websocket: async () => (await import('./websocket/binding.js')).websocketBinding,
  grpc: async () => (await import('./grpc/binding.js')).grpcBinding,
};

/** The canonical name for `name`, or InvalidArgumentError (the spec's ValueError). */
export function resolveTransportName(name: string): TransportName {
  const canonical = typeof name === 'string' ? ALIASES[name.trim().toLowerCase()] : undefined;
  if (!canonical) {
    throw new InvalidArgumentError(
      `unknown transport ${JSON.stringify(name)}; expected one of ${Object.keys(ALIASES).join(', ')}`,
      'unknown_transport',
    );
  }
  return canonical;
}

/** The transport a URL's scheme implies, or undefined for a scheme no transport declares. */
export function transportForScheme(url: string): TransportName | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(url)?.[1]?.toLowerCase();
  return scheme === undefined ? undefined : SCHEME_TRANSPORTS[scheme];
}

export async function loadBinding(name: string): Promise<TransportBinding> {
  return LOADERS[resolveTransportName(name)]();
}

/** Builds a transport by name; rejects with MissingDependencyError when its package is absent. */
export async function createTransport(name: string, url: string, options?: TransportOptions): Promise<Transport> {
  return new Transport(await loadBinding(name), url, options);
}
