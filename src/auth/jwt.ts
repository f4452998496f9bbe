// Bearer JWT authentication with a shared HMAC secret (HS256, HS384 or HS512). Signature and
// the registered time claims are checked by `jose` (an optional package, loaded on first use);
// this file adds what the spec asks beyond it: `iat` in the future is refused too, the principal
// is `sub`, then `client_id`, then `unknown`, and unregistered claims travel in the context.
// A verified token's context is kept in a small cache keyed by the SHA-256 digest of the exact
// token text, so a caller sending the same token again skips the HMAC and the claims mapping,
// and is answered without waiting (authenticateNow); an entry ends no later than the token's
// `exp` and every other check holds for a token once it held (the key and the rules are fixed).
import type { SecurityContext, SecurityScheme } from '../../generated/types/index.js';
import { ConfigError, importOptional } from '../core/errors.js';
import { lazyLoader } from '../core/lazy-import.js';
import { cloneJson, setOwn } from '../core/objects.js';
import { AuthenticationError } from './authentication-error.js';
import type { Authenticator } from './authenticator.js';
import { secretDigest } from './secret-compare.js';
import { createSecurityContext } from './security-context.js';

export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

export interface JwtAuthenticatorOptions {
  /** The shared HMAC secret; must not be empty. */
  readonly secret: string | Uint8Array;
  /** Default HS256. The token header's `alg` must be exactly this. */
  readonly algorithm?: JwtAlgorithm;
  /** When set, `iss` must equal it. */
  readonly issuer?: string | null;
  /** When set, `aud` (a string or a list) must contain it. */
  readonly audience?: string | null;
  /** Clock skew allowed on `exp`, `nbf` and `iat`, in whole seconds. Default 0. */
  readonly leewaySeconds?: number;
  /** The clock, for tests. */
  readonly now?: () => Date;
  /** Verified tokens remembered (their claims, until their `exp`); 0 turns the cache off. Default 1024. */
  readonly cacheSize?: number;
}

/** What a verified token's context is made of, ready to be copied for each request. */
interface Verified {
  /** When it was verified, in milliseconds since the epoch: a clock set back before it re-verifies (nbf, iat). */
  readonly since: number;
  /** Milliseconds since the epoch from which the entry no longer counts (the token's exp). */
  readonly until: number;
  readonly principalId: string;
  readonly expiresAt: string | null;
  readonly issuedAt: string | undefined;
  /** The context's metadata; each context gets its own copy, since handlers may edit it. */
  readonly metadata: Record<string, unknown>;
  /** Whether `metadata` has anything to copy (most tokens map to an empty object). */
  readonly hasMetadata: boolean;
}

const REGISTERED_CLAIMS = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti']);
const PREFIX = 'Token authentication failed: ';

type Jose = typeof import('jose');
const loadJose = lazyLoader(() => importOptional<Jose>('jose', 'the JWT authenticator'));

/** Whether `part` is base64url as RFC 7515 writes it: not empty, no padding, and the one spelling of its bytes. */
function isStrictBase64url(part: string): boolean {
  // Re-encoding the decoded bytes gives the one canonical text; anything else (padding,
  // `+` or `/`, whitespace, nonzero unused bits, a dangling character) differs from it.
  return part !== '' && BASE64URL.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function isoFromSeconds(seconds: unknown): string | null {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null;
}

export class JwtAuthenticator implements Authenticator {
  readonly scheme: SecurityScheme;
  private readonly key: Uint8Array;
  private readonly algorithm: JwtAlgorithm;
  private readonly issuer: string | null;
  private readonly audience: string | null;
  private readonly leeway: number;
  /** The current time in milliseconds since the epoch. */
  private readonly clock: () => number;
  private readonly cacheSize: number;
  // Insertion order is eviction order: the oldest entry goes first when the cache is full.
  private readonly verified = new Map<string, Verified>();

  constructor(options: JwtAuthenticatorOptions) {
    const secret = options?.secret;
    const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
    if (!(key instanceof Uint8Array) || key.length === 0)
      throw new ConfigError('secret', '(hidden)', 'must be a non-empty string or byte array');
    const algorithm = options.algorithm ?? 'HS256';
    if (!JWT_ALGORITHMS.includes(algorithm))
      throw new ConfigError('algorithm', algorithm, `must be one of ${JWT_ALGORITHMS.join(', ')}`);
    const leeway = options.leewaySeconds ?? 0;
    if (!Number.isSafeInteger(leeway) || leeway < 0)
      throw new ConfigError('leewaySeconds', leeway, 'must be a non-negative integer');
    const cacheSize = options.cacheSize ?? 1024;
    if (!Number.isSafeInteger(cacheSize) || cacheSize < 0)
      throw new ConfigError('cacheSize', cacheSize, 'must be a non-negative integer');
    for (const field of ['issuer', 'audience'] as const) {
      const value = options[field];
      if (value !== undefined && value !== null && (typeof value !== 'string' || value === '')) {
        throw new ConfigError(field, value, 'must be a non-empty string or null');
      }
    }
    this.key = key;
    this.algorithm = algorithm;
    this.issuer = options.issuer ?? null;
    this.audience = options.audience ?? null;
    this.leeway = leeway;
    const now = options.now;
    this.clock = now ? () => now().getTime() : Date.now;
    this.cacheSize = cacheSize;
    this.scheme = Object.freeze({
      type: 'http',
      scheme: 'bearer',
      description: `JWT bearer token signed with ${algorithm}`,
      metadata: { algorithms: [...JWT_ALGORITHMS], issuer: this.issuer, audience: this.audience },
    });
  }

  async authenticate(credentials: string): Promise<SecurityContext> {
    return this.authenticateNow(credentials);
  }

  /**
   * A token verified before (and still within its exp) is answered at once from the cache;
   * any other goes through jose, which is asynchronous, and comes back as a Promise.
   */
  authenticateNow(credentials: string): SecurityContext | Promise<SecurityContext> {
    const token = typeof credentials === 'string' ? credentials : '';
    const time = this.clock();
    if (this.cacheSize === 0) return this.verify(token, time, null);
    const digest = secretDigest(token);
    const known = this.verified.get(digest);
    if (known !== undefined) {
      if (time >= known.since && time < known.until) return this.contextOf(token, known);
      this.verified.delete(digest);
    }
    return this.verify(token, time, digest);
  }

  /** Checks signature and claims with jose; remembers the result under `digest` when given. */
  private async verify(token: string, time: number, digest: string | null): Promise<SecurityContext> {
    const jose = await loadJose();
    const currentDate = new Date(time);
    let payload: Record<string, unknown>;
    try {
      // A compact JWS has exactly three segments; jose would also try other serializations' errors.
      const parts = token.split('.');
      if (parts.length !== 3) throw new Error('a compact JWT has three dot-separated segments');
      // jose's decoder reads `=`, whitespace and stray low bits alike: one token, one spelling.
      if (!parts.every(isStrictBase64url)) throw new Error('each segment must be unpadded base64url (RFC 7515)');
      ({ payload } = await jose.jwtVerify(token, this.key, {
        algorithms: [this.algorithm],
        ...(this.issuer !== null && { issuer: this.issuer }),
        ...(this.audience !== null && { audience: this.audience }),
        clockTolerance: this.leeway,
        currentDate,
      }));
      // jose checks `iat` only against a maximum age; the spec also refuses one in the future.
      const now = Math.floor(time / 1000);
      if (payload.iat !== undefined && (typeof payload.iat !== 'number' || payload.iat > now + this.leeway)) {
        throw new Error('"iat" claim is in the future');
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new AuthenticationError('invalid_token', `${PREFIX}${reason}`, { cause: error });
    }
    const verified = verifiedFrom(payload, time);
    if (digest !== null) this.remember(digest, verified);
    return this.contextOf(token, verified);
  }

  async refreshToken(context: SecurityContext): Promise<SecurityContext> {
    return context;
  }

  /** Keeps a verified token's entry, the oldest one going first when the cache is full. */
  private remember(digest: string, verified: Verified): void {
    // Requests with the same new token verify it side by side; the last one replaces the entry
    // rather than pushing another token out.
    if (!this.verified.delete(digest) && this.verified.size >= this.cacheSize) {
      this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(digest, verified);
  }

  private contextOf(token: string, verified: Verified): SecurityContext {
    return createSecurityContext({
      principalId: verified.principalId,
      token,
      expiresAt: verified.expiresAt,
      issuedAt: verified.issuedAt,
      metadata: verified.hasMetadata ? cloneJson(verified.metadata) : {},
    });
  }
}

/**
 * The context parts of a verified payload: the principal is `sub`, then `client_id`, then
 * `unknown`; unregistered claims go under `metadata.claims` next to the token's own `metadata`.
 * An entry counts until the token's `exp` (without the leeway); one without `exp` until evicted.
 * The payload is jose's fresh parse, so the entry may keep its objects: contexts get copies.
 */
function verifiedFrom(payload: Record<string, unknown>, since: number): Verified {
  const principal = [payload.sub, payload.client_id].find((value) => typeof value === 'string' && value !== '');
  const own = payload.metadata;
  const metadata: Record<string, unknown> =
    typeof own === 'object' && own !== null && !Array.isArray(own) ? { ...(own as Record<string, unknown>) } : {};
  const claims: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (!REGISTERED_CLAIMS.has(name) && name !== 'metadata') setOwn(claims, name, value);
  }
  if (Object.keys(claims).length > 0) metadata.claims = claims;
  return {
    since,
    until: typeof payload.exp === 'number' ? payload.exp * 1000 : Number.POSITIVE_INFINITY,
    principalId: (principal as string | undefined) ?? 'unknown',
    expiresAt: isoFromSeconds(payload.exp),
    issuedAt: isoFromSeconds(payload.iat) ?? undefined,
    metadata,
    hasMetadata: Object.keys(metadata).length > 0,
  };
}
