// Where a server finds credentials, and which headers a client sends for a scheme.
import type { SecurityContext, SecurityScheme } from '../../generated/types/index.js';

const PREFIX = /^(bearer|basic|apikey)(\s+|$)/i;

/** The query parameters a credential may travel in (a protocol reading its own query skips them). */
export const CREDENTIAL_QUERY_PARAMS: readonly string[] = ['api_key', 'apikey', 'token'];

/**
 * Finds the credential in a request: the Authorization header (a Bearer, Basic, ApiKey or
 * apikey prefix is removed; any other scheme yields the whole header), then X-API-Key, then
 * the query parameters api_key, apikey and token. Surrounding whitespace is stripped. Null
 * when nothing is present.
 */
export function extractCredentials(
  header: (name: string) => string | undefined,
  query: (name: string) => string | undefined,
): string | null {
  const authorization = header('authorization');
  if (authorization !== undefined) return authorization.trim().replace(PREFIX, '').trim();
  const apiKey = header('x-api-key');
  if (apiKey !== undefined) return apiKey.trim();
  for (const name of CREDENTIAL_QUERY_PARAMS) {
    const value = query(name);
    if (value !== undefined) return value.trim();
  }
  return null;
}

/** Headers (lowercase names) a client adds for an accepted security context. */
export function credentialHeaders(scheme: SecurityScheme, context: SecurityContext): Record<string, string> {
  if (scheme.type === 'apiKey') {
    return { 'x-api-key': context.token, authorization: `ApiKey ${context.token}` };
  }
  if (scheme.type === 'http' && scheme.scheme === 'basic') return { authorization: `Basic ${context.token}` };
  return { authorization: `Bearer ${context.token}` };
}
