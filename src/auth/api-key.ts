// API key authentication: the credential must be one of the configured keys. Each key maps to a
// list of scopes, which are never copied to the context or enforced here (application policy
// reads them). Several keys may be valid at once, which is how keys are rotated: add the new key,
// move callers over, remove the old one.
import type { SecurityContext, SecurityScheme } from '../../generated/types/index.js';
import { ConfigError } from '../core/errors.js';
import { AuthenticationError } from './authentication-error.js';
import type { Authenticator } from './authenticator.js';
import { SecretSet } from './secret-compare.js';
import { createSecurityContext } from './security-context.js';

export interface ApiKeyAuthenticatorOptions {
  /** Valid keys, each with the scopes granted to it (informational; never enforced here). */
  readonly validKeys: Readonly<Record<string, readonly string[]>>;
}

export class ApiKeyAuthenticator implements Authenticator {
  readonly scheme: SecurityScheme = Object.freeze({
    type: 'apiKey',
    scheme: null,
    description: 'API key in the X-API-Key header or Authorization: ApiKey <key>',
    metadata: {},
  });
  // Each key's digest with what a context for it needs, the principal made once.
  private readonly keys: SecretSet<{ readonly key: string; readonly principalId: string }>;
  private readonly scopes: ReadonlyMap<string, readonly string[]>;

  constructor(options: ApiKeyAuthenticatorOptions) {
    const validKeys = options?.validKeys;
    if (typeof validKeys !== 'object' || validKeys === null || Array.isArray(validKeys)) {
      throw new ConfigError('validKeys', validKeys, 'must map each API key to a list of scopes');
    }
    const scopes = new Map<string, readonly string[]>();
    for (const [key, granted] of Object.entries(validKeys)) {
      if (key.trim() === '') throw new ConfigError('validKeys', key, 'an API key must not be empty or blank');
      if (!Array.isArray(granted) || granted.some((scope) => typeof scope !== 'string')) {
        throw new ConfigError(`validKeys[${JSON.stringify(key.slice(0, 8))}...]`, granted, 'scopes must be a list of strings');
      }
      scopes.set(key, Object.freeze([...granted]));
    }
    if (scopes.size === 0) throw new ConfigError('validKeys', validKeys, 'must hold at least one key');
    this.keys = new SecretSet(
      [...scopes.keys()].map((key) => [key, { key, principalId: `api-key-${key.slice(0, 8)}` }] as const),
    );
    this.scopes = scopes;
  }

  /** The scopes configured for a key, for application policy; never consulted here. */
  scopesOf(key: string): readonly string[] | undefined {
    return this.scopes.get(key);
  }

  async authenticate(credentials: string): Promise<SecurityContext> {
    return this.authenticateNow(credentials);
  }

  /** A lookup, nothing to wait for: the context, or the refusal thrown, at once. */
  authenticateNow(credentials: string): SecurityContext {
    const found = typeof credentials === 'string' ? this.keys.find(credentials) : undefined;
    if (found === undefined) throw new AuthenticationError('invalid_api_key', 'Invalid API key');
    // A fresh context every time: handlers may write to its metadata.
    return createSecurityContext({ principalId: found.principalId, token: found.key });
  }

  async refreshToken(context: SecurityContext): Promise<SecurityContext> {
    return context;
  }
}
