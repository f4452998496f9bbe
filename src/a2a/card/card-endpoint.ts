// The public card's route, GET /.well-known/agent-card.json, shared by every binding: the card
// is built once, on the first request (the agent's address is known only once it listens).
import { agentOperations } from '../../../generated/operations/agent.js';
import type { OperationSpec } from '../../../generated/operations/spec.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { CardIdentity } from '../../core/card-identity.js';
import { encodeNormalizedJson, PreEncoded } from '../../core/json/encoded.js';
import { routeKey, type Endpoint } from '../../transport/endpoint.js';
import { buildA2aCard } from './agent-card.js';

export interface CardEndpointOptions {
  readonly identity: CardIdentity;
  readonly authenticator: Authenticator | null;
  /** The agent's address once it listens. */
  readonly url: () => string;
  /** The card declares the extended card (capabilities.extendedAgentCard). */
  readonly extendedCard?: boolean;
  /** The card declares push notifications (capabilities.pushNotifications). */
  readonly pushNotifications?: boolean;
}

export function buildCardEndpoint(options: CardEndpointOptions): [string, Endpoint] {
  const spec = agentOperations.getA2ACard as OperationSpec;
  let card: PreEncoded | null = null;
  const endpoint: Endpoint = {
    spec,
    unary: () => {
      if (!card) {
        const value = buildA2aCard(options.identity, options.url(), options.authenticator, {
          extendedCard: options.extendedCard,
          pushNotifications: options.pushNotifications,
        });
        card = new PreEncoded(value, encodeNormalizedJson(value));
      }
      return Promise.resolve(card);
    },
  };
  return [routeKey(spec.method, spec.path), endpoint];
}
