// The `ioredis` package is optional: it is loaded on first use, so a missing install fails only
// the Redis-backed stores, with an error that names the package.
import { importOptional } from '../../core/errors.js';

export type RedisClient = import('ioredis').Redis;
type RedisConstructor = typeof import('ioredis').Redis;

let loading: Promise<RedisConstructor> | null = null;

export function loadRedis(): Promise<RedisConstructor> {
  loading ??= importOptional<typeof import('ioredis')>('ioredis', 'the Redis store').then(
    (module) => module.Redis,
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}
