// Authentication and TLS for `parley serve agent` and `parley serve registry`: the flags, the environment variables, and how
// they combine with the `auth` section and TLS paths of a --config file into one authenticator
// and one TLS section. Secrets can come from files and the environment because a command line
// is visible to every local user. Sources rank: command line, then environment, then the config
// file; the highest source that names an authenticator decides its kind, and a lower source of
// another kind is ignored with a note on stderr. Every mistake is a UsageError (exit 2) that never
// repeats a secret.
import { accessSync, constants } from 'node:fs';
import type { TransportConfig } from '../../generated/types/index.js';
import { ApiKeyAuthenticator } from '../auth/api-key.js';
import type { Authenticator } from '../auth/authenticator.js';
import { BasicAuthenticator } from '../auth/basic.js';
import { JWT_ALGORITHMS, JwtAuthenticator, type JwtAlgorithm } from '../auth/jwt.js';
import { ConfigError, importOptional } from '../core/errors.js';
import { ResolvedConfig } from '../transport/config.js';
import { isSecureUrl } from '../transport/url.js';
import type { OptionSpecs, ParsedArgs } from './args.js';
import { readInput } from './read-input.js';
import type { ServeFileSettings } from './serve-config.js';
import { UsageError } from './usage-error.js';

export const SECURITY_OPTIONS: OptionSpecs = {
  'api-key': { type: 'string', multiple: true },
  'api-key-file': { type: 'string', multiple: true },
  basic: { type: 'string', multiple: true },
  'basic-file': { type: 'string', multiple: true },
  'jwt-secret': { type: 'string' },
  'jwt-secret-file': { type: 'string' },
  'jwt-issuer': { type: 'string' },
  'jwt-audience': { type: 'string' },
  'jwt-algorithm': { type: 'string', choices: JWT_ALGORITHMS },
  'jwt-leeway': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-ca': { type: 'string' },
  'require-client-cert': { type: 'boolean' },
};

export const SECURITY_USAGE = `Authentication (at most one kind; see docs/security.md):
  --api-key KEY           accept this API key; repeat for several (key rotation)
  --api-key-file FILE     accept the keys in FILE (one a line, or comma separated)
  --basic USER:PASSWORD   accept HTTP Basic for this user; repeatable
  --basic-file FILE       accept the USER:PASSWORD lines in FILE
  --jwt-secret SECRET     accept HMAC-signed JWT bearer tokens with this secret
  --jwt-secret-file FILE  the same, the secret being the contents of FILE
  --jwt-issuer ISS        tokens must carry this iss
  --jwt-audience AUD      tokens must list this aud
  --jwt-algorithm ALG     ${JWT_ALGORITHMS.join(', ')} (default: HS256)
  --jwt-leeway SECONDS    clock skew allowed on exp, nbf and iat (default: 0)
  Secrets from the environment, used when no flag names an authenticator:
  PARLEY_API_KEYS (comma or newline separated), PARLEY_BASIC_CREDENTIALS (USER:PASSWORD
  lines), PARLEY_JWT_SECRET. Prefer these or the -file flags: command lines are visible
  to every local user.

TLS (needs an https, wss or grpcs URL):
  --tls-cert FILE         PEM certificate chain of the server
  --tls-key FILE          PEM private key of that certificate
  --tls-ca FILE           PEM CA bundle that client certificates must chain to
  --require-client-cert   mutual TLS: refuse clients without a certificate from --tls-ca
`;

type AuthKind = 'api-key' | 'basic' | 'jwt';

const KIND_NAMES: Readonly<Record<AuthKind, string>> = { 'api-key': 'API key', basic: 'Basic', jwt: 'JWT' };

/** JWT settings other than the secret. */
export interface JwtSettings {
  readonly algorithm?: JwtAlgorithm;
  readonly issuer?: string;
  readonly audience?: string;
  readonly leewaySeconds?: number;
}

/** What one source (the command line, the environment, a config file) says about authentication. */
export interface AuthLayer {
  /** How messages name the source: `the command line`, `the environment`, `parley.json`. */
  readonly source: string;
  /** The authenticator this source configures, or null when it names none. */
  readonly kind: AuthKind | null;
  readonly apiKeys?: readonly string[];
  readonly basic?: ReadonlyMap<string, string>;
  readonly jwtSecret?: string;
  readonly jwt?: JwtSettings;
}

/** The TLS flags as a partial serialized TLS section. */
type TlsWire = NonNullable<TransportConfig['tls']>;

type Flags = Pick<ParsedArgs, 'options' | 'lists'>;

const NO_AUTH: AuthLayer = { source: 'nowhere', kind: null };

/** The authentication flags, with the files they name read. */
async function authFromFlags(flags: Flags): Promise<AuthLayer> {
  const list = (name: string) => flags.lists[name] ?? [];
  const source = 'the command line';
  const kinds = new Set<AuthKind>();
  let apiKeys: string[] | undefined;
  let basic: Map<string, string> | undefined;
  let jwtSecret: string | undefined;
  if (list('api-key').length + list('api-key-file').length > 0) {
    kinds.add('api-key');
    apiKeys = list('api-key').map((key) => checkKey(key, '--api-key'));
    for (const file of list('api-key-file')) apiKeys.push(...splitKeys(await readSecretFile(file, '--api-key-file'), file));
  }
  if (list('basic').length + list('basic-file').length > 0) {
    kinds.add('basic');
    const entries = list('basic').map((entry, index) => ({ entry, where: `--basic (occurrence ${index + 1})` }));
    for (const file of list('basic-file')) entries.push(...splitBasicLines(await readSecretFile(file, '--basic-file'), file));
    basic = basicCredentials(entries);
  }
  const secretFlag = flags.options['jwt-secret'] as string | undefined;
  const secretFile = flags.options['jwt-secret-file'] as string | undefined;
  if (secretFlag !== undefined && secretFile !== undefined) {
    throw new UsageError('serve agent: give the JWT secret once: --jwt-secret or --jwt-secret-file, not both');
  }
  if (secretFlag !== undefined || secretFile !== undefined) {
    kinds.add('jwt');
    jwtSecret =
      secretFile !== undefined
        ? checkJwtSecret(trimLineEnd(await readSecretFile(secretFile, '--jwt-secret-file')), secretFile)
        : checkJwtSecret(secretFlag!, '--jwt-secret');
  }
  return {
    source,
    kind: onlyKind(kinds, source),
    ...(apiKeys && { apiKeys }),
    ...(basic && { basic }),
    ...(jwtSecret !== undefined && { jwtSecret }),
    jwt: jwtSettingsFromFlags(flags.options),
  };
}

/** PARLEY_API_KEYS, PARLEY_BASIC_CREDENTIALS and PARLEY_JWT_SECRET; empty variables count as unset. */
function authFromEnvironment(env: NodeJS.ProcessEnv): AuthLayer {
  const source = 'the environment';
  const kinds = new Set<AuthKind>();
  const layer: { apiKeys?: string[]; basic?: Map<string, string>; jwtSecret?: string } = {};
  if (env.PARLEY_API_KEYS) {
    kinds.add('api-key');
    layer.apiKeys = splitKeys(env.PARLEY_API_KEYS, 'PARLEY_API_KEYS');
  }
  if (env.PARLEY_BASIC_CREDENTIALS) {
    kinds.add('basic');
    layer.basic = basicCredentials(splitBasicLines(env.PARLEY_BASIC_CREDENTIALS, 'PARLEY_BASIC_CREDENTIALS'));
  }
  if (env.PARLEY_JWT_SECRET) {
    kinds.add('jwt');
    layer.jwtSecret = checkJwtSecret(env.PARLEY_JWT_SECRET, 'PARLEY_JWT_SECRET');
  }
  return { source, kind: onlyKind(kinds, source), ...layer };
}

/**
 * The authenticator the sources configure (highest first), or undefined for none. Lower sources
 * of another kind are reported through `note`; JWT settings merge field by field.
 */
async function buildAuthenticator(
  layers: readonly AuthLayer[],
  note: (line: string) => void,
): Promise<Authenticator | undefined> {
  const chosen = layers.find((layer) => layer.kind !== null) ?? NO_AUTH;
  for (const layer of layers) {
    if (layer.kind !== null && layer.kind !== chosen.kind) {
      note(
        `${KIND_NAMES[layer.kind]} authentication from ${layer.source} is ignored: ${chosen.source} configures ${KIND_NAMES[chosen.kind!]}`,
      );
    }
  }
  const jwtLayers = layers.filter((layer) => layer.kind === 'jwt' || layer.kind === null);
  const jwt: JwtSettings = Object.assign({}, ...jwtLayers.map((layer) => layer.jwt ?? {}).reverse());
  if (chosen.kind !== 'jwt' && Object.keys(jwt).length > 0) {
    throw new UsageError(
      'serve agent: --jwt-issuer, --jwt-audience, --jwt-algorithm and --jwt-leeway need a JWT secret (--jwt-secret-file, PARLEY_JWT_SECRET or --jwt-secret)',
    );
  }
  switch (chosen.kind) {
    case null:
      return undefined;
    case 'api-key':
      return new ApiKeyAuthenticator({ validKeys: Object.fromEntries(chosen.apiKeys!.map((key) => [key, []])) });
    case 'basic':
      return new BasicAuthenticator({ validCredentials: Object.fromEntries(chosen.basic!) });
    case 'jwt': {
      const secret = layers.find((layer) => layer.kind === 'jwt' && layer.jwtSecret !== undefined)?.jwtSecret;
      if (secret === undefined) {
        throw new UsageError(
          `serve agent: JWT authentication from ${chosen.source} needs a secret: --jwt-secret-file FILE, PARLEY_JWT_SECRET or --jwt-secret`,
        );
      }
      // jose is optional: without it every token would be refused, so say so before serving.
      await importOptional('jose', 'the JWT authenticator').catch((error: Error) => {
        throw new UsageError(`serve agent: ${error.message}`, { code: 'missing_dependency' });
      });
      return new JwtAuthenticator({ secret, ...jwt });
    }
  }
}

export interface ServeSecurity {
  /** Where to listen: the flag, else the file's, else the default (made secure when TLS files are given). */
  readonly url: string;
  readonly authenticator?: Authenticator;
  /** The transport configuration from the file with the TLS flags applied. */
  readonly transportOptions: ResolvedConfig;
}

/**
 * Authentication, TLS and the transport configuration of `serve agent` (or `serve registry`:
 * `command`), from its flags, the environment and the --config file (`file`, named
 * `configName`), in that order of precedence.
 */
export async function resolveServeSecurity(
  flags: Flags,
  file: Pick<ServeFileSettings, 'url' | 'transportConfig' | 'auth'> | null,
  configName: string | null,
  defaultUrl: string,
  command: 'serve agent' | 'serve registry' = 'serve agent',
): Promise<ServeSecurity> {
  try {
    return await resolveSecurity(flags, file, configName, defaultUrl);
  } catch (error) {
    throw command === 'serve agent' ? error : renamed(error, command);
  }
}

/** The messages below name `serve agent`; another command's user reads its own name. */
function renamed(error: unknown, command: string): unknown {
  if (!(error instanceof UsageError)) return error;
  const message = error.message.replace(/^serve agent:/, `${command}:`).replace('an agent takes', 'a server takes');
  return new UsageError(message, error.details);
}

async function resolveSecurity(
  flags: Flags,
  file: Pick<ServeFileSettings, 'url' | 'transportConfig' | 'auth'> | null,
  configName: string | null,
  defaultUrl: string,
): Promise<ServeSecurity> {
  const base = file?.transportConfig?.tls ?? null;
  const tlsAsked = flags.options['tls-cert'] !== undefined || !!base?.certfile;
  const url = (flags.options.url as string | undefined) ?? file?.url ?? (tlsAsked ? secureDefaultUrl(defaultUrl) : defaultUrl);
  const tls = resolveServeTls(flags, base, url, configName);
  const wire: TransportConfig = { ...file?.transportConfig, tls };
  let transportOptions: ResolvedConfig;
  try {
    transportOptions = ResolvedConfig.fromJSON(wire);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`serve agent: ${error.message}`, { code: 'invalid_config' });
    throw error;
  }
  const layers = [await authFromFlags(flags), authFromEnvironment(process.env), file?.auth ?? NO_AUTH];
  const authenticator = await buildAuthenticator(layers, (line) => process.stderr.write(`parley: note: ${line}\n`));
  return { url, ...(authenticator && { authenticator }), transportOptions };
}

/**
 * The TLS section: the flags over the config file's section (`base`), checked against the URL.
 * A secure URL needs a certificate and key; TLS files on a plain URL would be silently unused.
 */
function resolveServeTls(
  { options: flags }: Flags,
  base: TlsWire | null,
  url: string,
  configName: string | null,
): TlsWire | null {
  const overrides: Partial<TlsWire> = {
    ...(flags['tls-cert'] !== undefined && { certfile: flags['tls-cert'] as string }),
    ...(flags['tls-key'] !== undefined && { keyfile: flags['tls-key'] as string }),
    ...(flags['tls-ca'] !== undefined && { cafile: flags['tls-ca'] as string }),
    ...(flags['require-client-cert'] === true && { require_client_cert: true }),
  };
  const tls: TlsWire | null = base === null && Object.keys(overrides).length === 0 ? null : { ...base, ...overrides };
  const from = (flag: string, field: string) =>
    configName ? `${flag} (or transport_config.tls.${field} in ${configName})` : flag;
  const cert = from('--tls-cert FILE', 'certfile');
  const key = from('--tls-key FILE', 'keyfile');
  if (isSecureUrl(url)) {
    if (!tls?.certfile || !tls.keyfile) throw new UsageError(`serve agent: ${url} is a secure URL: give ${cert} and ${key}`);
  } else if (tls?.certfile || tls?.keyfile || tls?.require_client_cert) {
    throw new UsageError(`serve agent: TLS settings need a secure URL (https, wss or grpcs), not ${url}`);
  }
  if (tls === null) return null;
  if (!tls.certfile !== !tls.keyfile) throw new UsageError(`serve agent: ${cert} and ${key} go together`);
  if (tls.require_client_cert && !tls.cafile) {
    throw new UsageError(
      `serve agent: --require-client-cert needs ${from('--tls-ca FILE', 'cafile')} to trust client certificates`,
    );
  }
  for (const [field, flag] of [
    ['certfile', '--tls-cert'],
    ['keyfile', '--tls-key'],
    ['cafile', '--tls-ca'],
  ] as const) {
    const path = tls[field];
    if (path) checkReadable(path, flag);
  }
  return tls;
}

/** The one default URL scheme change TLS asks for: http -> https, ws -> wss, grpc -> grpcs. */
function secureDefaultUrl(url: string): string {
  return url.replace(/^(http|ws|grpc):/, '$1s:');
}

function jwtSettingsFromFlags(flags: ParsedArgs['options']): JwtSettings {
  const leeway = flags['jwt-leeway'] as string | undefined;
  if (leeway !== undefined && !/^\d+$/.test(leeway)) {
    throw new UsageError(`serve agent: --jwt-leeway must be a whole number of seconds (got ${JSON.stringify(leeway)})`);
  }
  for (const name of ['jwt-issuer', 'jwt-audience'] as const) {
    if (flags[name] === '') throw new UsageError(`serve agent: --${name} needs a value`);
  }
  return {
    ...(flags['jwt-algorithm'] !== undefined && { algorithm: flags['jwt-algorithm'] as JwtAlgorithm }),
    ...(flags['jwt-issuer'] !== undefined && { issuer: flags['jwt-issuer'] as string }),
    ...(flags['jwt-audience'] !== undefined && { audience: flags['jwt-audience'] as string }),
    ...(leeway !== undefined && { leewaySeconds: Number(leeway) }),
  };
}

function onlyKind(kinds: ReadonlySet<AuthKind>, source: string): AuthKind | null {
  if (kinds.size > 1) {
    const names = [...kinds].map((kind) => KIND_NAMES[kind]).join(' and ');
    throw new UsageError(`serve agent: ${source} configures ${names} authentication; an agent takes one kind at a time`);
  }
  return kinds.size === 1 ? [...kinds][0]! : null;
}

/** Reads a file of secrets; the read error names the flag and the file, never any contents. */
async function readSecretFile(path: string, flag: string): Promise<string> {
  try {
    return await readInput(path === '-' ? './-' : path);
  } catch (error) {
    throw new UsageError(`serve agent: ${flag}: ${(error as Error).message}`, (error as UsageError).details);
  }
}

/** API keys in text: separated by commas or line ends, blank entries and `#` comment lines skipped. */
export function splitKeys(text: string, where: string): string[] {
  const keys = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .flatMap((line) => line.split(','))
    .map((key) => key.trim())
    .filter((key) => key !== '');
  if (keys.length === 0) throw new UsageError(`serve agent: ${where} holds no API key`);
  return keys;
}

/** USER:PASSWORD lines (passwords may hold commas, so only line ends separate entries). */
export function splitBasicLines(text: string, where: string): { entry: string; where: string }[] {
  const entries: { entry: string; where: string }[] = [];
  text.split('\n').forEach((line, index) => {
    const entry = line.replace(/\r$/, '');
    if (entry.trim() !== '' && !entry.trimStart().startsWith('#')) entries.push({ entry, where: `${where} line ${index + 1}` });
  });
  if (entries.length === 0) throw new UsageError(`serve agent: ${where} holds no USER:PASSWORD line`);
  return entries;
}

function basicCredentials(entries: readonly { entry: string; where: string }[]): Map<string, string> {
  const credentials = new Map<string, string>();
  for (const { entry, where } of entries) {
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new UsageError(`serve agent: ${where}: expected USER:PASSWORD with a non-empty user`);
    const user = entry.slice(0, colon);
    if (credentials.has(user) && credentials.get(user) !== entry.slice(colon + 1)) {
      throw new UsageError(`serve agent: ${where}: user ${JSON.stringify(user)} is given twice with different passwords`);
    }
    credentials.set(user, entry.slice(colon + 1));
  }
  return credentials;
}

function checkKey(key: string, where: string): string {
  if (key.trim() === '') throw new UsageError(`serve agent: ${where} needs a non-blank key`);
  return key;
}

function checkJwtSecret(secret: string, where: string): string {
  if (secret === '') throw new UsageError(`serve agent: ${where}: the JWT secret is empty`);
  return secret;
}

/** A secret file's contents without the line end an editor adds. */
function trimLineEnd(text: string): string {
  return text.replace(/\r?\n$/, '');
}

function checkReadable(path: string, flag: string): void {
  try {
    accessSync(path, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`serve agent: ${flag}: cannot read ${path} (${code})`, { code: 'unreadable_file', file: path });
  }
}
