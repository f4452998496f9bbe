// RegistryServer: stores agent cards keyed by card URL and answers discovery, served over one
// transport. The lifecycle is the agent server's (ServerLifecycle): start() opens the store,
// builds the endpoint table from the generated registry operations, hands it to the transport
// and starts it; only then is the server running. stop() stops the transport, then closes the
// store; a failing step leaves it running. Expired entries are pruned lazily, before the
// operations that read.
import type { RegistryHandlers } from '../../generated/handlers/registry.js';
import type { AgentCard, AgentUrlRequest, DiscoverQuery, RegistryEntry, RegistryStatus } from '../../generated/types/index.js';
import { validate } from '../../generated/validators/index.js';
import { nowSeconds } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
import { registryOpenApiDocument } from '../core/openapi-documents.js';
import type { Endpoint, QueryParams, RequestContext } from '../transport/endpoint.js';
import { EndpointError } from '../transport/endpoint-error.js';
import { ServerLifecycle, type ServerLifecycleOptions } from '../server/lifecycle.js';
import type { Transport } from '../transport/transport.js';
import { discoveryFilter, filterSize, indexKeys, matches, type DiscoveryFilter } from './discovery.js';
import { buildRegistryEndpoints } from './registry-endpoints.js';
import { registryOperations } from '../../generated/operations/registry.js';
import { MAX_FILTER_VALUES, type RegistryStore } from './registry-store.js';
import { renderRegistryStatusPage } from './status-page.js';
import { REGISTRY_STATUS } from '../../generated/operations/registry.js';
import { openStores } from '../stores/open.js';

/** The store a `store` option names. */
function storeFor(store: RegistryStore | string, allowEviction: boolean): RegistryStore {
  return typeof store === 'string' ? openStores(store, { allowEviction }).registryStore() : store;
}

/** Default largest card a registry stores: 64 KiB of JSON. */
export const DEFAULT_MAX_CARD_BYTES = 65_536;

export interface RegistryServerOptions extends ServerLifecycleOptions {
  /**
   * Where entries live: a RegistryStore, `memory` (the default, a MemoryRegistryStore) or a Redis
   * URL, `redis://host:port[/db][?prefix=NAME]`, shared by every replica (docs/replicas.md). The
   * server opens it at start and closes it at stop.
   */
  readonly store?: RegistryStore | string;
  /**
   * Start on a Redis `store` URL even when Redis may evict keys (a maxmemory-policy other than
   * noeviction or volatile-*, or one that cannot be read): registrations can then be lost.
   * Default false: refused. A RedisRegistryStore built by hand takes `allowEviction` instead.
   */
  readonly allowStoreEviction?: boolean;
  /**
   * Seconds an entry stays live after its last registration or heartbeat (spec
   * `entry_ttl_seconds`). Unset or null: no expiry. Zero or negative expires any entry with
   * positive age.
   */
  readonly entryTtlSeconds?: number | null;
  /** Largest card accepted, in bytes of its JSON. Default 65536. */
  readonly maxCardBytes?: number;
  /** Seconds since the Unix epoch; replaceable so that tests can move time. Default: the wall clock. */
  readonly clock?: () => number;
  /**
   * With an `authenticator`: reads (discover and the status page) need no credentials, while
   * writes (register, heartbeat, unregister) still do. Default false: every route but the
   * probes and the OpenAPI document needs credentials. Without an authenticator every route
   * is open anyway.
   */
  readonly publicDiscovery?: boolean;
}

export class RegistryServer extends ServerLifecycle implements RegistryHandlers<RequestContext> {
  readonly store: RegistryStore;
  readonly entryTtlSeconds: number | null;
  readonly publicDiscovery: boolean;
  private readonly maxCardBytes: number;
  private readonly clock: () => number;

  constructor(options: RegistryServerOptions = {}) {
    super(options, 'registry', registryOperations.getMetrics);
    const ttl = options.entryTtlSeconds ?? null;
    if (ttl !== null && (typeof ttl !== 'number' || Number.isNaN(ttl))) {
      throw new InvalidArgumentError(`entryTtlSeconds must be a number or null (got ${String(ttl)})`);
    }
    this.entryTtlSeconds = ttl;
    const maxCardBytes = options.maxCardBytes ?? DEFAULT_MAX_CARD_BYTES;
    if (!Number.isInteger(maxCardBytes) || maxCardBytes <= 0) {
      throw new InvalidArgumentError(`maxCardBytes must be a positive integer (got ${String(maxCardBytes)})`);
    }
    this.maxCardBytes = maxCardBytes;
    this.store = storeFor(options.store ?? 'memory', options.allowStoreEviction ?? false);
    this.clock = options.clock ?? nowSeconds;
    this.publicDiscovery = options.publicDiscovery === true;
  }

  protected async openStores(): Promise<void> {
    await this.store.open();
    await this.prune();
  }

  protected async closeStores(): Promise<void> {
    await this.store.close();
  }

  protected buildEndpoints(transport: Transport): Map<string, Endpoint> {
    return buildRegistryEndpoints(this, transport, this.logger);
  }

  // --- the generated handler interface ---

  /**
   * Stores the card (replacing any under the same URL) once it passes the AgentCard schema and
   * the size limit, owned by the caller's principal. Replacing another principal's entry is
   * refused with `forbidden` (403).
   */
  register(card: AgentCard, context?: RequestContext): Promise<RegistryStatus> {
    const checked = validate('agent-card', card);
    if (!checked.valid) return Promise.reject(EndpointError.invalidRequest('card', checked.errors));
    return this.registerValid(card, context);
  }

  /** register() for a card the dispatcher has already checked against the schema. */
  async registerValid(card: AgentCard, context?: RequestContext): Promise<RegistryStatus> {
    const text = JSON.stringify(withDefaults(card));
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.maxCardBytes) {
      throw new EndpointError('payload_too_large', `card is ${bytes} bytes, over the registry's limit of ${this.maxCardBytes}`, {
        limit: this.maxCardBytes,
        size: bytes,
      });
    }
    const now = this.clock();
    const owner = callerOf(context);
    // A private copy: the caller's object stays theirs, and the store may keep this one as it is.
    const entry: RegistryEntry = {
      card: JSON.parse(text) as AgentCard,
      last_seen: now,
      metadata: { registered_at: now },
      ...(owner !== null && { owner }),
    };
    if (!(await this.store.put(entry))) {
      // Not `not found` (the card is listed) nor a success (nothing was stored): the caller
      // is authenticated but may not write this entry.
      throw new EndpointError('forbidden', `the agent at ${card.url} is registered by another principal`);
    }
    return { status: REGISTRY_STATUS.registered };
  }

  /**
   * Removes the agent; an unknown or missing URL is a success too, and so is another
   * principal's entry, which stays (the same answer as for an unknown card).
   */
  async unregister(request: AgentUrlRequest, context?: RequestContext): Promise<RegistryStatus> {
    const url = agentUrlOf(request);
    if (url !== null) await this.store.remove(url, callerOf(context));
    return { status: REGISTRY_STATUS.unregistered };
  }

  /**
   * Refreshes last_seen of a live agent; `agent not found` otherwise (a normal answer), also
   * for another principal's entry.
   */
  async heartbeat(request: AgentUrlRequest, context?: RequestContext): Promise<RegistryStatus> {
    await this.prune();
    const url = agentUrlOf(request);
    const found = url !== null && (await this.store.touch(url, this.clock(), callerOf(context)));
    return { status: found ? REGISTRY_STATUS.heartbeat : REGISTRY_STATUS.notFound };
  }

  /** The live cards matching the query's filters; every live card without one. */
  async discover(query: DiscoverQuery = {}, _context?: RequestContext): Promise<AgentCard[]> {
    return (await this.findLive(discoveryFilter(query))).map((entry) => entry.card);
  }

  async getStatusPage(context?: RequestContext): Promise<string> {
    const params = context?.params ?? {};
    const shown = pageFilter(params);
    const entries = await this.findLive(shown ? discoveryFilter(shown) : null);
    return renderRegistryStatusPage({
      entries,
      total: await this.store.count(),
      filter: shown ?? {},
      now: this.clock(),
      ttl: this.entryTtlSeconds,
      store: this.store,
      health: this.transport.health(),
    });
  }

  /** The OpenAPI 3.1 document of the registry's HTTP API, as `GET /openapi.json` serves it (http and sse). */
  getOpenApi(): Promise<Record<string, unknown>> {
    return registryOpenApiDocument();
  }

  // --- the spec's other registry calls ---

  /** URLs of every live agent. */
  async listUrls(): Promise<string[]> {
    await this.prune();
    return this.store.urls();
  }

  /** How many agents are live. */
  async count(): Promise<number> {
    await this.prune();
    return this.store.count();
  }

  /** The live entry for a card URL, if any. */
  async getEntry(url: string): Promise<RegistryEntry | undefined> {
    await this.prune();
    return this.store.get(url);
  }

  /**
   * The live entries matching `filter` (every live entry for null), expired ones pruned first:
   * the secondary indexes intersected, each candidate then checked against every field; a full
   * scan when the indexes give nothing while cards exist. A store that does all that in one step
   * (find: Redis, where each call is a round trip) is asked once. A filter past
   * MAX_FILTER_VALUES is refused before any store sees it.
   */
  private async findLive(filter: DiscoveryFilter | null): Promise<RegistryEntry[]> {
    const size = filter === null ? 0 : filterSize(filter);
    if (size > MAX_FILTER_VALUES) {
      throw new EndpointError(
        'invalid_request',
        `a discovery takes at most ${MAX_FILTER_VALUES} filter values (name, role, each tag, ...); this one has ${size}`,
        { limit: MAX_FILTER_VALUES, size },
      );
    }
    const keys = filter === null ? null : indexKeys(filter);
    let candidates: RegistryEntry[];
    if (this.store.find) {
      const live = this.entryTtlSeconds === null ? null : { now: this.clock(), ttl: this.entryTtlSeconds };
      candidates = await this.store.find(keys, live);
    } else {
      await this.prune();
      if (filter === null) return this.store.all();
      candidates = keys ? await this.store.lookup(keys) : [];
      if (candidates.length === 0 && (await this.store.count()) > 0) candidates = await this.store.all();
    }
    return filter === null ? candidates : candidates.filter((entry) => matches(entry.card, filter));
  }

  private async prune(): Promise<void> {
    if (this.entryTtlSeconds !== null) await this.store.prune(this.clock(), this.entryTtlSeconds);
  }
}

/** The card as stored: the schema's defaults filled in, so every card has what discovery filters on. */
function withDefaults(card: AgentCard): AgentCard {
  return { ...card, description: card.description ?? '', role: card.role ?? '', tags: card.tags ?? [] };
}

/**
 * The principal a write is made as: the authenticated caller's, or null (anonymous) when the
 * registry has no authenticator or the call comes from code in the process without a context.
 */
function callerOf(context: RequestContext | undefined): string | null {
  return context?.security?.principal_id ?? null;
}

/** `agent_url` of an unregister or heartbeat body; missing reads as null. */
function agentUrlOf(request: AgentUrlRequest | null | undefined): string | null {
  const url = request?.agent_url;
  return typeof url === 'string' ? url : null;
}

/** The status page's own filter form: name, role and tags, blank fields left out. */
function pageFilter(params: QueryParams): Record<string, string | readonly string[]> | null {
  const filter: Record<string, string | readonly string[]> = {};
  for (const key of ['name', 'role', 'tags']) {
    const value = params[key];
    if (typeof value === 'string' ? value.trim() !== '' : Array.isArray(value) && value.length > 0) filter[key] = value!;
  }
  return Object.keys(filter).length > 0 ? filter : null;
}
