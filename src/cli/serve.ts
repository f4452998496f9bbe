// `parley serve agent`: runs an echo agent (text in, the same text back as an artifact), or
// with --llm one that answers with a language model, on a network transport until SIGINT or
// SIGTERM, printing `ready <url>` once it accepts requests; with --registry it joins that
// registry first. `parley serve registry` is in serve-registry.ts. The runtime transport is
// refused: it lives inside one process, so nothing outside this command could reach it.
import { AgentServer } from '../agent/agent-server.js';
import type { TransportName } from '../transport/capabilities.js';
import { resolveTransportName } from '../transport/factory.js';
import { parseCommandArgs, type OptionSpecs, type ParsedArgs } from './args.js';
import type { AgentRegistrationOptions } from '../agent/agent-registration.js';
import { clientSecurity, clientSecurityOptions, givenClientSecurityFlag } from './client-security.js';
import { readInput } from './read-input.js';
import { extendedCardAt, readServeConfig, type ServeFileSettings } from './serve-config.js';
import { resolveServeSecurity, SECURITY_OPTIONS, SECURITY_USAGE } from './serve-security.js';
import { LLM_OPTIONS, LLM_USAGE, modelFromFlags } from './llm-flags.js';
import { LOG_OPTIONS, LOG_USAGE, logOptions, serverLog } from './log-level.js';
import { METRICS_OPTIONS, METRICS_USAGE, metricsAddress, metricsFromFlags } from './metrics-flags.js';
import { UsageError } from './usage-error.js';

/** A transport something outside this process can reach. */
type ServedTransport = Exclude<TransportName, 'runtime'>;

/** The transports `parley serve agent` can listen on, and where each listens by default. */
const DEFAULT_URLS: Readonly<Record<ServedTransport, string>> = {
  http: 'http://127.0.0.1:8080',
  sse: 'http://127.0.0.1:8080',
  websocket: 'ws://127.0.0.1:8080',
  grpc: 'grpc://127.0.0.1:50051',
};
const SERVED = Object.keys(DEFAULT_URLS);

const SERVE_OPTIONS: OptionSpecs = {
  transport: { type: 'string' },
  url: { type: 'string' },
  name: { type: 'string' },
  config: { type: 'string' },
  registry: { type: 'string' },
  ...clientSecurityOptions('registry-'),
  store: { type: 'string' },
  'store-allow-eviction': { type: 'boolean' },
  'queue-concurrency': { type: 'string' },
  a2a: { type: 'boolean' },
  'a2a-push-allow-private': { type: 'boolean' },
  'a2a-push-allow': { type: 'string' },
  'a2a-push-allow-http': { type: 'boolean' },
  'a2a-extended-card': { type: 'string' },
  tracing: { type: 'boolean' },
  ...METRICS_OPTIONS,
  ...SECURITY_OPTIONS,
  ...LLM_OPTIONS,
  ...LOG_OPTIONS,
};

export const SERVE_USAGE = `Usage: parley serve agent [--transport ${SERVED.join('|')}] [--url URL] [--name NAME] [--registry URL] [--a2a]
                         [--a2a-extended-card FILE] [--store redis://HOST:PORT [--store-allow-eviction] [--queue-concurrency N]] [--config FILE] [--log-level LEVEL] [--tracing]
                         [--metrics [--metrics-url URL] [--metrics-public]]
                         [authentication and TLS options]
       parley serve registry [--transport ${SERVED.join('|')}] [--url URL] [--db FILE] [--ttl SECONDS]

Starts an echo agent, which sends the text of each task back as an artifact (with --llm,
an agent that answers with that model), and prints "ready <url>" once it accepts requests.
Ctrl-C (or SIGTERM) stops it: it prints "stopped" and exits 0. For the registry's options
see parley serve registry --help.

Options:
  --transport NAME  ${SERVED.join(', ')} (default: http). The in-process runtime
                    transport cannot be served; use it from code (AgentServer, AgentClient)
  --url URL         where to listen (default: http://127.0.0.1:8080, for websocket
                    ws://127.0.0.1:8080, for grpc grpc://127.0.0.1:50051); port 0 picks
                    a free port, and the ready line names the one bound; https, wss
                    and grpcs URLs need --tls-cert and --tls-key, which alone make
                    the default URL secure
  --name NAME       the agent's name in its card (default: echo; with --llm: assistant)
  --registry URL    register with this registry once serving, heartbeat every 30 s and
                    unregister at exit; a registry that is down does not stop the agent
  --registry-api-key KEY
                    the API key to send to a protected registry (or PARLEY_REGISTRY_API_KEY,
                    or registry.api_key in --config); the agent's own keys are not sent
  --registry-api-key-file FILE
                    the same, the key being the first line of FILE
  --registry-token TOKEN
                    a bearer token (a JWT) for the registry instead (or PARLEY_REGISTRY_TOKEN)
  --registry-token-file FILE
                    the same, the token being the first line of FILE
  --registry-basic USER:PASSWORD
                    HTTP Basic credentials for the registry instead (or PARLEY_REGISTRY_BASIC)
  --registry-basic-file FILE
                    the same, from the first USER:PASSWORD line of FILE
  --registry-ca FILE
                    for an https, wss or grpcs registry: the CA (PEM) to trust
  --registry-cert FILE
                    the agent's client certificate (PEM) for a mutual-TLS registry
  --registry-key FILE
                    the private key (PEM) of --registry-cert
  --registry-servername NAME
                    the name to check the registry's certificate against
  --store URL       share idempotency records, A2A tasks and cancels with the agent's other
                    replicas through Redis: redis://host:port[/db] (docs/replicas.md). A
                    Redis whose maxmemory-policy is not noeviction is refused at start
  --store-allow-eviction
                    start on such a Redis anyway, accepting that shared state can be lost
  --queue-concurrency N
                    with --store and --a2a: how many queued tasks (SendMessage with
                    returnImmediately, run by any replica) this replica runs at once
                    (default 4; or queue_concurrency in --config)
  --config FILE     read these settings, the transport configuration and auth from a
                    JSON file (see docs/cli.md); flags override it
  --a2a             also speak A2A 1.0: on http the public A2A card at
                    /.well-known/agent-card.json, JSON-RPC at POST / and HTTP+JSON
                    under /a2a/rest; on grpc the gRPC binding (lf.a2a.v1.A2AService) on
                    the same port
  --a2a-push-allow-private
                    let A2A push notifications call webhooks on private, loopback and
                    link-local addresses (refused by default: docs/a2a.md)
  --a2a-push-allow HOSTS
                    these host names, addresses and CIDR ranges (comma-separated) may
                    be called although their addresses are private
  --a2a-push-allow-http
                    accept http:// webhook URLs too (default: https only)
  --a2a-extended-card FILE
                    a JSON file with a description and skills (A2A AgentSkill objects)
                    that GetExtendedAgentCard shows to authenticated callers only (or
                    a2a_extended_card in --config); needs --a2a and an authenticator
  --tracing         OpenTelemetry spans for every request, with W3C trace context read
                    from callers; needs @opentelemetry/api, and an SDK registered in the
                    process (node --import ./otel.mjs) to export them (docs/operations.md)
${METRICS_USAGE}${LLM_USAGE}${LOG_USAGE}  -h, --help        show this help

${SECURITY_USAGE}`;

export async function runServe(args: string[]): Promise<number> {
  const [role, ...rest] = args;
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    if (role === 'registry') {
      const { SERVE_REGISTRY_USAGE } = await import('./serve-registry.js');
      process.stdout.write(SERVE_REGISTRY_USAGE);
    } else {
      process.stdout.write(SERVE_USAGE);
    }
    return 0;
  }
  if (role === undefined) {
    process.stderr.write(SERVE_USAGE);
    return 2;
  }
  if (role === 'registry') {
    const { runServeRegistry } = await import('./serve-registry.js');
    return runServeRegistry(rest, servedTransport);
  }
  if (role !== 'agent') {
    throw new UsageError(`unknown role ${JSON.stringify(role)} for serve; expected agent or registry (see parley serve --help)`);
  }
  const parsed = parseCommandArgs('serve agent', rest, SERVE_OPTIONS);
  const { options, positionals } = parsed;
  if (positionals.length > 0) {
    throw new UsageError(`serve agent: unexpected argument ${JSON.stringify(positionals[0])} (see parley serve --help)`);
  }
  const {
    a2a,
    tracing,
    'store-allow-eviction': allowStoreEviction,
    'a2a-push-allow-private': pushAllowPrivate,
    'a2a-push-allow-http': pushAllowHttp,
    'a2a-extended-card': extendedCardFile,
    ...flags
  } = options as {
    'a2a-extended-card'?: string;
    'store-allow-eviction'?: boolean;
    transport?: string;
    url?: string;
    name?: string;
    config?: string;
    registry?: string;
    'registry-api-key'?: string;
    'registry-api-key-file'?: string;
    store?: string;
    'queue-concurrency'?: string;
    a2a?: boolean;
    'a2a-push-allow-private'?: boolean;
    'a2a-push-allow'?: string;
    'a2a-push-allow-http'?: boolean;
    tracing?: boolean;
    llm?: string;
    'llm-base-url'?: string;
    'log-level'?: string;
  };
  for (const [name, value] of [...Object.entries(flags), ...Object.entries(parsed.lists)]) {
    if (value === '' || (Array.isArray(value) && value.includes('')))
      throw new UsageError(`serve agent: --${name} needs a value`);
  }
  if (allowStoreEviction && flags.store === undefined) throw new UsageError('serve agent: --store-allow-eviction needs --store');
  const logLevel = logOptions('serve agent', flags['log-level']);
  const file = flags.config === undefined ? null : await readServeConfig(flags.config);
  const queueConcurrency = queueConcurrencyFrom(flags['queue-concurrency']) ?? file?.queueConcurrency;
  if (queueConcurrency !== undefined && (flags.store === undefined || !a2a))
    throw new UsageError('serve agent: --queue-concurrency needs --store and --a2a (only queued A2A tasks use it)');
  const transport = servedTransport(flags.transport ?? file?.transport ?? 'http');
  const pushAllow = flags['a2a-push-allow']?.split(',').map((entry) => entry.trim());
  if ((pushAllowPrivate || pushAllowHttp || pushAllow) && !a2a) {
    throw new UsageError('serve agent: the --a2a-push-* options need --a2a');
  }
  if (pushAllow?.includes('')) throw new UsageError('serve agent: --a2a-push-allow has an empty entry');
  if (a2a && transport !== 'http' && transport !== 'grpc')
    throw new UsageError(`serve agent: --a2a needs the http or grpc transport, not ${transport}`);
  const security = await resolveServeSecurity(parsed, file, flags.config ?? null, DEFAULT_URLS[transport]);
  const a2aExtendedCard = await extendedCardFrom(extendedCardFile, file);
  if (a2aExtendedCard && !a2a) throw new UsageError('serve agent: an extended A2A card needs --a2a');
  if (a2aExtendedCard && !security.authenticator)
    throw new UsageError(
      'serve agent: an extended A2A card needs an authenticator (it is shown to authenticated callers only); see --api-key, --basic or --jwt-secret',
    );
  const llm = modelFromFlags(flags);
  const name = flags.name ?? file?.name;
  const identity = llm
    ? { name: name ?? 'assistant', description: `Answers with the model ${llm.name}.`, role: 'assistant', tags: ['llm'] }
    : {
        name: name ?? 'echo',
        description: 'Echoes the text of each task back as an artifact.',
        role: 'echo',
        tags: ['echo', 'example'],
      };
  const metrics = metricsFromFlags('serve agent', options, transport);
  const registry = await registryFromFlags(parsed, flags, file);
  const log = await serverLog('serve agent', logLevel);
  const agent = new AgentServer({
    ...identity,
    transport,
    ...security,
    registry,
    a2a: a2a === true,
    a2aPush:
      pushAllowPrivate || pushAllowHttp || pushAllow
        ? { allowPrivate: pushAllowPrivate === true, allowHttp: pushAllowHttp === true, allow: pushAllow ?? [] }
        : undefined,
    ...(a2aExtendedCard && { a2aExtendedCard }),
    tracing: tracing === true,
    llm,
    store: flags.store,
    allowStoreEviction: allowStoreEviction === true,
    ...(queueConcurrency !== undefined && { taskQueue: { concurrency: queueConcurrency } }),
    logger: log.logger,
    ...(metrics && { metrics }),
  });
  try {
    await agent.start();
  } catch (error) {
    log.flush();
    console.error(`parley: could not start the agent: ${(error as Error).message}`);
    return 1;
  }
  // The `listening` line goes out now, as it would unbatched, before the registration's answer.
  log.flush();
  // Ready means discoverable too: wait for the first registration's answer (bounded by its deadline).
  const joined = await agent.whenRegistered();
  // Any line logged meanwhile comes before the command's own.
  log.flush();
  if (joined?.error) console.error(`parley: could not register with ${registry?.url}: ${joined.status}; retrying every 30 s`);
  else if (joined) console.log(`registered with ${registry?.url}`);
  if (metrics) console.log(`metrics ${metricsAddress(agent.url, agent.metricsUrl)}`);
  console.log(`ready ${agent.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await agent.stop();
  log.flush();
  console.log('stopped');
  return 0;
}

/** The extended A2A card: --a2a-extended-card FILE over the config file's a2a_extended_card. */
async function extendedCardFrom(path: string | undefined, file: ServeFileSettings | null) {
  if (path === undefined) return file?.a2aExtendedCard;
  if (path === '') throw new UsageError('serve agent: --a2a-extended-card needs a value');
  const text = await readInput(path === '-' ? './-' : path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`, { code: 'invalid_json', file: path });
  }
  return extendedCardAt(value, path);
}

/**
 * The registry the agent joins and how it calls it: --registry over the config file's
 * registry.url; credentials from the --registry-* flags (api key, token or basic, each with its
 * -file form), then PARLEY_REGISTRY_API_KEY, _TOKEN or _BASIC, then the file's registry.api_key;
 * TLS from --registry-ca, --registry-cert, --registry-key and --registry-servername. Any of them
 * given on the command line or in the file without a registry is a mistake (the environment may
 * be shared).
 */
async function registryFromFlags(
  parsed: ParsedArgs,
  flags: { registry?: string },
  file: ServeFileSettings | null,
): Promise<AgentRegistrationOptions | undefined> {
  const url = flags.registry ?? file?.registry?.url;
  if (url === undefined) {
    const given =
      givenClientSecurityFlag(parsed, 'registry-') ?? (file?.registry?.apiKey !== undefined ? 'registry.api_key' : null);
    if (given !== null) throw new UsageError(`serve agent: ${given} needs --registry URL or registry.url`);
    return undefined;
  }
  const { auth, tls } = await clientSecurity('serve agent', parsed, url, 'registry', 'registry-');
  const fileKey = file?.registry?.apiKey;
  const credentials = auth ?? (fileKey !== undefined ? { apiKey: fileKey } : undefined);
  if (!credentials && !tls) return { url };
  return { url, client: { ...(credentials && { auth: credentials }), ...(tls && { tls }) } };
}

/** The canonical name of a transport this command can listen on, or a usage error. */
export function servedTransport(name: string): ServedTransport {
  let canonical: TransportName;
  try {
    canonical = resolveTransportName(name);
  } catch {
    throw new UsageError(`unknown transport ${JSON.stringify(name)}; expected one of ${SERVED.join(', ')}`);
  }
  if (canonical === 'runtime') {
    throw new UsageError(
      'the runtime transport is in-process only, so nothing outside this process could reach it; ' +
        `use it from code with AgentServer and AgentClient, or serve one of ${SERVED.join(', ')}`,
    );
  }
  return canonical;
}

/** `--queue-concurrency N`: a whole number, at least 1. */
function queueConcurrencyFrom(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const count = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(Number.isSafeInteger(count) && count >= 1))
    throw new UsageError(`serve agent: --queue-concurrency must be a whole number, at least 1 (got ${JSON.stringify(value)})`);
  return count;
}
