// The public A2A 1.0 card (GET /.well-known/agent-card.json): the agent's identity, the
// interfaces its transport serves speaking A2A 1.0 (an http agent: JSON-RPC at its root and
// HTTP+JSON under /a2a/rest; a grpc agent: gRPC at its address), streaming on, push
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
/** The protocol bindings it offers, as A2A names them. */
export const JSONRPC_BINDING = 'JSONRPC';
const HTTP_JSON_BINDING = 'HTTP+JSON';
const GRPC_BINDING = 'GRPC';
/**
 * Where the HTTP+JSON binding is mounted on an http agent: under its own base path, since the
 * native routes own `/tasks/...` at the root (schemas/operations/agent.json, the `a2aRest...` rows).
 */
export const HTTP_JSON_BASE_PATH = '/a2a/rest';

/**
 * The interfaces an agent at `url` serves. A grpc agent's is its address as gRPC clients dial
 * it, `host:port` (grpc-js, the A2A SDKs' gRPC transports and grpc-go take that target as it
 * is; a `grpc://` URL is no target they resolve); an http agent's are JSON-RPC at its root, then
 * HTTP+JSON under its base path (JSON-RPC first: the binding parley has spoken longest, and a
 * client takes the first it speaks).
 */
function interfacesAt(url: string): { url: string; protocolBinding: string; protocolVersion: string }[] {
  const grpc = /^grpcs?:\/\/([^/]+)/i.exec(url);
  if (grpc) return [{ url: grpc[1]!, protocolBinding: GRPC_BINDING, protocolVersion: A2A_PROTOCOL_VERSION }];
  const base = url.replace(/\/$/, '');
  return [
    { url: `${base}/`, protocolBinding: JSONRPC_BINDING, protocolVersion: A2A_PROTOCOL_VERSION },
    { url: `${base}${HTTP_JSON_BASE_PATH}`, protocolBinding: HTTP_JSON_BINDING, protocolVersion: A2A_PROTOCOL_VERSION },
  ];
}

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
    supportedInterfaces: interfacesAt(url),
    version: identity.version ?? '1.0.0',
    capabilities: {
      streaming: true,
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
