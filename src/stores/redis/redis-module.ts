// The `ioredis` package is optional: it is loaded on first use, so a missing install fails only
// the Redis-backed stores, with an error that names the package.
import { importOptional } from '../../core/errors.js';
import { lazyLoader } from '../../core/lazy-import.js';

export type RedisClient = import('ioredis').Redis;
type RedisConstructor = typeof import('ioredis').Redis;

export const loadRedis: () => Promise<RedisConstructor> = lazyLoader(
  async () => (await importOptional<typeof import('ioredis')>('ioredis', 'the Redis store')).Redis,
);
