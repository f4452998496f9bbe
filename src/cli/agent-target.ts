// What the agent commands (card, health, send, stream) share: the agent URL they take first,
// the --transport option (described by registry-target.ts's TRANSPORT_HELP) and an AgentClient
// for them. A URL whose transport cannot be told, or a runtime:// one, is a usage error.
import { AgentClient, transportForUrl, type AgentClientOptions } from '../client/agent-client.js';
import { resolveTransportName } from '../transport/factory.js';
import { UsageError } from './usage-error.js';

export function agentClient(command: string, url: string | undefined, options: AgentClientOptions = {}): AgentClient {
  if (url === undefined || url === '') throw new UsageError(`${command}: give the agent's URL (see parley ${command} --help)`);
  let name: string;
  try {
    name = options.transport === undefined ? transportForUrl(url) : resolveTransportName(options.transport);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
  if (name === 'runtime')
    throw new UsageError(`${command}: a runtime:// agent lives inside another process; give its network URL`);
  try {
    return new AgentClient(url, { ...options, transport: name });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}
