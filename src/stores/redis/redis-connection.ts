// Connecting to Redis for the shared stores. A store URL is `redis://[user:password@]host:port[/db]`
// (`rediss://` for TLS) with an optional `?prefix=NAME` that namespaces every key, so several
// deployments can share one Redis. The client is set up to fail fast rather than wait: no
// offline queue (a command while disconnected fails at once), no resending of a command that was
// in flight when the connection dropped (it may have run), and a command timeout. It keeps
// reconnecting in the background, so a replica recovers by itself when Redis comes back.
import { InvalidArgumentError } from '../../core/errors.js';
import { RedisStoreError } from './redis-error.js';
import { loadRedis, type RedisClient } from './redis-module.js';
import type { RedisConnectOptions, RedisTarget } from './redis-target.js';

/** Whether a store option names Redis. */
export function isRedisUrl(value: string): boolean {
  return /^rediss?:\/\//i.test(value);
}

export function parseRedisUrl(value: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`${JSON.stringify(value)} is not a Redis URL (redis://host:port)`, 'invalid_argument');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new InvalidArgumentError(
      `a Redis store URL starts with redis:// or rediss://, not ${url.protocol}//`,
      'invalid_argument',
    );
  }
  const name = url.searchParams.get('prefix') ?? 'parley';
  url.searchParams.delete('prefix');
  const shown = new URL(url.href);
  if (shown.password) shown.password = '***';
  return { url: url.href, location: shown.href, prefix: name ? `${name}:` : '' };
}

/**
 * Connects and checks with a PING. Unreachable Redis rejects with a RedisStoreError
 * (`redis_unreachable`) naming the URL, and leaves nothing running.
 */
export async function connectRedis(target: RedisTarget, options: RedisConnectOptions = {}): Promise<RedisClient> {
  const Redis = await loadRedis();
  const client = new Redis(target.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    // Reconnect for ever, a little slower each time up to a second: Redis coming back is noticed soon.
    retryStrategy: (times: number) => Math.min(50 * times, 1000),
  });
  // Errors while reconnecting are expected; the commands that fail report them.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new RedisStoreError(
      'redis_unreachable',
      `cannot reach Redis at ${target.location}: ${reason(error)}`,
      target.location,
      {
        cause: error,
      },
    );
  }
  return client;
}

/** Any failure of a Redis command as a RedisStoreError (`redis_unavailable`); other errors as they are. */
export function redisFailure(error: unknown, location: string): unknown {
  if (error instanceof RedisStoreError) return error;
  if (error instanceof Error && isConnectionFailure(error)) {
    return new RedisStoreError('redis_unavailable', `Redis at ${location} is unavailable: ${error.message}`, location, {
      cause: error,
    });
  }
  return error;
}

/**
 * The replies of a Redis that is up but cannot take the command now: full (`maxmemory` under
 * `noeviction`), a read-only replica (a failover's old primary), loading its data, busy in a
 * long script, or cut off from its primary or replicas. A script's command refused so comes
 * back with the code first (7.0), or after a `-` inside the script's error (6.2).
 */
const REFUSED_FOR_NOW = /(?:^|-)(?:OOM|READONLY|LOADING|BUSY|MASTERDOWN|NOREPLICAS) /;

/**
 * Whether a command failed for want of a Redis that can serve it (as against a script or type
 * error, which is a bug): ioredis raises a lost connection as a plain Error or its
 * MaxRetriesPerRequestError, told apart by their class names and Node error codes; a Redis that
 * refuses for now answers a ReplyError with one of the codes above. Either way nothing was done,
 * and a retry once Redis is back can succeed.
 */
function isConnectionFailure(error: Error): boolean {
  if (error.name === 'MaxRetriesPerRequestError') return true;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  // ioredis's own connection states (offline queue off, closed, timed out) carry no code; a
  // reply error from Redis itself is a ReplyError.
  if (error.name === 'ReplyError') return REFUSED_FOR_NOW.test(error.message);
  return true;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
