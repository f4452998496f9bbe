// The authenticator contract. Built-in providers come in their own files; any object with
// the three required members works.
import type { SecurityContext, SecurityScheme } from '../../generated/types/index.js';

export interface Authenticator {
  /** The scheme this authenticator speaks, as advertised on the card. */
  readonly scheme: SecurityScheme;
  /** Verifies a raw credential; throws when it is not accepted. */
  authenticate(credentials: string): Promise<SecurityContext>;
  /**
   * Optional: the same check, answered at once when it needs no I/O (a key lookup, a token
   * verified before): the context is returned, or the refusal thrown, synchronously; a Promise
   * comes back only when there is something to wait for. Servers call it instead of
   * authenticate() when present, so such a request takes no extra microtask turns.
   */
  authenticateNow?(credentials: string): SecurityContext | Promise<SecurityContext>;
  /** Returns a refreshed context, or the same one. Never called automatically. */
  refreshToken(context: SecurityContext): Promise<SecurityContext>;
}

export function isAuthenticator(value: unknown): value is Authenticator {
  const candidate = value as Partial<Authenticator> | null;
  return (
    !!candidate &&
    typeof candidate.scheme === 'object' &&
    candidate.scheme !== null &&
    typeof candidate.authenticate === 'function' &&
    (candidate.authenticateNow === undefined || typeof candidate.authenticateNow === 'function') &&
    typeof candidate.refreshToken === 'function'
  );
}
