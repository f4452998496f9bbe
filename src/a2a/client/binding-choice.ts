// Which of a card's interfaces the client uses. A2A (section 8.3) says the card lists its
// interfaces in the agent's order of preference and a client takes the first it supports; so
// does this: the first 1.0 interface whose binding parley speaks (JSONRPC, HTTP+JSON, GRPC), or
// of the forced binding only when the caller names one. An interface off the card's origin is
// no candidate (the card must not send our requests, and credentials, to another host), unless
// cross-origin is allowed; when that leaves nothing, the card is refused as cross-origin.
// For GRPC the URL is usually `host:port` on a port of its own: its host name must be the card's,
// and it uses TLS when it says grpcs:// or https://, or the card came over https.
import type { AgentCard, AgentInterface } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { A2A_PROTOCOL_VERSION } from '../card/agent-card.js';
import { A2A_BINDINGS, type A2aBindingName } from './binding.js';
import { A2aClientError } from './errors.js';
import { sameOrigin } from './same-origin.js';

export interface ChosenInterface {
  readonly binding: A2aBindingName;
  /** An absolute URL: http(s) for JSONRPC and HTTP+JSON; for GRPC, `grpc://` or `grpcs://` host:port. */
  readonly url: string;
}

export interface ChoiceOptions {
  readonly force?: A2aBindingName;
  readonly allowCrossOrigin?: boolean;
}

export function chooseInterface(card: AgentCard, cardUrl: string, options: ChoiceOptions = {}): ChosenInterface {
  let offCrossOrigin: string | null = null;
  for (const entry of card.supportedInterfaces) {
    const binding = bindingOf(entry);
    if (!binding || (options.force && binding !== options.force)) continue;
    const url = resolve(binding, entry.url, cardUrl);
    if (!url) continue;
    if (!options.allowCrossOrigin && !onCardOrigin(binding, url, cardUrl)) {
      offCrossOrigin ??= `${binding} at ${entry.url}`;
      continue;
    }
    return { binding, url };
  }
  if (offCrossOrigin) {
    throw new A2aClientError(
      'a2a_cross_origin',
      `the card at ${cardUrl} advertises its interface on another origin (${offCrossOrigin}); refused`,
    );
  }
  const wanted = options.force ? `a ${options.force} interface` : 'a JSONRPC, HTTP+JSON or GRPC interface';
  throw new A2aClientError('a2a_incompatible_card', `the card at ${cardUrl} offers no ${wanted} for A2A ${A2A_PROTOCOL_VERSION}`);
}

function bindingOf(entry: AgentInterface): A2aBindingName | null {
  if (!/^1\.0(\.\d+)?$/.test(entry.protocolVersion.trim())) return null;
  const name = entry.protocolBinding.trim().toUpperCase();
  return A2A_BINDINGS.find((binding) => binding === name) ?? null;
}

/** The interface's absolute URL, or null when it cannot be read. */
function resolve(binding: A2aBindingName, written: string, cardUrl: string): string | null {
  try {
    if (binding !== 'GRPC') return new URL(written, cardUrl).href;
    const secureCard = new URL(cardUrl).protocol === 'https:';
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(written)
      ? new URL(written)
      : new URL(`${secureCard ? 'grpcs' : 'grpc'}://${written}`);
    // A card read over https never sends its caller's credentials in clear: its gRPC interface
    // uses TLS whatever scheme it is written with.
    const secure = secureCard || url.protocol === 'grpcs:' || url.protocol === 'https:';
    // An http(s) URL may leave its port implied; a bare or grpc(s) target must name it.
    const port = url.port || { 'https:': '443', 'http:': '80' }[url.protocol];
    if (!['grpc:', 'grpcs:', 'http:', 'https:'].includes(url.protocol) || !port) return null;
    return `${secure ? 'grpcs' : 'grpc'}://${url.hostname}:${port}`;
  } catch {
    return null;
  }
}

function onCardOrigin(binding: A2aBindingName, url: string, cardUrl: string): boolean {
  if (binding !== 'GRPC') return sameOrigin(cardUrl, url);
  return new URL(url).hostname.toLowerCase() === new URL(cardUrl).hostname.toLowerCase();
}
