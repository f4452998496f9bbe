// Turns the generated registry operation table plus a RegistryServer into the endpoint table
// a transport serves, keeping only the operations available on that transport (the HTML
// status page on http and sse).
import type { OperationSpec } from '../../generated/operations/spec.js';
import { registryOperations } from '../../generated/operations/registry.js';
import type { AgentCard, AgentUrlRequest, DiscoverQuery } from '../../generated/types/index.js';
import type { Logger } from '../observability/logger.js';
import { routeKey, type Endpoint, type RequestContext } from '../transport/endpoint.js';
import type { Transport } from '../transport/transport.js';
import type { RegistryServer } from './registry-server.js';
import { storeFailure } from './store-failure.js';

type Serve = (data: unknown, context: RequestContext) => Promise<unknown>;

/**
 * The registry's endpoint table for one transport. A store failure reaches the client as a
 * stable code (store-failure.ts) and `logger` (or stderr) gets the failure itself.
 */
export function buildRegistryEndpoints(
  registry: RegistryServer,
  transport: Transport,
  logger: Logger | null,
): Map<string, Endpoint> {
  const serve: Record<keyof typeof registryOperations, Serve> = {
    // The dispatcher has checked the card against its schema already.
    register: (data, context) => registry.registerValid(data as AgentCard, context),
    unregister: (data, context) => registry.unregister(data as AgentUrlRequest, context),
    heartbeat: (data, context) => registry.heartbeat(data as AgentUrlRequest, context),
    discover: (data, context) => registry.discover(data as DiscoverQuery, context),
    getStatusPage: (_data, context) => registry.getStatusPage(context),
    getMetrics: () => registry.getMetrics(),
    healthz: async () => registry.healthz(),
    readyz: async () => registry.readyz(),
    getOpenApi: () => registry.getOpenApi(),
  };
  const table = new Map<string, Endpoint>();
  for (const [name, spec] of Object.entries(registryOperations) as Array<[keyof typeof registryOperations, OperationSpec]>) {
    if (spec.availability === 'html-transport' && transport.name !== 'http' && transport.name !== 'sse') continue;
    const run = serve[name];
    const unary: Serve = (data, context) =>
      run(data, context).catch((error: unknown) => Promise.reject(storeFailure(error, name, logger)));
    // Reads may be public while writes need credentials (publicDiscovery).
    const reads = name === 'discover' || name === 'getStatusPage';
    const endpoint: Endpoint = {
      spec: reads && registry.publicDiscovery ? { ...spec, public: true } : spec,
      unary,
      // Heartbeat and unregister are keyed by agent_url, so every heartbeat of an agent carries
      // the same key: a stored answer replayed to the next one would leave last_seen stale, and
      // an unregister replayed after a re-registration would leave the agent listed. Concurrent
      // duplicates (a retried attempt) still share one answer.
      ...((name === 'heartbeat' || name === 'unregister') && { replayable: never }),
      // A heartbeat is traced only as part of its caller's trace: the agent's side skips
      // tracing heartbeats by default, and a root trace every interval would be noise here too.
      ...(name === 'heartbeat' && { tracedOnlyWhenContinued: true }),
    };
    table.set(routeKey(spec.method, spec.path), endpoint);
  }
  return table;
}

function never(): boolean {
  return false;
}
