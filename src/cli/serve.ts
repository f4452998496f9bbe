// `parley serve agent`: runs an echo agent (text in, the same text back as an artifact) on
// any transport until SIGINT or SIGTERM, printing `ready <url>` once it accepts requests.
import { AgentServer } from '../agent/agent-server.js';
import { resolveTransportName } from '../transport/factory.js';

const DEFAULT_URLS: Readonly<Record<string, string>> = {
  http: 'http://127.0.0.1:8080',
  sse: 'http://127.0.0.1:8080',
  websocket: 'ws://127.0.0.1:8080',
  grpc: 'grpc://127.0.0.1:50051',
  runtime: 'runtime://echo',
};

const USAGE = `usage: parley serve agent [--transport http|sse|websocket|grpc|runtime] [--url URL] [--name NAME]

Starts an echo agent and prints "ready <url>" when it accepts requests. Defaults: http on
http://127.0.0.1:8080 (websocket ws://127.0.0.1:8080, grpc grpc://127.0.0.1:50051). Port 0
picks a free port. Stop it with Ctrl-C.`;

export async function runServe(args: string[]): Promise<number> {
  const [role, ...rest] = args;
  if (role === undefined || role === '--help' || role === '-h') {
    console.log(USAGE);
    return role === undefined ? 2 : 0;
  }
  if (role !== 'agent') {
    console.error(`parley: unknown role ${JSON.stringify(role)} for serve\n${USAGE}`);
    return 2;
  }
  const flags = parseFlags(rest);
  if (flags instanceof Error) {
    console.error(`parley: ${flags.message}\n${USAGE}`);
    return 2;
  }
  let transport: string;
  try {
    transport = resolveTransportName(flags.transport ?? 'http');
  } catch (error) {
    console.error(`parley: ${(error as Error).message}`);
    return 2;
  }
  const agent = new AgentServer({
    name: flags.name ?? 'echo',
    description: 'Echoes the text of each task back as an artifact.',
    role: 'echo',
    tags: ['echo', 'example'],
    transport,
    url: flags.url ?? DEFAULT_URLS[transport]!,
  });
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

function parseFlags(args: string[]): { transport?: string; url?: string; name?: string } | Error {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const match = /^--(transport|url|name)(?:=(.*))?$/.exec(arg);
    if (!match) return new Error(`unknown argument ${JSON.stringify(arg)}`);
    const value = match[2] ?? args[++i];
    if (value === undefined || value === '') return new Error(`--${match[1]} needs a value`);
    flags[match[1]!] = value;
  }
  return flags;
}
