// What the registry commands (discover, register, unregister) share: the registry URL they
// take as their first argument, the --transport option (sse and http share a scheme), and a
// client for it, which sends PARLEY_REGISTRY_API_KEY to a protected registry when it is set
// (from the environment only: a command line is visible to every local user). A URL whose
// transport cannot be told is a usage error.
import { RegistryClient } from '../client/registry-client.js';
import { resolveTransportName } from '../transport/factory.js';
import { transportForUrl } from '../client/agent-client.js';
import { UsageError } from './usage-error.js';

export const TRANSPORT_HELP = `  --transport NAME  http, sse, websocket or grpc; by default taken from the URL scheme
                    (http/https: http, ws/wss: websocket, grpc/grpcs: grpc)`;

export function registryClient(command: string, url: string | undefined, transport: string | undefined): RegistryClient {
  if (url === undefined || url === '') throw new UsageError(`${command}: give the registry's URL (see parley ${command} --help)`);
  let name: string;
  try {
    name = transport === undefined ? transportForUrl(url) : resolveTransportName(transport);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
  if (name === 'runtime')
    throw new UsageError(`${command}: a runtime:// registry lives inside another process; give its network URL`);
  const apiKey = process.env.PARLEY_REGISTRY_API_KEY?.trim();
  return new RegistryClient(url, { transport: name, ...(apiKey && { apiKey }) });
}
