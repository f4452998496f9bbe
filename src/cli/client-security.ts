// Credentials and TLS for the client commands (send, stream, card, health, discover, register,
// unregister): the flags, their -file forms and the environment variables, made into the
// `auth` and `tls` options of AgentClient and RegistryClient. As on the server side
// (serve-security.ts), a secret can come from a file or the environment because a command line
// is visible to every local user; the command line wins over the environment. Every mistake is a
// UsageError (exit 2) naming the flag or variable, never repeating a secret.
import { readFile } from 'node:fs/promises';
import type { ClientAuth } from '../auth/client-auth.js';
import type { TransportTlsOptions } from '../tls/tls-material.js';
import { isSecureUrl } from '../transport/url.js';
import type { OptionSpecs, ParsedArgs } from './args.js';
import { readInput } from './read-input.js';
import { UsageError } from './usage-error.js';

const FLAG_NAMES = ['api-key', 'api-key-file', 'token', 'token-file', 'basic', 'basic-file', 'ca', 'cert', 'key', 'servername'];

/** The flags, each name after `prefix` (`registry-` for the agent's registration: --registry-token ...). */
export function clientSecurityOptions(prefix = ''): OptionSpecs {
  return Object.fromEntries(FLAG_NAMES.map((name) => [prefix + name, { type: 'string' } as const]));
}

export const CLIENT_SECURITY_OPTIONS: OptionSpecs = clientSecurityOptions();

export const CLIENT_SECURITY_USAGE = `Credentials (one kind at most; see docs/security.md):
  --api-key KEY           send this API key (X-API-Key header)
  --api-key-file FILE     the same, the key being the first line of FILE
  --token TOKEN           send this bearer token (Authorization: Bearer), a JWT for example
  --token-file FILE       the same, the token being the first line of FILE
  --basic USER:PASSWORD   send HTTP Basic credentials
  --basic-file FILE       the same, from the first USER:PASSWORD line of FILE
  Without a flag, from the environment: PARLEY_API_KEY, PARLEY_TOKEN or PARLEY_BASIC
  (USER:PASSWORD); for a registry (discover, register, unregister) PARLEY_REGISTRY_API_KEY,
  PARLEY_REGISTRY_TOKEN or PARLEY_REGISTRY_BASIC instead, so that an agent's secret never goes
  to a registry. Prefer these or the -file flags: command lines are visible to every local user.

TLS (https, wss and grpcs URLs):
  --ca FILE               trust the CA certificates (PEM) in FILE instead of the system roots
  --cert FILE             client certificate chain (PEM) for mutual TLS, with --key
  --key FILE              private key (PEM) of --cert
  --servername NAME       check the server's certificate against NAME (and send it as SNI)
                          instead of the URL's host
`;

/** What a client command hands to AgentClient or RegistryClient. */
export interface ClientSecurity {
  readonly auth?: ClientAuth;
  readonly tls?: TransportTlsOptions;
}

type Flags = Pick<ParsedArgs, 'options'>;
type Kind = 'api-key' | 'token' | 'basic';

/** Each kind's environment variable for a peer: an agent's, or a registry's (PARLEY_REGISTRY_...). */
function variables(peer: Peer): ReadonlyArray<readonly [string, Kind]> {
  const prefix = peer === 'registry' ? 'PARLEY_REGISTRY_' : 'PARLEY_';
  return [
    [`${prefix}API_KEY`, 'api-key'],
    [`${prefix}TOKEN`, 'token'],
    [`${prefix}BASIC`, 'basic'],
  ];
}

type Peer = 'agent' | 'registry';

// What an HTTP header (and gRPC metadata) can carry of a key or token.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * The credentials and TLS the flags and the environment give for a call to `url` (undefined:
 * not known yet, so not checked against TLS). `peer` says whom the command calls, which decides
 * the environment variables read; `prefix` is put before every flag name.
 */
export async function clientSecurity(
  command: string,
  flags: Flags,
  url: string | undefined,
  peer: Peer = 'agent',
  prefix = '',
  env: NodeJS.ProcessEnv = process.env,
): Promise<ClientSecurity> {
  const auth = (await authFromFlags(command, flags.options, prefix)) ?? authFromEnvironment(command, env, peer);
  const tls = await tlsFromFlags(command, flags.options, url, prefix);
  return { ...(auth && { auth }), ...(tls && { tls }) };
}

/** The first of the flags (with `prefix`) that is given, as `--name`; null when none is. */
export function givenClientSecurityFlag(flags: Flags, prefix = ''): string | null {
  const name = FLAG_NAMES.find((flag) => flags.options[prefix + flag] !== undefined);
  return name === undefined ? null : `--${prefix}${name}`;
}

async function authFromFlags(command: string, options: Flags['options'], prefix: string): Promise<ClientAuth | undefined> {
  const given = (['api-key', 'token', 'basic'] as const).filter(
    (kind) => options[prefix + kind] !== undefined || options[`${prefix}${kind}-file`] !== undefined,
  );
  if (given.length === 0) return undefined;
  if (given.length > 1) {
    const names = given.map((kind) => `--${prefix}${kind}`).join(' and ');
    throw new UsageError(`${command}: give one kind of credentials, not ${names}`);
  }
  const kind = given[0]!;
  const flag = `--${prefix}${kind}`;
  const value = options[prefix + kind] as string | undefined;
  const file = options[`${prefix}${kind}-file`] as string | undefined;
  if (value !== undefined && file !== undefined) throw new UsageError(`${command}: give ${flag} or ${flag}-file, not both`);
  if (value !== undefined) return credential(command, kind, value, flag);
  const text = await readInput(file === '-' ? './-' : file!).catch((error: UsageError) => {
    throw new UsageError(`${command}: ${flag}-file: ${error.message}`, error.details);
  });
  return credential(command, kind, firstLine(text), `${flag}-file ${file}`);
}

function authFromEnvironment(command: string, env: NodeJS.ProcessEnv, peer: Peer): ClientAuth | undefined {
  const set = variables(peer).filter(([name]) => env[name]);
  if (set.length === 0) return undefined;
  if (set.length > 1) {
    const names = set.map(([name]) => name).join(' and ');
    throw new UsageError(`${command}: the environment sets ${names}; keep one, or give a credential flag`);
  }
  const [name, kind] = set[0]!;
  const raw = env[name]!;
  return credential(command, kind, kind === 'basic' ? raw.replace(/\r?\n$/, '') : raw.trim(), name);
}

/** The first line that is not blank or a `#` comment, without its line end. */
function firstLine(text: string): string {
  const line = text.split('\n').find((entry) => entry.trim() !== '' && !entry.trimStart().startsWith('#'));
  return (line ?? '').replace(/\r$/, '');
}

function credential(command: string, kind: Kind, value: string, where: string): ClientAuth {
  if (kind === 'basic') {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new UsageError(`${command}: ${where}: expected USER:PASSWORD with a non-empty user`);
    return { basic: { user: value.slice(0, colon), password: value.slice(colon + 1) } };
  }
  const secret = value.trim();
  if (!HEADER_SAFE.test(secret)) {
    const what = kind === 'api-key' ? 'an API key' : 'a token';
    throw new UsageError(`${command}: ${where}: expected ${what} of visible characters, with no spaces inside`);
  }
  return kind === 'api-key' ? { apiKey: secret } : { bearer: secret };
}

async function tlsFromFlags(
  command: string,
  options: Flags['options'],
  url: string | undefined,
  prefix: string,
): Promise<TransportTlsOptions | undefined> {
  const value = (name: string) => options[prefix + name] as string | undefined;
  const names = (['ca', 'cert', 'key', 'servername'] as const).filter((name) => value(name) !== undefined);
  if (names.length === 0) return undefined;
  if ((value('cert') === undefined) !== (value('key') === undefined)) {
    throw new UsageError(`${command}: --${prefix}cert FILE and --${prefix}key FILE go together (mutual TLS)`);
  }
  if (url !== undefined && !isSecureUrl(url)) {
    const flags = names.map((name) => `--${prefix}${name}`).join(', ');
    throw new UsageError(
      `${command}: ${flags} ${names.length === 1 ? 'needs' : 'need'} a secure URL (https, wss or grpcs), not ${url}`,
    );
  }
  const servername = value('servername');
  if (servername === '') throw new UsageError(`${command}: --${prefix}servername needs a host name`);
  const [ca, cert, key] = await Promise.all(
    (['ca', 'cert', 'key'] as const).map((name) => pemFile(command, prefix + name, value(name))),
  );
  return {
    ...(ca && { ca }),
    ...(cert && { cert }),
    ...(key && { key }),
    ...(servername !== undefined && { servername }),
  };
}

/** A PEM file's bytes; a file that cannot be read or holds no PEM block is a usage error naming the flag. */
async function pemFile(command: string, flag: string, path: string | undefined): Promise<Buffer | undefined> {
  if (path === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`${command}: --${flag}: cannot read ${path} (${code})`, { code: 'unreadable_file', file: path });
  }
  if (!bytes.includes('-----BEGIN ')) {
    throw new UsageError(`${command}: --${flag}: ${path} holds no PEM block (-----BEGIN ...)`, {
      code: 'invalid_pem',
      file: path,
    });
  }
  return bytes;
}
