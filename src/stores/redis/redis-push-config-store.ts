// The store of A2A push-notification configs on Redis, so a config created through one replica
// is delivered by the replica that runs the task. Layout under the key prefix, where TASK is
// the JSON of (tenant, principal, task id) (push-configs.ts, pushTaskKey): `a2a:push:TASK`
// (hash, config id to the config as JSON), `a2a:push-expiry` (sorted set, TASK by the time its
// configs expire), `a2a:push-share-of` (hash, TASK to its share's key), one sorted set per
// caller's share and `a2a:push-all`, each holding TASK..ID per config (the counts the bounds
// read). The rules are the memory store's: a task's configs expire `ttlMs` after its last change
// (put and touch extend it), a new config past a bound is refused. Expiry is decided by the
// clock handed in, not by Redis key TTLs, so every replica and the tests agree on it; expired
// tasks are swept on each put and whenever one is read.
import {
  DEFAULT_PUSH_CONFIG_BOUNDS,
  PushConfigQuotaError,
  pushShareOf,
  pushTaskKey,
  scopeOfConfig,
  type PushConfigBounds,
  type PushConfigLimit,
  type StoredPushConfig,
} from '../push-configs.js';
import type { TaskScope } from '../task-entries.js';
import { redisFailure } from './redis-connection.js';
import type { RedisClient } from './redis-module.js';

/**
 * Shared by the scripts below, and by the task index's settle script (redis-task-index.ts), which
 * reads a settling task's configs in its own round trip: forget a task's configs, tell whether a
 * task's are live, sweep expired ones, and touch (what LIST does with a ttl). Named for the
 * configs, so they sit beside the index's own functions in one script.
 */
export const PUSH_CONFIG_LUA = `
local function forgetConfigs(p, task)
  local hash = p..'a2a:push:'..task
  local share = redis.call('HGET', p..'a2a:push-share-of', task)
  for _, id in ipairs(redis.call('HKEYS', hash)) do
    if share then redis.call('ZREM', share, task..id) end
    redis.call('ZREM', p..'a2a:push-all', task..id)
  end
  redis.call('DEL', hash)
  redis.call('HDEL', p..'a2a:push-share-of', task)
  redis.call('ZREM', p..'a2a:push-expiry', task)
end
local function liveConfigs(p, task, now)
  local expires = redis.call('ZSCORE', p..'a2a:push-expiry', task)
  if not expires then return false end
  if tonumber(expires) < now then
    forgetConfigs(p, task)
    return false
  end
  return true
end
local function sweepConfigs(p, now)
  for _, task in ipairs(redis.call('ZRANGEBYSCORE', p..'a2a:push-expiry', '-inf', '(' .. now)) do forgetConfigs(p, task) end
end
local function touchConfigs(p, task, now, ttl)
  if not liveConfigs(p, task, now) then return {} end
  redis.call('ZADD', p..'a2a:push-expiry', now + ttl, task)
  return redis.call('HVALS', p..'a2a:push:'..task)
end
`;

/** ARGV: prefix, task, share key, id, json, now, ttl, max per task, per share, in all. 'ok' or the bound passed. */
const PUT = `${PUSH_CONFIG_LUA}
local p, task, share, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now, ttl = tonumber(ARGV[6]), tonumber(ARGV[7])
local hash = p..'a2a:push:'..task
sweepConfigs(p, now)
if redis.call('HEXISTS', hash, id) == 0 then
  if redis.call('HLEN', hash) >= tonumber(ARGV[8]) then return 'task' end
  if redis.call('ZCARD', share) >= tonumber(ARGV[9]) then return 'caller' end
  if redis.call('ZCARD', p..'a2a:push-all') >= tonumber(ARGV[10]) then return 'store' end
  redis.call('ZADD', share, 0, task..id)
  redis.call('ZADD', p..'a2a:push-all', 0, task..id)
end
redis.call('HSET', hash, id, ARGV[5])
redis.call('HSET', p..'a2a:push-share-of', task, share)
redis.call('ZADD', p..'a2a:push-expiry', now + ttl, task)
return 'ok'
`;

/** ARGV: prefix, task, id, now. The config's JSON, or nil. */
const GET = `${PUSH_CONFIG_LUA}
if not liveConfigs(ARGV[1], ARGV[2], tonumber(ARGV[4])) then return nil end
return redis.call('HGET', ARGV[1]..'a2a:push:'..ARGV[2], ARGV[3])
`;

/** ARGV: prefix, task, now, ttl ('' to read without extending). The task's configs as JSON. */
const LIST = `${PUSH_CONFIG_LUA}
local p, task, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
if ARGV[4] ~= '' then return touchConfigs(p, task, now, tonumber(ARGV[4])) end
if not liveConfigs(p, task, now) then return {} end
return redis.call('HVALS', p..'a2a:push:'..task)
`;

/** ARGV: prefix, task, id, now. 1 when the config was there. */
const DELETE = `${PUSH_CONFIG_LUA}
local p, task, id = ARGV[1], ARGV[2], ARGV[3]
if not liveConfigs(p, task, tonumber(ARGV[4])) then return 0 end
local hash = p..'a2a:push:'..task
if redis.call('HDEL', hash, id) == 0 then return 0 end
local share = redis.call('HGET', p..'a2a:push-share-of', task)
if share then redis.call('ZREM', share, task..id) end
redis.call('ZREM', p..'a2a:push-all', task..id)
if redis.call('HLEN', hash) == 0 then forgetConfigs(p, task) end
return 1
`;

interface Scripts {
  a2aPushPut(...args: string[]): Promise<string>;
  a2aPushGet(...args: string[]): Promise<string | null>;
  a2aPushList(...args: string[]): Promise<string[]>;
  a2aPushDelete(...args: string[]): Promise<number>;
}

export function definePushConfigScripts(client: RedisClient): void {
  client.defineCommand('a2aPushPut', { numberOfKeys: 0, lua: PUT });
  client.defineCommand('a2aPushGet', { numberOfKeys: 0, lua: GET });
  client.defineCommand('a2aPushList', { numberOfKeys: 0, lua: LIST });
  client.defineCommand('a2aPushDelete', { numberOfKeys: 0, lua: DELETE });
}

export class RedisPushConfigStore {
  readonly maxConfigsPerTask: number;
  readonly maxConfigsPerCaller: number;
  readonly maxConfigs: number;
  readonly ttlMs: number;
  private readonly client: RedisClient & Scripts;

  /** `client` must have had definePushConfigScripts applied. */
  constructor(
    client: RedisClient,
    private readonly prefix: string,
    private readonly location: string,
    options: PushConfigBounds = {},
    private readonly now: () => number = Date.now,
  ) {
    this.client = client as RedisClient & Scripts;
    this.maxConfigsPerTask = options.maxConfigsPerTask ?? DEFAULT_PUSH_CONFIG_BOUNDS.maxConfigsPerTask;
    this.maxConfigsPerCaller = options.maxConfigsPerCaller ?? DEFAULT_PUSH_CONFIG_BOUNDS.maxConfigsPerCaller;
    this.maxConfigs = options.maxConfigs ?? DEFAULT_PUSH_CONFIG_BOUNDS.maxConfigs;
    this.ttlMs = options.ttlMs ?? DEFAULT_PUSH_CONFIG_BOUNDS.ttlMs;
  }

  async put(config: StoredPushConfig): Promise<void> {
    const scope = scopeOfConfig(config);
    const share = `${this.prefix}a2a:push-share:${pushShareOf(scope)}`;
    const bounds = [this.maxConfigsPerTask, this.maxConfigsPerCaller, this.maxConfigs].map(String);
    const answer = await this.call(() =>
      this.client.a2aPushPut(
        this.prefix,
        pushTaskKey(scope, config.taskId),
        share,
        config.id,
        JSON.stringify(config),
        String(this.now()),
        String(this.ttlMs),
        ...bounds,
      ),
    );
    if (answer !== 'ok') throw this.refusal(answer as PushConfigLimit);
  }

  async get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const json = await this.call(() => this.client.a2aPushGet(this.prefix, pushTaskKey(scope, taskId), id, String(this.now())));
    return json === null ? undefined : (JSON.parse(json) as StoredPushConfig);
  }

  list(scope: TaskScope, taskId: string): Promise<readonly StoredPushConfig[]> {
    return this.read(scope, taskId, '');
  }

  async delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    const removed = await this.call(() =>
      this.client.a2aPushDelete(this.prefix, pushTaskKey(scope, taskId), id, String(this.now())),
    );
    return removed === 1;
  }

  touch(scope: TaskScope, taskId: string): Promise<readonly StoredPushConfig[]> {
    return this.read(scope, taskId, String(this.ttlMs));
  }

  /**
   * What the index's settle script needs to touch the task's configs as touch() does: the
   * task's key, now and the TTL (ARGV of touchConfigs, after the prefix).
   */
  touchArgs(scope: TaskScope, taskId: string): [task: string, now: string, ttl: string] {
    return [pushTaskKey(scope, taskId), String(this.now()), String(this.ttlMs)];
  }

  private async read(scope: TaskScope, taskId: string, ttl: string): Promise<readonly StoredPushConfig[]> {
    const rows = await this.call(() => this.client.a2aPushList(this.prefix, pushTaskKey(scope, taskId), String(this.now()), ttl));
    return configsOf(rows);
  }

  private refusal(limit: PushConfigLimit): PushConfigQuotaError {
    const bound = limit === 'task' ? this.maxConfigsPerTask : limit === 'caller' ? this.maxConfigsPerCaller : this.maxConfigs;
    return new PushConfigQuotaError(limit, bound);
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw redisFailure(error, this.location);
    }
  }
}

/** A task's configs as the scripts answer them (JSON), by id. */
export function configsOf(rows: readonly string[]): StoredPushConfig[] {
  const configs = rows.map((row) => JSON.parse(row) as StoredPushConfig);
  return configs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
