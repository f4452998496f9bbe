// The outbound protocol choice: whether a peer at an http(s) address speaks parley's native
// contract or A2A 1.0. `auto` asks for the native card first; only a definitive 404 or 405
// there sends discovery to the A2A card. Authentication, connection, timeout and server
// errors say nothing about the protocol: they are raised, and nothing is remembered. A choice
// is kept 5 minutes, for at most 1,024 peers, shared by every client in the process.
import { agentOperations } from '../../../generated/operations/agent.js';
import type { OperationSpec } from '../../../generated/operations/spec.js';
import { TransportRemoteError } from '../../transport/errors.js';
import type { Transport } from '../../transport/transport.js';
import type { CallOptions } from '../../../generated/operations/spec.js';
import { BoundedCache } from './bounded-cache.js';

/** What a client may ask for: `parley` and `native` are the same thing. */
export type ProtocolOption = 'auto' | 'parley' | 'native' | 'a2a';
/** What a peer turned out to speak. */
export type PeerProtocol = 'parley' | 'a2a';

export const PROTOCOL_CHOICE_TTL_MS = 5 * 60_000;
const PROTOCOL_CHOICE_MAX_PEERS = 1024;

/** The process-wide cache of choices, keyed by peer URL. */
export const protocolChoices = new BoundedCache<string, PeerProtocol>({
  ttlMs: PROTOCOL_CHOICE_TTL_MS,
  maxEntries: PROTOCOL_CHOICE_MAX_PEERS,
});

export function checkProtocolOption(value: unknown): ProtocolOption {
  if (value === 'auto' || value === 'parley' || value === 'native' || value === 'a2a') return value;
  throw new RangeError(`protocol must be auto, parley (or native) or a2a, not ${JSON.stringify(value)}`);
}

/** Probes the native card at `transport`'s URL: parley if it answers, a2a on 404 or 405, else the error. */
export async function probeProtocol(transport: Transport, options?: CallOptions): Promise<PeerProtocol> {
  const cached = protocolChoices.get(transport.url);
  if (cached) return cached;
  let found: PeerProtocol;
  try {
    await transport.unary(agentOperations.getCard as OperationSpec, undefined, options);
    found = 'parley';
  } catch (error) {
    const status = error instanceof TransportRemoteError ? error.statusCode : null;
    if (status !== 404 && status !== 405) throw error;
    found = 'a2a';
  }
  protocolChoices.set(transport.url, found);
  return found;
}
