// The transport factories as a user calls them: the pipeline's own (transport/factory.ts,
// transport/http/express-adapter.ts) with observability's hooks installed, so `tracing: true`
// traces and a started server's logger gets its request lines, exactly as before the pipeline
// stopped importing observability. These are what `parley` exports under the same names; code
// inside src/ that composes a transport passes `observabilityHooks` itself.
import { createTransport as createBareTransport } from '../transport/factory.js';
import {
  createMountedTransport as createBareMountedTransport,
  type MountedAgentTransport,
  type MountOptions,
} from '../transport/http/express-adapter.js';
import type { Transport, TransportOptions } from '../transport/transport.js';
import { observabilityHooks } from './hooks.js';

/** Builds a transport by name, observed; rejects with MissingDependencyError when its package is absent. */
export function createTransport(name: string, url: string, options?: TransportOptions): Promise<Transport> {
  return createBareTransport(name, url, { hooks: observabilityHooks, ...options });
}

/** An http transport mounted in a framework's server (express-adapter.ts), observed. */
export function createMountedTransport(url: string, options?: MountOptions): MountedAgentTransport {
  return createBareMountedTransport(url, { hooks: observabilityHooks, ...options });
}
