// Transport URLs: the scheme picks plain or TLS; each transport accepts its own two schemes.
import { InvalidArgumentError } from '../core/errors.js';
import type { TransportBinding } from './binding.js';

export function parseTransportUrl(binding: Pick<TransportBinding, 'name' | 'schemes'>, url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidArgumentError(`${binding.name} transport: ${JSON.stringify(url)} is not a URL`, 'invalid_url');
  }
  if (!binding.schemes.includes(parsed.protocol)) {
    throw new InvalidArgumentError(
      `${binding.name} transport: URL scheme ${parsed.protocol} is not one of ${binding.schemes.join(', ')}`,
      'invalid_url',
    );
  }
  return parsed;
}

/** Whether the URL asks for TLS (https:, wss:, grpcs:). */
export function isSecureUrl(url: string): boolean {
  return /^(https|wss|grpcs):/i.test(url);
}
