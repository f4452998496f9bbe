// The authenticator contract. Built-in providers come in their own files; any object with
// these three members works.
import type { SecurityContext, SecurityScheme } from '../../generated/types/index.js';

export interface Authenticator {
  /** The scheme this authenticator speaks, as advertised on the card. */
  readonly scheme: SecurityScheme;
  /** Verifies a raw credential; throws when it is not accepted. */
  authenticate(credentials: string): Promise<SecurityContext>;
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
    typeof candidate.refreshToken === 'function'
  );
}
