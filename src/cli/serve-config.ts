// The file `parley serve agent --config FILE` reads: the agent's name, transport and URL, the
// transport configuration in its serialized snake_case form (checked by the generated
// transport-config validator, then by ResolvedConfig's cross-field rules), an `auth` section
// and a `registry` section (where to register, with which API key). `parley serve registry
// --config FILE` reads the same file without `name` and `registry`, plus `public_discovery`.
// Every mistake is a UsageError (exit 2) naming the file and the JSON pointer of the field.
// Relative paths in the file (TLS files, secret files) are relative to the file's folder, so a
// config works from any working directory.
import { dirname, isAbsolute, resolve } from 'node:path';
import type { TransportConfig } from '../../generated/types/index.js';
import { validateTransportConfig } from '../../generated/validators/index.js';
import { JWT_ALGORITHMS, type JwtAlgorithm } from '../auth/jwt.js';
import { checkExtendedCard, type A2aExtendedCard } from '../a2a/card/extended-card.js';
import { ConfigError } from '../core/errors.js';
import { ResolvedConfig } from '../transport/config.js';
import { readInput } from './read-input.js';
import { splitBasicLines, splitKeys, type AuthLayer, type JwtSettings } from './serve-security.js';
import { UsageError } from './usage-error.js';

export interface ServeFileSettings {
  readonly name?: string;
  readonly transport?: string;
  readonly url?: string;
  /** The serialized transport configuration, its paths made absolute; undefined when absent. */
  readonly transportConfig?: TransportConfig;
  readonly auth: AuthLayer;
  /** The agent's registry: where (`url`) and the API key it registers with. */
  readonly registry?: { readonly url?: string; readonly apiKey?: string };
  /** The registry's reads need no credentials. */
  readonly publicDiscovery?: boolean;
  /** The agent's authenticated extended A2A card (`a2a_extended_card`), checked. */
  readonly a2aExtendedCard?: A2aExtendedCard;
  /** Queued A2A tasks this replica runs at once (`queue_concurrency`, with a Redis store). */
  readonly queueConcurrency?: number;
}

/** Which command reads the file: each takes its own settings beside the shared ones. */
export type ServeRole = 'agent' | 'registry';

const SHARED_KEYS = ['$schema', 'transport', 'url', 'transport_config', 'auth'];
const TOP_KEYS: Readonly<Record<ServeRole, readonly string[]>> = {
  agent: [...SHARED_KEYS, 'name', 'registry', 'a2a_extended_card', 'queue_concurrency'],
  registry: [...SHARED_KEYS, 'public_discovery'],
};
const REGISTRY_KEYS = ['url', 'api_key', 'api_key_file'];
const AUTH_KINDS = { api_key: 'api-key', basic: 'basic', jwt: 'jwt' } as const;
const SECTION_KEYS: Readonly<Record<keyof typeof AUTH_KINDS, readonly string[]>> = {
  api_key: ['keys', 'keys_file'],
  basic: ['credentials', 'credentials_file'],
  jwt: ['secret', 'secret_file', 'algorithm', 'issuer', 'audience', 'leeway_seconds'],
};

type Json = Record<string, unknown>;

export async function readServeConfig(path: string, role: ServeRole = 'agent'): Promise<ServeFileSettings> {
  const text = await readInput(path === '-' ? './-' : path);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`, { code: 'invalid_json', file: path });
  }
  const invalid = (pointer: string, rule: string) =>
    new UsageError(`${path}: ${pointer || '(the whole file)'} ${rule}`, { code: 'invalid_config', file: path, pointer });
  const base = dirname(resolve(path));
  const local = (file: string) => (isAbsolute(file) ? file : resolve(base, file));

  const root = objectAt(document, '', invalid);
  unknownKeys(root, TOP_KEYS[role], '', invalid);
  if (root.public_discovery !== undefined && typeof root.public_discovery !== 'boolean')
    throw invalid('/public_discovery', 'must be true or false');
  for (const key of ['name', 'transport', 'url']) {
    if (root[key] !== undefined && (typeof root[key] !== 'string' || root[key] === ''))
      throw invalid(`/${key}`, 'must be a non-empty string');
  }
  const concurrency = root.queue_concurrency;
  if (concurrency !== undefined && !(Number.isSafeInteger(concurrency) && (concurrency as number) >= 1))
    throw invalid('/queue_concurrency', 'must be a whole number, at least 1');
  const transportConfig =
    root.transport_config === undefined ? undefined : checkTransportConfig(root.transport_config, local, invalid);
  return {
    ...(root.name !== undefined && { name: root.name as string }),
    ...(root.transport !== undefined && { transport: root.transport as string }),
    ...(root.url !== undefined && { url: root.url as string }),
    ...(transportConfig && { transportConfig }),
    auth: await authSection(root.auth, path, local, invalid),
    ...(root.registry !== undefined && { registry: await registrySection(root.registry, path, local, invalid) }),
    ...(root.public_discovery !== undefined && { publicDiscovery: root.public_discovery as boolean }),
    ...(root.a2a_extended_card !== undefined && { a2aExtendedCard: extendedCardAt(root.a2a_extended_card, path) }),
    ...(concurrency !== undefined && { queueConcurrency: concurrency as number }),
  };
}

/** The agent's `a2a_extended_card`: what GetExtendedAgentCard adds for authenticated callers. */
export function extendedCardAt(value: unknown, path: string): A2aExtendedCard {
  try {
    return checkExtendedCard(value, '/a2a_extended_card');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new UsageError(`${path}: ${error.message}`, { code: 'invalid_config', file: path, pointer: '/a2a_extended_card' });
  }
}

/** The agent's `registry` section: `url`, and its API key as `api_key` or `api_key_file` (the first key in it). */
async function registrySection(
  value: unknown,
  path: string,
  local: (file: string) => string,
  invalid: Invalid,
): Promise<{ url?: string; apiKey?: string }> {
  const at = '/registry';
  const fields = objectAt(value, at, invalid);
  unknownKeys(fields, REGISTRY_KEYS, at, invalid);
  for (const key of REGISTRY_KEYS) {
    if (fields[key] !== undefined && (typeof fields[key] !== 'string' || (fields[key] as string).trim() === ''))
      throw invalid(`${at}/${key}`, 'must be a non-blank string');
  }
  if (fields.api_key !== undefined && fields.api_key_file !== undefined)
    throw invalid(at, 'takes api_key or api_key_file, not both');
  let apiKey = fields.api_key as string | undefined;
  if (fields.api_key_file !== undefined) {
    const file = local(fields.api_key_file as string);
    const text = await readInput(file === '-' ? './-' : file).catch((error: UsageError) => {
      throw new UsageError(`${path}: ${at}/api_key_file: ${error.message}`, error.details);
    });
    apiKey = splitKeys(text, `${path}: ${at}/api_key_file`)[0];
  }
  return { ...(fields.url !== undefined && { url: fields.url as string }), ...(apiKey !== undefined && { apiKey }) };
}

type Invalid = (pointer: string, rule: string) => UsageError;

function checkTransportConfig(value: unknown, local: (file: string) => string, invalid: Invalid): TransportConfig {
  const result = validateTransportConfig(value);
  if (!result.valid) {
    const issue = result.errors[0]!;
    throw invalid(`/transport_config${issue.pointer}`, issue.message);
  }
  const config: TransportConfig = { ...result.value };
  if (config.tls) {
    const tls = { ...config.tls };
    for (const field of ['certfile', 'keyfile', 'cafile'] as const) {
      if (typeof tls[field] === 'string') tls[field] = local(tls[field]);
    }
    config.tls = tls;
  }
  // The rules that tie fields together (backoff order, certfile with keyfile) live in ResolvedConfig.
  try {
    ResolvedConfig.fromJSON(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw invalid(`/transport_config/${error.field.split('.').map(snakeCase).join('/')}`, error.rule);
  }
  return config;
}

async function authSection(value: unknown, path: string, local: (file: string) => string, invalid: Invalid): Promise<AuthLayer> {
  if (value === undefined || value === null) return { source: path, kind: null };
  const auth = objectAt(value, '/auth', invalid);
  unknownKeys(auth, Object.keys(AUTH_KINDS), '/auth', invalid);
  const named = Object.keys(auth) as (keyof typeof AUTH_KINDS)[];
  if (named.length !== 1)
    throw invalid('/auth', `must hold exactly one of ${Object.keys(AUTH_KINDS).join(', ')} (an agent takes one kind at a time)`);
  const section = named[0]!;
  const at = `/auth/${section}`;
  const fields = objectAt(auth[section], at, invalid);
  unknownKeys(fields, SECTION_KEYS[section], at, invalid);
  const readFile = async (field: string) => {
    const file = fields[field];
    if (typeof file !== 'string' || file === '') throw invalid(`${at}/${field}`, 'must be a non-empty file name');
    return readInput(local(file) === '-' ? './-' : local(file)).catch((error: UsageError) => {
      throw new UsageError(`${path}: ${at}/${field}: ${error.message}`, error.details);
    });
  };
  const layer = { source: path, kind: AUTH_KINDS[section] };
  switch (section) {
    case 'api_key': {
      const keys: string[] = [];
      if (fields.keys !== undefined) {
        if (!Array.isArray(fields.keys) || fields.keys.some((key) => typeof key !== 'string' || key.trim() === '')) {
          throw invalid(`${at}/keys`, 'must be a list of non-blank strings');
        }
        keys.push(...(fields.keys as string[]));
      }
      if (fields.keys_file !== undefined) keys.push(...splitKeys(await readFile('keys_file'), `${path}: ${at}/keys_file`));
      if (keys.length === 0) throw invalid(at, 'needs keys or keys_file');
      return { ...layer, apiKeys: keys };
    }
    case 'basic': {
      const credentials = new Map<string, string>();
      if (fields.credentials !== undefined) {
        const given = objectAt(fields.credentials, `${at}/credentials`, invalid);
        for (const [user, password] of Object.entries(given)) {
          const pointer = `${at}/credentials/${pointerToken(user)}`;
          if (user === '' || user.includes(':')) throw invalid(pointer, 'a user name must be non-empty and hold no colon');
          if (typeof password !== 'string') throw invalid(pointer, 'must be a string (the password)');
          credentials.set(user, password);
        }
      }
      if (fields.credentials_file !== undefined) {
        for (const { entry, where } of splitBasicLines(await readFile('credentials_file'), `${path}: ${at}/credentials_file`)) {
          const colon = entry.indexOf(':');
          if (colon <= 0)
            throw new UsageError(`${where}: expected USER:PASSWORD with a non-empty user`, { code: 'invalid_config' });
          credentials.set(entry.slice(0, colon), entry.slice(colon + 1));
        }
      }
      if (credentials.size === 0) throw invalid(at, 'needs credentials or credentials_file');
      return { ...layer, basic: credentials };
    }
    case 'jwt': {
      if (fields.secret !== undefined && fields.secret_file !== undefined)
        throw invalid(at, 'takes secret or secret_file, not both');
      if (fields.secret !== undefined && (typeof fields.secret !== 'string' || fields.secret === '')) {
        throw invalid(`${at}/secret`, 'must be a non-empty string');
      }
      let secret = fields.secret as string | undefined;
      if (fields.secret_file !== undefined) {
        secret = (await readFile('secret_file')).replace(/\r?\n$/, '');
        if (secret === '') throw invalid(`${at}/secret_file`, 'names an empty file');
      }
      return { ...layer, ...(secret !== undefined && { jwtSecret: secret }), jwt: jwtSettings(fields, at, invalid) };
    }
  }
}

function jwtSettings(fields: Json, at: string, invalid: Invalid): JwtSettings {
  const { algorithm, issuer, audience, leeway_seconds: leeway } = fields;
  if (algorithm !== undefined && !JWT_ALGORITHMS.includes(algorithm as JwtAlgorithm)) {
    throw invalid(`${at}/algorithm`, `must be one of ${JWT_ALGORITHMS.join(', ')}`);
  }
  for (const [name, value] of [
    ['issuer', issuer],
    ['audience', audience],
  ] as const) {
    if (value !== undefined && value !== null && (typeof value !== 'string' || value === '')) {
      throw invalid(`${at}/${name}`, 'must be a non-empty string or null');
    }
  }
  if (leeway !== undefined && (!Number.isSafeInteger(leeway) || (leeway as number) < 0)) {
    throw invalid(`${at}/leeway_seconds`, 'must be a non-negative integer');
  }
  return {
    ...(algorithm !== undefined && { algorithm: algorithm as JwtAlgorithm }),
    ...(typeof issuer === 'string' && { issuer }),
    ...(typeof audience === 'string' && { audience }),
    ...(leeway !== undefined && { leewaySeconds: leeway as number }),
  };
}

function objectAt(value: unknown, pointer: string, invalid: Invalid): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(pointer, 'must be an object');
  return value as Json;
}

function unknownKeys(object: Json, known: readonly string[], pointer: string, invalid: Invalid): void {
  const unknown = Object.keys(object).find((key) => !known.includes(key));
  if (unknown !== undefined)
    throw invalid(
      `${pointer}/${pointerToken(unknown)}`,
      `is not a setting here; expected ${known.filter((key) => key !== '$schema').join(', ')}`,
    );
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
