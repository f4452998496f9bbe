// The native card an agent serves at GET /.well-known/agent.json, and the security schemes it
// advertises: one entry per configured authenticator, keyed by scheme (`apiKey`, `basic`,
// `bearer`, `oauth2`, ...), in the wire form. advertisedSchemes() is the one place that decides the
// keys, so the public A2A card can translate the same list.
import type { AgentCard, SecurityScheme } from '../../generated/types/index.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { CardIdentity } from '../core/card-identity.js';
import type { Transport } from '../transport/transport.js';

/** Version of the native wire contract the interface speaks (svc.transport.v1). */
const NATIVE_PROTOCOL_VERSION = '1';

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
  if (authenticator) {
    card.securitySchemes = Object.fromEntries(advertisedSchemes(authenticator).map(({ key, scheme }) => [key, scheme]));
  }
  return card;
}

export interface AdvertisedScheme {
  /** The key under `securitySchemes`: the HTTP scheme for `http` (`basic`, `bearer`), else the type. */
  readonly key: string;
  /** A copy of the authenticator's scheme with exactly the four wire fields. */
  readonly scheme: SecurityScheme;
}

/** The schemes an agent with this authenticator advertises, in the wire form; none without one. */
export function advertisedSchemes(authenticator: Authenticator | null): AdvertisedScheme[] {
  if (!authenticator) return [];
  const { type, scheme, description, metadata } = authenticator.scheme;
  const key = type === 'http' ? (scheme ?? 'http') : type;
  // A copy, so a caller editing a card never edits the authenticator's scheme.
  return [
    { key, scheme: { type, scheme: scheme ?? null, description: description ?? '', metadata: structuredClone(metadata ?? {}) } },
  ];
}
