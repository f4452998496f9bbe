// What a client sends to a protected peer, with no authenticator of its own: an API key, a
// bearer token (fixed, or asked for per call so that a rotated token is picked up), or Basic
// credentials. The headers are the ones servers read (credentials.ts's extractCredentials):
// X-API-Key for a key, Authorization: Bearer or Basic otherwise. Fixed credentials make their
// headers once; only a token function costs anything per call.
import { InvalidArgumentError } from '../core/errors.js';

/** A bearer token, or a function that returns the current one (called before every call or connection). */
export type BearerToken = string | (() => string | Promise<string>);

/** Client credentials: exactly one of `apiKey`, `bearer` or `basic`. */
export type ClientAuth =
  | { readonly apiKey: string }
  | { readonly bearer: BearerToken }
  | { readonly basic: { readonly user: string; readonly password: string } };

type AuthHeaders = Readonly<Record<string, string>>;

/** Gives the headers for one call: at once for fixed credentials, a promise only for an async token. */
export type AuthHeaderSource = () => AuthHeaders | Promise<AuthHeaders>;

const KINDS = ['apiKey', 'bearer', 'basic'] as const;
// What an HTTP header value (and gRPC metadata) can carry of a key or token: visible ASCII.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** Checks `auth` and returns what makes each call's credential headers. Throws InvalidArgumentError. */
export function clientAuthHeaders(auth: ClientAuth): AuthHeaderSource {
  if (typeof auth !== 'object' || auth === null) throw invalid('auth must be an object: { apiKey }, { bearer } or { basic }');
  const given = KINDS.filter((kind) => (auth as Record<string, unknown>)[kind] !== undefined);
  const unknown = Object.keys(auth).filter((key) => !(KINDS as readonly string[]).includes(key));
  if (unknown.length > 0) throw invalid(`auth.${unknown[0]} is not an option; give one of auth.apiKey, auth.bearer, auth.basic`);
  if (given.length !== 1) throw invalid('auth takes exactly one of apiKey, bearer or basic');
  if ('apiKey' in auth && auth.apiKey !== undefined) {
    const headers = Object.freeze({ 'x-api-key': checkToken(auth.apiKey, 'auth.apiKey') });
    return () => headers;
  }
  if ('basic' in auth && auth.basic !== undefined) {
    const headers = Object.freeze({ authorization: `Basic ${basicToken(auth.basic)}` });
    return () => headers;
  }
  const bearer = (auth as { bearer: unknown }).bearer;
  if (typeof bearer === 'function') return rotatingBearer(bearer as () => string | Promise<string>);
  const headers = Object.freeze({ authorization: `Bearer ${checkToken(bearer, 'auth.bearer')}` });
  return () => headers;
}

/** Headers from a token function, asked each time; a returned value is checked like a fixed token. */
function rotatingBearer(current: () => string | Promise<string>): AuthHeaderSource {
  const headers = (token: unknown) => ({ authorization: `Bearer ${checkToken(token, 'the token that auth.bearer returned')}` });
  return () => {
    const token = current();
    return token instanceof Promise ? token.then(headers) : headers(token);
  };
}

/** The Base64 of `user:password`, as HTTP Basic sends it. */
function basicToken(basic: unknown): string {
  const { user, password } = (basic ?? {}) as { user?: unknown; password?: unknown };
  if (typeof user !== 'string' || user === '' || user.includes(':')) {
    throw invalid('auth.basic.user must be a non-empty string without a colon');
  }
  if (typeof password !== 'string') throw invalid('auth.basic.password must be a string');
  return Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
}

function checkToken(value: unknown, where: string): string {
  if (typeof value !== 'string' || !HEADER_SAFE.test(value)) {
    // Never the value itself: it is a secret.
    throw invalid(`${where} must be a non-empty string of visible ASCII characters (no spaces or line breaks)`);
  }
  return value;
}

function invalid(message: string): InvalidArgumentError {
  return new InvalidArgumentError(message, 'invalid_auth');
}
