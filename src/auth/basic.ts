// HTTP Basic authentication against a fixed username -> password map. The credential is usually
// Base64 of `user:password`; text that is not strict Base64 is read as `user:password` itself.
// The split is at the first colon, so passwords may contain colons and usernames may not.
import type { SecurityContext, SecurityScheme } from '../../generated/types/index.js';
import { ConfigError } from '../core/errors.js';
import { AuthenticationError } from './authentication-error.js';
import type { Authenticator } from './authenticator.js';
import { secretsEqual } from './secret-compare.js';
import { createSecurityContext } from './security-context.js';

export interface BasicAuthenticatorOptions {
  /** Username -> password. */
  readonly validCredentials: Readonly<Record<string, string>>;
}

// Strict Base64: the standard alphabet, whole 4-character groups, padding only at the end.
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict Base64 decoding to UTF-8 text, or null when the input is not that. */
function decodeStrictBase64(text: string): string | null {
  if (text === '' || !STRICT_BASE64.test(text)) return null;
  try {
    return utf8.decode(Buffer.from(text, 'base64'));
  } catch {
    return null;
  }
}

// Compared against when the username is unknown, so a wrong name costs as long as a wrong password.
const NO_PASSWORD = '\u0000no such user';

export class BasicAuthenticator implements Authenticator {
  readonly scheme: SecurityScheme = Object.freeze({
    type: 'http',
    scheme: 'basic',
    description: 'HTTP Basic: Authorization: Basic base64(username:password)',
    metadata: {},
  });
  private readonly passwords: ReadonlyMap<string, string>;

  constructor(options: BasicAuthenticatorOptions) {
    const credentials = options?.validCredentials;
    if (typeof credentials !== 'object' || credentials === null || Array.isArray(credentials)) {
      throw new ConfigError('validCredentials', credentials, 'must map each username to its password');
    }
    const passwords = new Map<string, string>();
    for (const [user, password] of Object.entries(credentials)) {
      if (user === '' || user.includes(':'))
        throw new ConfigError('validCredentials', user, 'a username must be non-empty and hold no colon');
      if (typeof password !== 'string')
        throw new ConfigError(`validCredentials.${user}`, '(hidden)', 'a password must be a string');
      passwords.set(user, password);
    }
    if (passwords.size === 0) throw new ConfigError('validCredentials', credentials, 'must hold at least one username');
    this.passwords = passwords;
  }

  async authenticate(credentials: string): Promise<SecurityContext> {
    return this.authenticateNow(credentials);
  }

  /** A lookup, nothing to wait for: the context, or the refusal thrown, at once. */
  authenticateNow(credentials: string): SecurityContext {
    const text = typeof credentials === 'string' ? (decodeStrictBase64(credentials) ?? credentials) : '';
    const colon = text.indexOf(':');
    if (colon < 0)
      throw new AuthenticationError('invalid_basic_credentials', 'Invalid Basic credentials: expected username:password');
    const user = text.slice(0, colon);
    const expected = this.passwords.get(user);
    const matches = secretsEqual(text.slice(colon + 1), expected ?? NO_PASSWORD);
    if (expected === undefined || !matches) {
      throw new AuthenticationError('invalid_basic_credentials', 'Invalid Basic credentials: unknown username or wrong password');
    }
    return createSecurityContext({ principalId: user, token: credentials });
  }

  async refreshToken(context: SecurityContext): Promise<SecurityContext> {
    return context;
  }
}
