// The one check of a browser's `Origin` header, shared by the http and sse request path and the
// WebSocket handshake. A web page the user happens to visit can send requests to a server on
// the user's machine: a POST with an unlabelled body needs no CORS preflight, and a WebSocket
// has no CORS at all (the page reads every answer). Browsers name the page's origin on such
// requests, so a server answers an `Origin` only when it is its own (the `Host` the request was
// sent to) or listed in `allowed_origins`. Requests without the header (curl, Node clients,
// SDKs, gRPC) are not browsers' cross-site requests and pass untouched.
import { ConfigError } from '../core/errors.js';
import { EndpointError } from './endpoint-error.js';

const ANY = '*';
/** The longest piece of a refused Origin quoted back in the error message. */
const QUOTED_MAX = 200;

/**
 * One entry of `allowed_origins` in the form browsers send it (lower case, no default port, no
 * path): `"*"`, or an http(s) origin. Anything else is a configuration mistake.
 */
export function normalizeAllowedOrigin(entry: string, path: string): string {
  if (entry === ANY) return ANY;
  let url: URL | null = null;
  try {
    url = new URL(entry);
  } catch {
    // refused below
  }
  // An origin is a scheme and an authority: the parser's own `/` path at most, nothing else.
  if (url === null || !isBareOrigin(url)) {
    throw new ConfigError(
      path,
      entry,
      'must list "*" or origins such as https://app.example.com (scheme://host[:port], no path)',
    );
  }
  // The parser lowers the case and drops a default port, as browsers send an Origin.
  return url.origin;
}

function isBareOrigin(url: URL): boolean {
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  return web && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
}

/**
 * A browser request refused for its origin: `forbidden` (403) on every wire, its own class so a
 * binding with its own error shape (A2A JSON-RPC) can tell it from an authorization refusal.
 */
export class CrossOriginRefusal extends EndpointError {
  constructor(origin: string) {
    const quoted = origin.length > QUOTED_MAX ? `${origin.slice(0, QUOTED_MAX)}...` : origin;
    super(
      'forbidden',
      `cross-origin request from ${quoted} refused: this server answers browsers only from its own origin and the origins in its allowed_origins setting`,
      { origin: quoted },
    );
  }
}

/** Which browser origins a server answers, built once per server from `allowed_origins`. */
export class BrowserOrigins {
  private readonly any: boolean;
  private readonly listed: ReadonlySet<string>;

  constructor(allowedOrigins: readonly string[]) {
    this.any = allowedOrigins.includes(ANY);
    this.listed = new Set(allowedOrigins);
  }

  /**
   * The refusal for a request from `origin` (its `Origin` header) sent to `host` (its `Host`
   * header), or null when it may be served. Call it only when the header is present.
   */
  refusal(origin: string, host: string | undefined): CrossOriginRefusal | null {
    if (this.any) return null;
    // The common case first: a page of this server, whose Origin is the Host with a scheme.
    if (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`)) return null;
    if (this.listed.has(origin) || this.listed.has(origin.toLowerCase())) return null;
    if (host !== undefined && sameHostAndPort(origin, host)) return null;
    return new CrossOriginRefusal(origin);
  }
}

/**
 * Whether an http(s) Origin names the same host and port as a Host header, case aside, with a
 * missing port on either side meaning the Origin scheme's default. `null` (a sandboxed frame, a
 * file) and other schemes never match.
 */
function sameHostAndPort(origin: string, host: string): boolean {
  const lower = origin.toLowerCase();
  const scheme = lower.startsWith('http://') ? 'http' : lower.startsWith('https://') ? 'https' : null;
  if (scheme === null) return false;
  const defaultPort = scheme === 'https' ? '443' : '80';
  const from = splitAuthority(lower.slice(scheme.length + 3), defaultPort);
  const to = splitAuthority(host.toLowerCase(), defaultPort);
  return from !== null && to !== null && from.host === to.host && from.port === to.port;
}

/** `host[:port]` (the host maybe a bracketed IPv6 address) split, or null when malformed. */
function splitAuthority(authority: string, defaultPort: string): { host: string; port: string } | null {
  if (authority === '' || /[/?#@\s]/.test(authority)) return null;
  const close = authority.lastIndexOf(']');
  const colon = authority.lastIndexOf(':');
  if (colon <= close) return { host: authority, port: defaultPort };
  const port = authority.slice(colon + 1);
  if (!/^\d{1,5}$/.test(port)) return null;
  return { host: authority.slice(0, colon), port: String(Number(port)) };
}
