// parley-agents/internal: the pipeline's plumbing, for code that builds its own endpoint tables or
// transports around parley's pipeline (and for parley's own tests and benchmarks). Nothing here
// is part of the public API: any name may change or go in any release, minor and patch included,
// without a line in the upgrading notes. What users call is in the main entry (`parley`).

/** @internal An endpoint of a hand-built table: its operation spec, handler and stream fallback. */
export type { Endpoint } from './transport/endpoint.js';
/** @internal Endpoints keyed by `METHOD path`, as `Transport.serve` takes them. */
export type { EndpointTable } from './transport/endpoint.js';
/** @internal How a protocol that names its own calls starts its SERVER span. */
export type { SpanStart } from './transport/endpoint.js';
/** @internal One stream event as a handler produces it. */
export type { StreamItem } from './transport/endpoint.js';
/** @internal How a protocol that names its own calls names its CLIENT span. */
export type { CallSpans } from './transport/outbound.js';
/** @internal The transport a URL implies, or the named one. */
export { transportForUrl } from './client/agent-client.js';
/** @internal The canonical name of a transport, or InvalidArgumentError. */
export { resolveTransportName } from './transport/factory.js';
/** @internal The final event of a task stream, made from the finished task. */
export { taskCompletedEvent } from './agent/task-completed-event.js';
/** @internal The status texts a registry answers register, unregister and heartbeat with. */
export { REGISTRY_STATUS } from '../generated/operations/registry.js';
/** @internal The default largest card a registry stores (64 KiB of JSON). */
export { DEFAULT_MAX_CARD_BYTES } from './registry/registry-server.js';
