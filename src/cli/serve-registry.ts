// `parley serve registry`: runs a registry server on a network transport until SIGINT or
// SIGTERM, printing `ready <url>` once it accepts requests. Entries live in an embedded SQLite
// file (WAL), so they survive a restart; `--db :memory:` keeps them in memory only; `--store
// redis://...` keeps them in Redis, shared by several registry replicas. Authentication, TLS and
// --config are the agent's (serve-security.ts), plus --public-discovery.
import { RegistryServer } from '../registry/registry-server.js';
import { SqliteRegistryStore } from '../stores/sqlite/sqlite-registry-store.js';
import { RedisRegistryStore } from '../stores/redis/redis-registry-store.js';
import type { TransportName } from '../transport/capabilities.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { LOG_OPTIONS, LOG_USAGE, logOptions, serverLog } from './log-level.js';
import { METRICS_OPTIONS, METRICS_USAGE, metricsAddress, metricsFromFlags } from './metrics-flags.js';
import { readServeConfig } from './serve-config.js';
import { resolveServeSecurity, SECURITY_OPTIONS, SECURITY_USAGE } from './serve-security.js';
import { UsageError } from './usage-error.js';

type ServedTransport = Exclude<TransportName, 'runtime'>;

/** Where a registry listens by default: beside the agent's 8080, so both run on one machine. */
const DEFAULT_URLS: Readonly<Record<ServedTransport, string>> = {
  http: 'http://127.0.0.1:8000',
  sse: 'http://127.0.0.1:8000',
  websocket: 'ws://127.0.0.1:8000',
  grpc: 'grpc://127.0.0.1:50052',
};

export const DEFAULT_DATABASE = 'parley-registry.db';

const OPTIONS: OptionSpecs = {
  transport: { type: 'string' },
  url: { type: 'string' },
  db: { type: 'string' },
  store: { type: 'string' },
  'store-allow-eviction': { type: 'boolean' },
  ttl: { type: 'string' },
  config: { type: 'string' },
  'public-discovery': { type: 'boolean' },
  ...LOG_OPTIONS,
  tracing: { type: 'boolean' },
  ...METRICS_OPTIONS,
  ...SECURITY_OPTIONS,
};

export const SERVE_REGISTRY_USAGE = `Usage: parley serve registry [--transport http|sse|websocket|grpc] [--url URL] [--db FILE] [--ttl SECONDS]
                             [--store redis://HOST:PORT [--store-allow-eviction]] [--config FILE]
                             [--log-level LEVEL] [--tracing] [--public-discovery]
                             [--metrics [--metrics-url URL] [--metrics-public]]
                             [authentication and TLS options]

Starts a registry, where agents register their cards and find each other, and prints
"ready <url>" once it accepts requests. Ctrl-C (or SIGTERM) stops it: it prints "stopped"
and exits 0. On http and sse, <url>/status is a page listing the live agents.

Options:
  --transport NAME  http, sse, websocket, grpc (default: http)
  --url URL         where to listen (default: http://127.0.0.1:8000, for websocket
                    ws://127.0.0.1:8000, for grpc grpc://127.0.0.1:50052); port 0 picks
                    a free port, and the ready line names the one bound
  --db FILE         the SQLite file that keeps the entries (default: ${DEFAULT_DATABASE} in
                    the current directory; created when missing). :memory: keeps them in
                    memory only, lost at exit
  --store URL       keep the entries in Redis instead (redis://host:port[/db][?prefix=NAME]),
                    shared by every registry replica given the same URL (docs/replicas.md).
                    A Redis that may evict keys (maxmemory-policy other than noeviction
                    or volatile-*) is refused at start
  --store-allow-eviction
                    start on such a Redis anyway, accepting that registrations can be lost
  --ttl SECONDS     forget an agent this long after its last registration or heartbeat
                    (default: never)
  --config FILE     read the transport, URL, transport configuration, auth and
                    public_discovery from a JSON file (see docs/cli.md); flags override it
  --public-discovery
                    with an authenticator: discovery and the status page need no
                    credentials; register, heartbeat and unregister still do. A card is
                    owned by the principal that registered it (docs/registry.md)
  --tracing         OpenTelemetry spans for every request, with W3C trace context read
                    from callers; needs @opentelemetry/api, and an SDK registered in the
                    process (node --import ./otel.mjs) to export them (docs/operations.md)
${METRICS_USAGE}${LOG_USAGE}  -h, --help        show this help

${SECURITY_USAGE}`;

export async function runServeRegistry(
  args: readonly string[],
  resolveTransport: (name: string) => ServedTransport,
): Promise<number> {
  const parsed = parseCommandArgs('serve registry', args, OPTIONS);
  const { options, positionals } = parsed;
  if (positionals.length > 0) {
    throw new UsageError(`serve registry: unexpected argument ${JSON.stringify(positionals[0])} (see parley serve --help)`);
  }
  const {
    tracing,
    'store-allow-eviction': allowEviction,
    'public-discovery': publicDiscovery,
    ...flags
  } = options as {
    'store-allow-eviction'?: boolean;
    transport?: string;
    url?: string;
    db?: string;
    store?: string;
    ttl?: string;
    config?: string;
    'public-discovery'?: boolean;
    'log-level'?: string;
    tracing?: boolean;
  };
  for (const [name, value] of [...Object.entries(flags), ...Object.entries(parsed.lists)]) {
    if (value === '' || (Array.isArray(value) && value.includes('')))
      throw new UsageError(`serve registry: --${name} needs a value`);
  }
  const file = flags.config === undefined ? null : await readServeConfig(flags.config, 'registry');
  const transport = resolveTransport(flags.transport ?? file?.transport ?? 'http');
  const logLevel = logOptions('serve registry', flags['log-level']);
  let ttl: number | null = null;
  if (flags.ttl !== undefined) {
    ttl = Number(flags.ttl);
    if (!Number.isFinite(ttl))
      throw new UsageError(`serve registry: --ttl must be a number of seconds (got ${JSON.stringify(flags.ttl)})`);
  }
  if (flags.db !== undefined && flags.store !== undefined) throw new UsageError('serve registry: give --db or --store, not both');
  if (flags.store !== undefined && !/^rediss?:\/\//.test(flags.store)) {
    throw new UsageError(`serve registry: --store takes a redis:// URL (got ${JSON.stringify(flags.store)})`);
  }
  if (allowEviction && flags.store === undefined) throw new UsageError('serve registry: --store-allow-eviction needs --store');
  const security = await resolveServeSecurity(parsed, file, flags.config ?? null, DEFAULT_URLS[transport], 'serve registry');
  const open = publicDiscovery === true || file?.publicDiscovery === true;
  if (open && !security.authenticator) {
    // Without an authenticator every route is open already: the flag would promise something.
    throw new UsageError('serve registry: --public-discovery needs an authenticator (--api-key, --basic, --jwt-secret, ...)');
  }
  const metrics = metricsFromFlags('serve registry', options, transport);
  const store = flags.store
    ? new RedisRegistryStore(flags.store, { allowEviction: allowEviction === true })
    : new SqliteRegistryStore(flags.db ?? DEFAULT_DATABASE);
  const log = await serverLog('serve registry', logLevel);
  const registry = new RegistryServer({
    transport,
    ...security,
    publicDiscovery: open,
    store,
    entryTtlSeconds: ttl,
    logger: log.logger,
    tracing: tracing === true,
    ...(metrics && { metrics }),
  });
  try {
    await registry.start();
  } catch (error) {
    log.flush();
    console.error(`parley: could not start the registry: ${(error as Error).message}`);
    return 1;
  }
  // The log lines so far (listening) come before the command's own.
  log.flush();
  const count = await registry.count();
  console.log(`store: ${store.kind} ${store.location} (${count} agent${count === 1 ? '' : 's'})`);
  if (transport === 'http' || transport === 'sse') console.log(`status page: ${registry.url.replace(/\/$/, '')}/status`);
  if (metrics) console.log(`metrics ${metricsAddress(registry.url, registry.metricsUrl)}`);
  // Last, so that whoever waits for it has every line above.
  console.log(`ready ${registry.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await registry.stop();
  log.flush();
  console.log('stopped');
  return 0;
}
