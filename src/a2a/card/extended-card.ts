// The authenticated extended card (GetExtendedAgentCard): what an agent shows only to callers
// that authenticated. It is the public card with its description replaced (when one is given)
// and more skills after the public card's own; the skills are A2A AgentSkill objects in their
// ProtoJSON form, checked here by the protobuf decoder and A2A's required fields, so a mistake
// is refused when the agent is built, not when a caller asks.
import { fromJson, toJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { AgentSkillSchema } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { CardIdentity } from '../../core/card-identity.js';
import { ConfigError } from '../../core/errors.js';
import { buildA2aCard, type CardFeatures } from './agent-card.js';

/** What the extended card adds to the public one. */
export interface A2aExtendedCard {
  /** Replaces the public card's description. */
  readonly description?: string;
  /** A2A AgentSkill objects (ProtoJSON: id, name, description, tags, examples, ...), after the public card's skills. */
  readonly skills?: readonly JsonObject[];
}

const KEYS = new Set(['description', 'skills']);

/**
 * The extended card's settings, checked: `field` names where they came from in errors
 * (`a2aExtendedCard`, or a config file's pointer). Throws a ConfigError naming the field.
 */
export function checkExtendedCard(value: unknown, field: string): A2aExtendedCard {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError(field, value, 'must be an object with description and/or skills');
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (!KEYS.has(key))
      throw new ConfigError(`${field}.${key}`, object[key], 'is not a setting of the extended card (description, skills)');
  }
  const { description, skills } = object;
  if (description !== undefined && (typeof description !== 'string' || description === ''))
    throw new ConfigError(`${field}.description`, description, 'must be a non-empty string');
  if (skills !== undefined && !Array.isArray(skills))
    throw new ConfigError(`${field}.skills`, skills, 'must be an array of A2A skills');
  if (description === undefined && (skills === undefined || skills.length === 0))
    throw new ConfigError(field, value, 'must reveal something: a description or at least one skill');
  return {
    ...(description !== undefined && { description }),
    ...(skills !== undefined && { skills: skills.map((skill, i) => checkSkill(skill, `${field}.skills[${i}]`)) }),
  };
}

/** One skill as the A2A proto reads it, with A2A's required fields present. */
function checkSkill(value: unknown, field: string): JsonObject {
  let skill: ReturnType<typeof fromJson<typeof AgentSkillSchema>>;
  try {
    skill = fromJson(AgentSkillSchema, value as JsonValue);
  } catch (error) {
    throw new ConfigError(field, value, `must be an A2A AgentSkill: ${(error as Error).message}`);
  }
  for (const key of ['id', 'name', 'description'] as const) {
    if (skill[key] === '') throw new ConfigError(`${field}.${key}`, undefined, 'is required, a non-empty string');
  }
  const json = toJson(AgentSkillSchema, skill) as JsonObject;
  // A required list stays on the wire even when empty (ProtoJSON leaves empty lists out).
  json.tags ??= [];
  return json;
}

/**
 * The extended card as GetExtendedAgentCard answers it, built on first use (the agent's URL is
 * known only once it listens) and kept.
 */
export function extendedCardSource(
  identity: CardIdentity,
  url: () => string,
  authenticator: Authenticator | null,
  extended: A2aExtendedCard,
  /** What the public card declares besides the extended card, declared here too. */
  features: CardFeatures = {},
): () => JsonObject {
  let card: JsonObject | null = null;
  return () => {
    if (card) return card;
    const built = buildA2aCard(identity, url(), authenticator, { ...features, extendedCard: true });
    if (extended.description) built.description = extended.description;
    if (extended.skills) built.skills = [...(built.skills as JsonObject[]), ...extended.skills];
    card = built;
    return card;
  };
}
