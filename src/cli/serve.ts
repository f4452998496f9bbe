// `parley serve agent`: runs an echo agent (text in, the same text back as an artifact), or
// with --llm one that answers with a language model, on a network transport until SIGINT or
// SIGTERM, printing `ready <url>` once it accepts requests.
// Only the agent role exists so far. The runtime transport is refused: it lives inside one
// process, so nothing outside this command could ever reach an agent served on it.
import { AgentServer } from '../agent/agent-server.js';
import type { TransportName } from '../transport/capabilities.js';
import { resolveTransportName } from '../transport/factory.js';
import { parseCommandArgs, type OptionSpecs } from './args.js';
import { LLM_OPTIONS, LLM_USAGE, modelFromFlags } from './llm-flags.js';
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
  ...LLM_OPTIONS,
};

export const SERVE_USAGE = `Usage: parley serve agent [--transport ${SERVED.join('|')}] [--url URL] [--name NAME]

Starts an echo agent, which sends the text of each task back as an artifact (with --llm,
an agent that answers with that model), and prints "ready <url>" once it accepts requests. Ctrl-C (or SIGTERM) stops it: it prints "stopped"
and exits 0. Only an agent can be served so far.

Options:
  --transport NAME  ${SERVED.join(', ')} (default: http). The in-process runtime
                    transport cannot be served; use it from code (AgentServer, AgentClient)
  --url URL         where to listen (default: http://127.0.0.1:8080, for websocket
                    ws://127.0.0.1:8080, for grpc grpc://127.0.0.1:50051); port 0 picks
                    a free port, and the ready line names the one bound
  --name NAME       the agent's name in its card (default: echo; with --llm: assistant)
${LLM_USAGE}  -h, --help        show this help
`;

export async function runServe(args: string[]): Promise<number> {
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  const [role, ...rest] = args;
  if (role === undefined) {
    process.stderr.write(SERVE_USAGE);
    return 2;
  }
  if (role !== 'agent') {
    throw new UsageError(`unknown role ${JSON.stringify(role)} for serve; only agent can be served so far (see parley serve --help)`);
  }
  const { options, positionals } = parseCommandArgs('serve agent', rest, SERVE_OPTIONS);
  if (positionals.length > 0) {
    throw new UsageError(`serve agent: unexpected argument ${JSON.stringify(positionals[0])} (see parley serve --help)`);
  }
  const flags = options as { transport?: string; url?: string; name?: string; llm?: string; 'llm-base-url'?: string };
  for (const [name, value] of Object.entries(flags)) {
    if (value === '') throw new UsageError(`serve agent: --${name} needs a value`);
  }
  const transport = servedTransport(flags.transport ?? 'http');
  const llm = modelFromFlags(flags);
  const identity = llm
    ? { name: flags.name ?? 'assistant', description: `Answers with the model ${llm.name}.`, role: 'assistant', tags: ['llm'] }
    : { name: flags.name ?? 'echo', description: 'Echoes the text of each task back as an artifact.', role: 'echo', tags: ['echo', 'example'] };
  const agent = new AgentServer({ ...identity, transport, url: flags.url ?? DEFAULT_URLS[transport], llm });
  try {
    await agent.start();
  } catch (error) {
    console.error(`parley: could not start the agent: ${(error as Error).message}`);
    return 1;
  }
  console.log(`ready ${agent.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await agent.stop();
  console.log('stopped');
  return 0;
}

/** The canonical name of a transport this command can listen on, or a usage error. */
function servedTransport(name: string): ServedTransport {
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
