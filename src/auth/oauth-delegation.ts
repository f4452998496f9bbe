// OAuth delegation: the incoming credential is exchanged at a token endpoint (RFC 8693 token
// exchange) and the endpoint's answer becomes the context. The exchange is one JSON POST with
// the client's own id and secret; nothing is cached, so every authenticate() is one round trip.
import type { SecurityContext, SecurityScheme } from '../../generated/types/index.js';
import { ConfigError } from '../core/errors.js';
import { AuthenticationError } from './authentication-error.js';
import type { Authenticator } from './authenticator.js';
import { createSecurityContext } from './security-context.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const PREFIX = 'OAuth delegation failed: ';

export interface OAuthDelegationAuthenticatorOptions {
  /** The token-exchange endpoint (http or https URL). */
  readonly exchangeEndpoint: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Give up on the exchange after this many seconds. Default 10. */
  readonly timeout?: number;
}

export class OAuthDelegationAuthenticator implements Authenticator {
  readonly scheme: SecurityScheme;
  private readonly endpoint: string;
  private readonly clientId: string;
  private readonly clientSecret: string;
  private readonly timeoutMs: number;

  constructor(options: OAuthDelegationAuthenticatorOptions) {
    let url: URL;
    try {
      url = new URL(options?.exchangeEndpoint);
    } catch {
      throw new ConfigError('exchangeEndpoint', options?.exchangeEndpoint, 'must be an absolute http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigError('exchangeEndpoint', options.exchangeEndpoint, 'must be an absolute http or https URL');
    }
    if (typeof options.clientId !== 'string' || options.clientId === '')
      throw new ConfigError('clientId', options.clientId, 'must be a non-empty string');
    if (typeof options.clientSecret !== 'string' || options.clientSecret === '') {
      throw new ConfigError('clientSecret', '(hidden)', 'must be a non-empty string');
    }
    const timeout = options.timeout ?? 10;
    if (typeof timeout !== 'number' || !(timeout > 0))
      throw new ConfigError('timeout', timeout, 'must be a positive number of seconds');
    this.endpoint = options.exchangeEndpoint;
    this.clientId = options.clientId;
    this.clientSecret = options.clientSecret;
    this.timeoutMs = timeout * 1000;
    this.scheme = Object.freeze({
      type: 'oauth2',
      scheme: null,
      description: 'OAuth 2.0 token exchange (RFC 8693)',
      metadata: { exchange_endpoint: this.endpoint },
    });
  }

  async authenticate(credentials: string): Promise<SecurityContext> {
    const body = JSON.stringify({
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: credentials,
      subject_token_type: ACCESS_TOKEN_TYPE,
      client_id: this.clientId,
      client_secret: this.clientSecret,
    });
    let answer: Record<string, unknown>;
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`the exchange endpoint answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('the exchange answer is not a JSON object');
      answer = parsed as Record<string, unknown>;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new AuthenticationError('delegation_failed', `${PREFIX}${reason}`, { cause: error });
    }
    const metadata = answer.metadata;
    const context = createSecurityContext({
      principalId: typeof answer.sub === 'string' ? answer.sub : 'unknown',
      token: typeof answer.access_token === 'string' ? answer.access_token : '',
      metadata:
        typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
          ? { ...(metadata as Record<string, unknown>) }
          : {},
    });
    // Copied as it stands, as the spec says: usually a number of seconds, not a timestamp.
    if (answer.expires_in !== undefined) (context as { expires_at: unknown }).expires_at = answer.expires_in;
    return context;
  }

  async refreshToken(context: SecurityContext): Promise<SecurityContext> {
    return context;
  }
}
