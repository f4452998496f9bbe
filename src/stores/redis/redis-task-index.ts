// The A2A task index on Redis, so GetTask, ListTasks, CancelTask and follow-up messages find a
// task from every replica. Layout under the key prefix: `a2a:task:ID` (the indexed task as JSON,
// with when it last changed), `a2a:brief:ID` (its state and context id, all a ListTasks filter
// reads: a listing reads these for the scope's tasks and then only its page's records, so a
// caller's many large tasks are not all read out of Redis for each page), `a2a:touched` (sorted
// set, ID by last change: expiry and eviction order), `a2a:active` (set of the IDs some replica
// is running: never evicted) and one sorted set per tenant and principal, ID by status time
// (the listing order; Redis orders equal times by ID, descending when read in reverse, as the
// memory index does), and one sorted set per caller's share (task-entries.ts, shareOf), ID by
// last change. The rules are the memory index's: `maxTasks` tasks, at most `maxTasksPerCaller`
// of one share, each kept `ttlMs` after its last change; room is made by dropping expired tasks,
// then (a share at its bound) the share's own inactive task changed longest ago, or (a full
// index) the largest share's; a share of active tasks refuses its caller's new task, a full
// index of them everyone's. One rule more, because two replicas can race: a follow-up message
// may start a task only if no replica is running it (the activation is one atomic check). A task
// that finishes while Redis is away (or refuses writes: full, read-only) is written once Redis is
// back, or takes another write, so it does not stay marked as running (and unevictable) for ever.
import type { Task as NativeTask } from '../../../generated/types/index.js';
import { EndpointError } from '../../transport/endpoint-error.js';
import { pageTasks } from '../page-tasks.js';
import {
  DEFAULT_MAX_TASKS_PER_CALLER,
  shareOf,
  statusTime,
  TaskIndexFullError,
  TaskQuotaError,
  visibleTo,
  type IndexedTask,
  type TaskListPage,
  type TaskListQuery,
  type TaskScope,
} from '../task-entries.js';
import type { StoredPushConfig } from '../push-configs.js';
import { redisFailure } from './redis-connection.js';
import { RedisStoreError } from './redis-error.js';
import type { RedisClient } from './redis-module.js';
import { configsOf, PUSH_CONFIG_LUA, type RedisPushConfigStore } from './redis-push-config-store.js';

export interface RedisTaskIndexOptions {
  readonly maxTasks?: number;
  readonly maxTasksPerCaller?: number;
  readonly ttlMs?: number;
}

/** Drops one task from every structure. Shared by the scripts below. */
const FORGET = `
local function forget(p, id)
  local scope = redis.call('HGET', p..'a2a:scope-of', id)
  if scope then redis.call('ZREM', scope, id) end
  local share = redis.call('HGET', p..'a2a:share-of', id)
  if share then redis.call('ZREM', share, id) end
  redis.call('HDEL', p..'a2a:scope-of', id)
  redis.call('HDEL', p..'a2a:share-of', id)
  redis.call('DEL', p..'a2a:task:'..id, p..'a2a:brief:'..id)
  redis.call('ZREM', p..'a2a:touched', id)
end
local function expire(p, now, ttl)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', p..'a2a:touched', '-inf', '(' .. (now - ttl))) do
    if redis.call('SISMEMBER', p..'a2a:active', id) == 0 then forget(p, id) end
  end
end
-- A task's scope and share never change (both follow from its tenant and owner), so the reverse
-- maps are written only when the task is new to the index: ZADD answers 1 for a new member.
local function write(p, id, json, active, now, scope, time, share, brief)
  redis.call('MSET', p..'a2a:task:'..id, json, p..'a2a:brief:'..id, brief)
  if redis.call('ZADD', p..'a2a:touched', now, id) == 1 then
    redis.call('HSET', p..'a2a:scope-of', id, scope)
    redis.call('HSET', p..'a2a:share-of', id, share)
  end
  if active == '1' then redis.call('SADD', p..'a2a:active', id) else redis.call('SREM', p..'a2a:active', id) end
  redis.call('ZADD', scope, time, id)
  redis.call('ZADD', share, now, id)
end
`;

/**
 * ARGV: prefix, id, json, active, now, scope key, status time, share key, brief, max tasks, ttl
 * ms, max tasks per caller. 'quota' when the share holds only active tasks, 'full' when the index does.
 */
const ADD = `${FORGET}
local p, id, now, share = ARGV[1], ARGV[2], tonumber(ARGV[5]), ARGV[8]
local max, ttl, quota = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local touched = p..'a2a:touched'
local function inactive(candidate) return redis.call('SISMEMBER', p..'a2a:active', candidate) == 0 end
-- The counts first: below both bounds (the usual case) nothing else is read.
if (redis.call('ZCARD', share) >= quota or redis.call('ZCARD', touched) >= max)
  and redis.call('EXISTS', p..'a2a:task:'..id) == 0 then
  expire(p, now, ttl)
  local victim = nil
  if redis.call('ZCARD', share) >= quota then
    -- Oldest first, a few at a time: the first inactive one is usually at the front.
    local from, size = 0, redis.call('ZCARD', share)
    while not victim and from < size do
      for _, candidate in ipairs(redis.call('ZRANGE', share, from, from + 15)) do
        if inactive(candidate) then victim = candidate break end
      end
      from = from + 16
    end
    if not victim then return 'quota' end
  elseif redis.call('ZCARD', touched) >= max then
    local sizes, largest = {}, 0
    for _, candidate in ipairs(redis.call('ZRANGE', touched, 0, -1)) do
      if inactive(candidate) then
        local of = redis.call('HGET', p..'a2a:share-of', candidate)
        local size = 0
        if of then
          size = sizes[of] or redis.call('ZCARD', of)
          sizes[of] = size
        end
        if size > largest or not victim then victim, largest = candidate, size end
      end
    end
    if not victim then return 'full' end
  end
  if victim then forget(p, victim) end
end
write(p, id, ARGV[3], ARGV[4], now, ARGV[6], ARGV[7], share, ARGV[9])
return 'ok'
`;

/**
 * ARGV: as ADD's first nine, then 'progress' for a change of a run the caller holds. 'busy' when
 * activating a task another run already holds; 'settled' for progress of a task no longer active
 * (settled meanwhile by another replica, say a cancel nobody answered), which is left as it is.
 */
const UPDATE = `${FORGET}
local p, id = ARGV[1], ARGV[2]
local running = redis.call('SISMEMBER', p..'a2a:active', id) == 1
if ARGV[10] == 'progress' and not running then return 'settled' end
if ARGV[4] == '1' and ARGV[10] ~= 'progress' and running then return 'busy' end
write(p, id, ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], ARGV[9])
return 'ok'
`;

/**
 * ARGV: as UPDATE's, then the push configs' task key, now and TTL (RedisPushConfigStore.touchArgs).
 * Records a task's end as UPDATE does and answers its webhook configs, kept alive another TTL, as
 * the push store's touch would: a blocking SendMessage then makes two round trips, not three.
 */
const SETTLE = `${FORGET}${PUSH_CONFIG_LUA}
local p, id = ARGV[1], ARGV[2]
if ARGV[4] == '1' and redis.call('SISMEMBER', p..'a2a:active', id) == 1 then return 'busy' end
write(p, id, ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], ARGV[9])
return touchConfigs(p, ARGV[10], tonumber(ARGV[11]), tonumber(ARGV[12]))
`;

/** ARGV: prefix, scope key, now, ttl ms. The scope's tasks as JSON, newest status first. */
const LIST = `${FORGET}
local p = ARGV[1]
expire(p, tonumber(ARGV[3]), tonumber(ARGV[4]))
local out = {}
for _, id in ipairs(redis.call('ZREVRANGE', ARGV[2], 0, -1)) do
  local json = redis.call('GET', p..'a2a:task:'..id)
  if json then out[#out + 1] = json end
end
return out
`;

/**
 * ARGV: prefix, scope key, now, ttl ms, least status time ('-inf' for any). The scope's tasks from
 * that time on, newest status first, as id, status time, brief (false for a record written
 * before briefs were: the caller then lists the old way).
 */
const BRIEFS = `${FORGET}
local p = ARGV[1]
expire(p, tonumber(ARGV[3]), tonumber(ARGV[4]))
local rows = redis.call('ZREVRANGEBYSCORE', ARGV[2], '+inf', ARGV[5], 'WITHSCORES')
local out = {}
-- In slices: unpack() takes a few thousand values at most.
for from = 1, #rows, 1000 do
  local keys = {}
  for i = from, math.min(from + 999, #rows), 2 do keys[#keys + 1] = p..'a2a:brief:'..rows[i] end
  local briefs = redis.call('MGET', unpack(keys))
  for j, brief in ipairs(briefs) do
    local i = from + (j - 1) * 2
    out[#out + 1] = rows[i]
    out[#out + 1] = rows[i + 1]
    out[#out + 1] = brief
  end
end
return out
`;

interface Scripts {
  a2aAdd(...args: string[]): Promise<string>;
  a2aUpdate(...args: string[]): Promise<string>;
  a2aSettle(...args: string[]): Promise<string | string[]>;
  a2aList(...args: string[]): Promise<string[]>;
  a2aBriefs(...args: string[]): Promise<(string | null)[]>;
}

/** What is stored per task. */
interface StoredTask {
  readonly entry: IndexedTask;
  readonly touched: number;
}

export function defineTaskIndexScripts(client: RedisClient): void {
  client.defineCommand('a2aAdd', { numberOfKeys: 0, lua: ADD });
  client.defineCommand('a2aUpdate', { numberOfKeys: 0, lua: UPDATE });
  client.defineCommand('a2aSettle', { numberOfKeys: 0, lua: SETTLE });
  client.defineCommand('a2aList', { numberOfKeys: 0, lua: LIST });
  client.defineCommand('a2aBriefs', { numberOfKeys: 0, lua: BRIEFS });
}

export class RedisTaskIndex {
  readonly maxTasks: number;
  readonly maxTasksPerCaller: number;
  readonly ttlMs: number;
  private readonly client: RedisClient & Scripts;
  /** Tasks that finished while Redis was away: written when it is back, so none stays active for ever. */
  private readonly unsaved = new Map<string, IndexedTask>();
  /** Whether a round of writing `unsaved` is under way. */
  private saving = false;
  /** The push configs on this index's connection, read by settle(); none until linked. */
  private pushConfigs: RedisPushConfigStore | null = null;

  /** `client` must have had defineTaskIndexScripts applied. */
  constructor(
    client: RedisClient,
    private readonly prefix: string,
    private readonly location: string,
    options: RedisTaskIndexOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.client = client as RedisClient & Scripts;
    this.maxTasks = options.maxTasks ?? 1024;
    this.maxTasksPerCaller = options.maxTasksPerCaller ?? DEFAULT_MAX_TASKS_PER_CALLER;
    this.ttlMs = options.ttlMs ?? 3_600_000;
    client.on('ready', () => this.saveUnsaved());
  }

  async add(entry: IndexedTask): Promise<void> {
    const bounds = [String(this.maxTasks), String(this.ttlMs), String(this.maxTasksPerCaller)];
    const answer = await this.call(() => this.client.a2aAdd(...this.writeArgs(entry), ...bounds));
    if (answer === 'quota') throw new TaskQuotaError(this.maxTasksPerCaller);
    if (answer === 'full') throw new TaskIndexFullError(this.maxTasks);
  }

  async get(scope: TaskScope, id: string): Promise<IndexedTask | undefined> {
    return this.entryOf(await this.call(() => this.client.get(this.taskKey(id))), scope);
  }

  /** get() for each task, in one MGET. */
  async getMany(tasks: readonly { readonly scope: TaskScope; readonly id: string }[]): Promise<(IndexedTask | undefined)[]> {
    if (tasks.length === 0) return [];
    const records = await this.call(() => this.client.mget(tasks.map((task) => this.taskKey(task.id))));
    return tasks.map((task, i) => this.entryOf(records[i] ?? null, task.scope));
  }

  private taskKey(id: string): string {
    return `${this.prefix}a2a:task:${id}`;
  }

  /** The entry a stored record holds, as get() answers it in this scope. */
  private entryOf(json: string | null, scope: TaskScope): IndexedTask | undefined {
    if (json === null) return undefined;
    const stored = JSON.parse(json) as StoredTask;
    if (!visibleTo(stored.entry, scope) || this.expired(stored, this.now())) return undefined;
    return stored.entry;
  }

  /** settle() reads this store's configs in its own round trip; `store` must use this index's connection and prefix. */
  linkPushConfigs(store: RedisPushConfigStore): void {
    this.pushConfigs = store;
  }

  /**
   * update(), and in the same script what `configs.touch` answers for the task (its webhook
   * configs, kept alive another TTL); null, after a plain update(), when `configs` is not the
   * store linked to this index, and the caller reads them itself.
   */
  async settle(entry: IndexedTask, configs: object): Promise<readonly StoredPushConfig[] | null> {
    const push = this.pushConfigs;
    if (push === null || configs !== push) {
      await this.update(entry);
      return null;
    }
    const touch = push.touchArgs({ tenant: entry.tenant, principal: entry.owner }, entry.id);
    const answer = await this.write(entry, () => this.client.a2aSettle(...this.writeArgs(entry), ...touch));
    if (answer === 'busy') throw this.busy(entry);
    return configsOf(answer as string[]);
  }

  async update(entry: IndexedTask, progress = false): Promise<void> {
    const answer = await this.write(entry, () =>
      this.client.a2aUpdate(...this.writeArgs(entry), ...(progress ? ['progress'] : [])),
    );
    if (answer === 'busy') throw this.busy(entry);
  }

  /** Runs a script writing the entry; a run that settled while Redis was away is written once it is back. */
  private async write<T>(entry: IndexedTask, script: () => Promise<T>): Promise<T> {
    let answer: T;
    try {
      answer = await this.call(script);
    } catch (error) {
      // A run that settled while Redis was away: the caller hears of the failure, and the
      // index gets the final state once Redis answers again.
      if (error instanceof RedisStoreError && !entry.active) this.unsaved.set(entry.id, entry);
      throw error;
    }
    if (this.unsaved.get(entry.id) !== entry) this.unsaved.delete(entry.id);
    // Redis takes writes again without having been away (it was full, or read-only): no
    // reconnect will say so, so this write does.
    if (this.unsaved.size > 0) this.saveUnsaved();
    return answer;
  }

  private busy(entry: IndexedTask): EndpointError {
    return new EndpointError('conflict', `task ${entry.id} is already running on another replica`);
  }

  /** Writes the kept ends, one round at a time (each write that lands would start another). */
  private saveUnsaved(): void {
    if (this.saving || this.unsaved.size === 0) return;
    this.saving = true;
    const writes = [...this.unsaved].map(([id, entry]) =>
      this.update(entry).then(
        () => {
          if (this.unsaved.get(id) === entry) this.unsaved.delete(id);
        },
        () => undefined,
      ),
    );
    void Promise.all(writes).finally(() => {
      this.saving = false;
    });
  }

  /**
   * The page is chosen from the scope's briefs (state, context, status time), and only its tasks'
   * records are read: two round trips, and the bytes of one page whatever the scope holds.
   */
  async list(scope: TaskScope, query: TaskListQuery): Promise<TaskListPage> {
    const now = String(this.now());
    const least = query.statusAfter === undefined ? '-inf' : String(query.statusAfter);
    const rows = await this.call(() => this.client.a2aBriefs(this.prefix, this.scopeKey(scope), now, String(this.ttlMs), least));
    const briefs: IndexedTask[] = [];
    for (let i = 0; i + 2 < rows.length; i += 3) {
      const brief = rows[i + 2];
      if (brief === null || brief === undefined) return this.listWhole(scope, query, now);
      briefs.push(briefEntry(rows[i]!, Number(rows[i + 1]), brief, scope));
    }
    // The scope's sorted set already gives the listing order.
    const page = pageTasks(briefs, scope, query, true);
    if (page.tasks.length === 0) return page;
    const records = await this.call(() => this.client.mget(page.tasks.map((task) => this.taskKey(task.id))));
    // A task dropped between the two reads is left out of the page.
    const tasks = records.flatMap((json) => {
      const entry = json === null ? null : (JSON.parse(json) as StoredTask).entry;
      return entry && visibleTo(entry, scope) ? [entry] : [];
    });
    return { ...page, tasks };
  }

  /** list() from every record of the scope: for records written before briefs were kept. */
  private async listWhole(scope: TaskScope, query: TaskListQuery, now: string): Promise<TaskListPage> {
    const rows = await this.call(() => this.client.a2aList(this.prefix, this.scopeKey(scope), now, String(this.ttlMs)));
    const entries = rows.map((row) => (JSON.parse(row) as StoredTask).entry);
    return pageTasks(entries, scope, query, true);
  }

  private writeArgs(entry: IndexedTask): string[] {
    const now = this.now();
    const json = JSON.stringify({ entry, touched: now } satisfies StoredTask);
    const scope = this.scopeKey({ tenant: entry.tenant, principal: entry.owner });
    const share = `${this.prefix}a2a:share:${shareOf(entry.tenant, entry.owner)}`;
    // The state first: it never holds a line break, so the first one ends it.
    const brief = `${entry.task.state ?? ''}\n${entry.contextId}`;
    return [
      this.prefix,
      entry.id,
      json,
      entry.active ? '1' : '0',
      String(now),
      scope,
      String(statusTime(entry.task)),
      share,
      brief,
    ];
  }

  /** One sorted set per tenant and principal; JSON keeps any tenant or principal from passing for another. */
  private scopeKey(scope: TaskScope): string {
    return `${this.prefix}a2a:scope:${JSON.stringify([scope.tenant, scope.principal])}`;
  }

  private expired(stored: StoredTask, now: number): boolean {
    return !stored.entry.active && now - stored.touched > this.ttlMs;
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw redisFailure(error, this.location);
    }
  }
}

/**
 * What pageTasks reads of a task (scope, context, state, status time), from its brief: enough to
 * choose the page, whose records are then read.
 */
function briefEntry(id: string, time: number, brief: string, scope: TaskScope): IndexedTask {
  const cut = brief.indexOf('\n');
  const state = brief.slice(0, cut);
  const task = { id, state: state === '' ? undefined : state, created_at: new Date(time).toISOString() } as NativeTask;
  return { id, contextId: brief.slice(cut + 1), tenant: scope.tenant, owner: scope.principal, task, active: false };
}
