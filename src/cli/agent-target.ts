// What the agent commands (card, health, send, stream) share: the agent URL they take first,
// the --transport option (described by registry-target.ts's TRANSPORT_HELP) and an AgentClient
// for them. A URL whose transport cannot be told, or a runtime:// one, is a usage error, worded
// in the command's own flags (--transport, --protocol), not the library's option names.
import { AgentClient, type AgentClientOptions } from '../client/agent-client.js';
import { resolveTransportName, transportForScheme } from '../transport/factory.js';
import { UsageError } from './usage-error.js';

const CLIENT_TRANSPORTS = 'http, sse, websocket or grpc';

export function agentClient(command: string, url: string | undefined, options: AgentClientOptions = {}): AgentClient {
  if (url === undefined || url === '') throw new UsageError(`${command}: give the agent's URL (see parley ${command} --help)`);
  const name = commandTransport(command, url, options.transport, 'agent');
  if (options.protocol === 'a2a' && name !== 'http') {
    throw new UsageError(`${command}: --protocol a2a needs the http transport, not --transport ${name}`);
  }
  try {
    return new AgentClient(url, { ...options, transport: name });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

/**
 * The transport a client command uses: --transport when given, else the URL's scheme. Unknown
 * names, URLs that imply none, and runtime (in-process only) are usage errors.
 */
export function commandTransport(
  command: string,
  url: string,
  transport: string | undefined,
  peer: 'agent' | 'registry',
): string {
  let name: string | undefined;
  if (transport !== undefined) {
    try {
      name = resolveTransportName(transport);
    } catch {
      throw new UsageError(`${command}: --transport must be ${CLIENT_TRANSPORTS} (got ${JSON.stringify(transport)})`);
    }
  } else {
    name = transportForScheme(url);
    if (name === undefined) {
      throw new UsageError(
        `${command}: cannot tell the transport from ${JSON.stringify(url)}: give an http(s), ws(s) or grpc(s) URL, or --transport NAME`,
      );
    }
  }
  if (name === 'runtime')
    throw new UsageError(`${command}: a runtime:// ${peer} lives inside another process; give its network URL`);
  return name;
}
