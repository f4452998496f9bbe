// What the registry commands (discover, register, unregister) share: the registry URL they
// take as their first argument, the --transport option (sse and http share a scheme), and a
// client for it, with the credentials and TLS of the command's flags (client-security.ts; a
// registry also takes PARLEY_REGISTRY_API_KEY from the environment). A URL whose transport
// cannot be told is a usage error.
import { RegistryClient } from '../client/registry-client.js';
import { commandTransport } from './agent-target.js';
import type { ClientSecurity } from './client-security.js';
import { UsageError } from './usage-error.js';

export const TRANSPORT_HELP = `  --transport NAME  http, sse, websocket or grpc; by default taken from the URL scheme
                    (http/https: http, ws/wss: websocket, grpc/grpcs: grpc)`;

export function registryClient(
  command: string,
  url: string | undefined,
  transport: string | undefined,
  security: ClientSecurity = {},
): RegistryClient {
  if (url === undefined || url === '') throw new UsageError(`${command}: give the registry's URL (see parley ${command} --help)`);
  const name = commandTransport(command, url, transport, 'registry');
  return new RegistryClient(url, { transport: name, ...security });
}
