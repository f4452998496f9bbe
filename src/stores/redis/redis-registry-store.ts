// The registry store on Redis, for several registry replicas (or agents' registries) sharing one
// set of entries. Layout under the key prefix: `reg:entries` (hash, URL to the card and metadata
// JSON), `reg:seen` (sorted set, URL by last_seen: the pruning and listing order), `reg:keys`
// (hash, URL to the indexed name, role and tags, so a replacement can clear the old index
// entries), `reg:owner` (hash, URL to the owning principal, for entries that have one; the
// owner is in the entry JSON too, for reading) and one set of URLs per name, role and tag. Every write is one Lua script, so a
// replica never sees an entry half indexed, and pruning applies the same rule as the other
// stores (`now - last_seen > ttl`, in the same double arithmetic). A write is acknowledged once
// Redis has applied it; how durable that is depends on Redis's persistence (docs/replicas.md).
import type { AgentCard, RegistryEntry } from '../../../generated/types/index.js';
import { checkLookupSize, type IndexKeys } from '../registry-entries.js';
import { connectRedis, parseRedisUrl, redisFailure } from './redis-connection.js';
import { writeOncePerTurn } from './redis-turn-writes.js';
import type { RedisConnectOptions, RedisTarget } from './redis-target.js';
import { refuseEvictingRedis } from './redis-eviction.js';
import type { RedisClient } from './redis-module.js';

/** Removes the URL from the indexes its `reg:keys` record names. Shared by the scripts below. */
const UNINDEX = `
local function unindex(p, url)
  local old = redis.call('HGET', p..'reg:keys', url)
  if not old then return false end
  local k = cjson.decode(old)
  redis.call('SREM', p..'reg:name:'..k[1], url)
  redis.call('SREM', p..'reg:role:'..k[2], url)
  for _, tag in ipairs(k[3]) do redis.call('SREM', p..'reg:tag:'..tag, url) end
  redis.call('HDEL', p..'reg:keys', url)
  redis.call('HDEL', p..'reg:owner', url)
  redis.call('HDEL', p..'reg:entries', url)
  redis.call('ZREM', p..'reg:seen', url)
  return true
end
`;

/** Whether `caller` ('' for anonymous) may write the entry at `url` (mayWrite in stores/registry-entries.ts). */
const ALLOWED = `
local function allowed(p, url, caller)
  if caller == '' then return true end
  local owner = redis.call('HGET', p..'reg:owner', url)
  return (not owner) or owner == caller
end
`;

/** ARGV: prefix, url, entry JSON, last_seen, keys JSON ([name, role, [tags]]), owner ('' none), name, role, tags... */
const PUT = `${UNINDEX}${ALLOWED}
local p, url, owner = ARGV[1], ARGV[2], ARGV[6]
if not allowed(p, url, owner) then return 0 end
unindex(p, url)
redis.call('HSET', p..'reg:entries', url, ARGV[3])
redis.call('ZADD', p..'reg:seen', ARGV[4], url)
redis.call('HSET', p..'reg:keys', url, ARGV[5])
if owner ~= '' then redis.call('HSET', p..'reg:owner', url, owner) end
redis.call('SADD', p..'reg:name:'..ARGV[7], url)
redis.call('SADD', p..'reg:role:'..ARGV[8], url)
for i = 9, #ARGV do redis.call('SADD', p..'reg:tag:'..ARGV[i], url) end
return 1
`;

/** ARGV: prefix, url, caller ('' anonymous). */
const REMOVE = `${UNINDEX}${ALLOWED}
if not allowed(ARGV[1], ARGV[2], ARGV[3]) then return 0 end
return unindex(ARGV[1], ARGV[2]) and 1 or 0
`;

/** ARGV: prefix, url, last_seen, caller ('' anonymous). */
const TOUCH = `${ALLOWED}
if redis.call('HEXISTS', ARGV[1]..'reg:entries', ARGV[2]) == 0 then return 0 end
if not allowed(ARGV[1], ARGV[2], ARGV[4]) then return 0 end
redis.call('ZADD', ARGV[1]..'reg:seen', ARGV[3], ARGV[2])
return 1
`;

/**
 * Answers url, entry JSON, last_seen for each given URL that has an entry: two commands per
 * thousand URLs (HMGET, and ZMSCORE, Redis 6.2 or later), not two per URL.
 */
const READ = `
local function read(p, urls)
  local out = {}
  -- In slices: Lua's unpack takes a few thousand values at most.
  for from = 1, #urls, 1000 do
    local slice = {unpack(urls, from, math.min(from + 999, #urls))}
    local entries = redis.call('HMGET', p..'reg:entries', unpack(slice))
    local seen = redis.call('ZMSCORE', p..'reg:seen', unpack(slice))
    for i, url in ipairs(slice) do
      if entries[i] then
        out[#out + 1] = url
        out[#out + 1] = entries[i]
        out[#out + 1] = seen[i]
      end
    end
  end
  return out
end
`;

/** ARGV: prefix, then set names (relative to the prefix) to intersect. */
const LOOKUP = `${READ}
local sets = {}
for i = 2, #ARGV do sets[#sets + 1] = ARGV[1]..ARGV[i] end
return read(ARGV[1], redis.call('SINTER', unpack(sets)))
`;

/** ARGV: prefix, and optionally one URL. Every entry in last_seen order, or that one. */
const ALL = `${READ}
if ARGV[2] then return read(ARGV[1], {ARGV[2]}) end
return read(ARGV[1], redis.call('ZRANGE', ARGV[1]..'reg:seen', 0, -1))
`;

/** Removes the entries past the TTL: candidates by the indexed bound, the exact rule deciding. */
const EXPIRE = `${UNINDEX}
local function expire(p, now, ttl, bound)
  local found = redis.call('ZRANGEBYSCORE', p..'reg:seen', '-inf', bound, 'WITHSCORES')
  local removed = 0
  for i = 1, #found, 2 do
    if now - tonumber(found[i + 1]) > ttl then
      unindex(p, found[i])
      removed = removed + 1
    end
  end
  return removed
end
`;

/** ARGV: prefix, now, ttl, bound. */
const PRUNE = `${EXPIRE}
return expire(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4])
`;

/**
 * ARGV: prefix, now, ttl, bound (all three '' for no pruning), then set names (relative to the
 * prefix) to intersect, or none for every entry. One round trip for what discover did in up to
 * four (prune, lookup, count, all): the expired entries go first, then the lookup, and when it
 * finds nothing while entries exist, every entry (the server's full scan).
 */
const FIND = `${EXPIRE}${READ}
local p = ARGV[1]
if ARGV[2] ~= '' then expire(p, tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]) end
local urls = {}
if #ARGV > 4 then
  local sets = {}
  for i = 5, #ARGV do sets[#sets + 1] = p..ARGV[i] end
  urls = redis.call('SINTER', unpack(sets))
end
if #urls == 0 then urls = redis.call('ZRANGE', p..'reg:seen', 0, -1) end
return read(p, urls)
`;

interface Scripts {
  regPut(...args: string[]): Promise<number>;
  regRemove(...args: string[]): Promise<number>;
  regTouch(...args: string[]): Promise<number>;
  regLookup(...args: string[]): Promise<string[]>;
  regAll(...args: string[]): Promise<string[]>;
  regPrune(...args: string[]): Promise<number>;
  regFind(...args: string[]): Promise<string[]>;
}

export class RedisRegistryStore {
  readonly kind = 'redis';
  private readonly target: RedisTarget;
  private client: (RedisClient & Scripts) | null = null;

  /** @param url `redis://host:port[/db][?prefix=NAME]` */
  constructor(
    url: string,
    private readonly options: RedisConnectOptions = {},
  ) {
    this.target = parseRedisUrl(url);
  }

  get location(): string {
    return this.target.location;
  }

  async open(): Promise<void> {
    if (this.client) return;
    const client = await connectRedis(this.target, this.options);
    writeOncePerTurn(client);
    try {
      // The registry sets no TTL on its keys: a volatile-* policy cannot evict them.
      await refuseEvictingRedis(client, this.target, 'without-ttl', this.options.allowEviction ?? false);
    } catch (error) {
      client.disconnect();
      throw redisFailure(error, this.target.location);
    }
    const define = (name: keyof Scripts, lua: string) => client.defineCommand(name, { numberOfKeys: 0, lua });
    define('regPut', PUT);
    define('regRemove', REMOVE);
    define('regTouch', TOUCH);
    define('regLookup', LOOKUP);
    define('regAll', ALL);
    define('regPrune', PRUNE);
    define('regFind', FIND);
    this.client = client as RedisClient & Scripts;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.quit().catch(() => client.disconnect());
  }

  async put(entry: RegistryEntry): Promise<boolean> {
    const card = entry.card;
    const tags = [...new Set(card.tags ?? [])];
    const role = card.role ?? '';
    const owner = entry.owner ?? null;
    const stored = JSON.stringify({ card, metadata: entry.metadata ?? {}, ...(owner !== null && { owner }) });
    const keys = JSON.stringify([card.name, role, tags]);
    const last = String(entry.last_seen);
    return (
      (await this.call((c) => c.regPut(this.prefix, card.url, stored, last, keys, owner ?? '', card.name, role, ...tags))) === 1
    );
  }

  async remove(url: string, owner?: string | null): Promise<boolean> {
    return (await this.call((c) => c.regRemove(this.prefix, url, owner ?? ''))) === 1;
  }

  async touch(url: string, lastSeen: number, owner?: string | null): Promise<boolean> {
    return (await this.call((c) => c.regTouch(this.prefix, url, String(lastSeen), owner ?? ''))) === 1;
  }

  async get(url: string): Promise<RegistryEntry | undefined> {
    return toEntries(await this.call((c) => c.regAll(this.prefix, url)))[0];
  }

  async lookup(keys: IndexKeys): Promise<RegistryEntry[]> {
    checkLookupSize(keys);
    const sets: string[] = [];
    if (keys.name !== undefined) sets.push(`reg:name:${keys.name}`);
    if (keys.role !== undefined) sets.push(`reg:role:${keys.role}`);
    for (const tag of keys.tags ?? []) sets.push(`reg:tag:${tag}`);
    if (sets.length === 0) return [];
    return toEntries(await this.call((c) => c.regLookup(this.prefix, ...sets)));
  }

  async find(keys: IndexKeys | null, live: { readonly now: number; readonly ttl: number } | null): Promise<RegistryEntry[]> {
    if (keys) checkLookupSize(keys);
    const sets: string[] = [];
    if (keys?.name !== undefined) sets.push(`reg:name:${keys.name}`);
    if (keys?.role !== undefined) sets.push(`reg:role:${keys.role}`);
    for (const tag of keys?.tags ?? []) sets.push(`reg:tag:${tag}`);
    // The same margin on the indexed bound as prune().
    const pruning = live ? [String(live.now), String(live.ttl), String(live.now - live.ttl + 1)] : ['', '', ''];
    return toEntries(await this.call((c) => c.regFind(this.prefix, ...pruning, ...sets)));
  }

  async all(): Promise<RegistryEntry[]> {
    return toEntries(await this.call((c) => c.regAll(this.prefix)));
  }

  urls(): Promise<string[]> {
    return this.call((c) => c.zrange(`${this.prefix}reg:seen`, '0', '-1'));
  }

  count(): Promise<number> {
    return this.call((c) => c.zcard(`${this.prefix}reg:seen`));
  }

  prune(now: number, ttl: number): Promise<number> {
    // A margin of a second on the indexed bound, as in the SQLite store; the exact rule then decides.
    return this.call((c) => c.regPrune(this.prefix, String(now), String(ttl), String(now - ttl + 1)));
  }

  private get prefix(): string {
    return this.target.prefix;
  }

  private async call<T>(run: (client: RedisClient & Scripts) => Promise<T>): Promise<T> {
    const client = this.client;
    if (!client) throw redisFailure(new Error('the Redis registry store is not open'), this.location);
    try {
      return await run(client);
    } catch (error) {
      throw redisFailure(error, this.location);
    }
  }
}

function toEntries(flat: readonly string[]): RegistryEntry[] {
  const entries: RegistryEntry[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    const { card, metadata, owner } = JSON.parse(flat[i + 1]!) as {
      card: AgentCard;
      metadata: Record<string, unknown>;
      owner?: string;
    };
    entries.push({ card, last_seen: Number(flat[i + 2]), metadata, ...(owner !== undefined && { owner }) });
  }
  return entries;
}
