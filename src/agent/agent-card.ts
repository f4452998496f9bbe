// The native card an agent serves at GET /.well-known/agent.json.
import type { AgentCard, SecurityScheme } from '../../generated/types/index.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Transport } from '../transport/transport.js';

export interface CardIdentity {
  readonly name: string;
  readonly description?: string;
  readonly role?: string;
  readonly tags?: readonly string[];
  readonly version?: string;
}

/** Version of the native wire contract the interface speaks (svc.transport.v1). */
export const NATIVE_PROTOCOL_VERSION = '1';

export function buildAgentCard(
  identity: CardIdentity,
  transport: Transport,
  hasLlm: boolean,
  authenticator: Authenticator | null,
): AgentCard {
  const card: AgentCard = {
    name: identity.name,
    description: identity.description ?? '',
    url: transport.url,
    role: identity.role ?? '',
    tags: [...(identity.tags ?? [])],
    capabilities: { has_llm: hasLlm, streaming: transport.capabilities.streaming },
    interfaces: [{ url: transport.url, transport: transport.name, protocol_version: NATIVE_PROTOCOL_VERSION }],
  };
  if (identity.version) card.version = identity.version;
  if (authenticator) card.securitySchemes = { [schemeKey(authenticator.scheme)]: { ...authenticator.scheme } };
  return card;
}

function schemeKey(scheme: SecurityScheme): string {
  return scheme.type === 'http' ? `${scheme.scheme ?? 'http'}` : scheme.type;
}
