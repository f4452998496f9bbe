// The error every built-in authenticator throws when it refuses a credential. Its message
// starts with the provider's prefix from the spec ("Invalid API key", "Token authentication
// failed: ...", "OAuth delegation failed: ..."); callers match on `code`, not on the text.
// Servers turn it into their protocol's 401 / UNAUTHENTICATED answer.

export type AuthenticationFailure =
  | 'invalid_api_key'
  | 'invalid_basic_credentials'
  | 'invalid_token'
  | 'delegation_failed'
  | 'unauthenticated';

export class AuthenticationError extends Error {
  constructor(
    readonly code: AuthenticationFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AuthenticationError';
  }
}
