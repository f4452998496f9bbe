// The public A2A 1.0 card (GET /.well-known/agent-card.json): the agent's identity, one
// JSON-RPC interface at the agent's root speaking A2A 1.0, streaming declared off, push
// notifications on unless the agent turned them off, the extended card on when the agent has
// one (extended-card.ts), and the
// authenticator's scheme as A2A security.
import { create, toJson, type JsonObject } from '@bufbuild/protobuf';
import { AgentCardSchema } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { CardIdentity } from '../../core/card-identity.js';
import { securityToA2a } from './security-schemes.js';

/** The A2A protocol version this boundary speaks. */
export const A2A_PROTOCOL_VERSION = '1.0';
/** The protocol binding it offers. */
export const JSONRPC_BINDING = 'JSONRPC';

const MODES = ['text/plain', 'application/json'];

/** What the card declares beyond the agent's identity. */
export interface CardFeatures {
  /** GetExtendedAgentCard answers an authenticated caller. */
  readonly extendedCard?: boolean;
  /** The push-notification config methods and delivery are on (capabilities.pushNotifications). */
  readonly pushNotifications?: boolean;
}

export function buildA2aCard(
  identity: CardIdentity,
  url: string,
  authenticator: Authenticator | null,
  features: CardFeatures = {},
): JsonObject {
  const security = authenticator ? securityToA2a(authenticator.scheme) : null;
  const card = create(AgentCardSchema, {
    name: identity.name,
    description: identity.description || identity.name,
    supportedInterfaces: [
      { url: `${url.replace(/\/$/, '')}/`, protocolBinding: JSONRPC_BINDING, protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    version: identity.version ?? '1.0.0',
    capabilities: {
      streaming: false,
      pushNotifications: features.pushNotifications === true,
      extendedAgentCard: features.extendedCard === true,
    },
    securitySchemes: security?.schemes ?? {},
    securityRequirements: security?.requirements ?? [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [
      {
        id: identity.role || identity.name,
        name: identity.role || identity.name,
        description: identity.description || identity.name,
        tags: [...(identity.tags ?? [])],
      },
    ],
  });
  const json = toJson(AgentCardSchema, card) as JsonObject;
  // Required lists stay on the wire even when empty (ProtoJSON leaves empty lists out).
  for (const skill of json.skills as JsonObject[]) skill.tags ??= [];
  return json;
}
