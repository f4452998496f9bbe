// Idempotency records shared by every replica through Redis. The first request with a key claims
// it atomically (a Lua script: the key is set to "running, owned by this run" only when absent),
// so exactly one replica runs the operation. The claim is a lease, renewed while the operation
// runs, so a replica that dies mid-run frees the key after the lease instead of holding it for
// ever. Duplicates that find the key claimed wait for the answer (they poll, a little slower each
// time up to POLL_MAX_MS) and replay it; a run that fails releases the key and a waiting
// duplicate then runs it afresh, as in the in-process cache. Completed answers are kept for the
// TTL and bounded by count and total bytes, the oldest going first (a sorted set by completion
// time, a hash of weights and a running total, all updated by the store script).
//
// Redis unreachable: the claim fails, and the request fails with 503 `unavailable` before the
// operation runs (never run without a claim, so never twice). Redis lost after the operation ran
// but before its answer was stored: the caller still gets the answer; the claim's lease then runs
// out, so a later retry can run the operation again (docs/replicas.md says so).
import { createHash, randomBytes } from 'node:crypto';
import type { UnaryOutcome } from '../../transport/dispatcher.js';
import type { IdempotencyBounds, IdempotencyRunner } from '../../transport/idempotency-store.js';
import { redisFailure } from './redis-connection.js';
import type { RedisClient } from './redis-module.js';

/**
 * ARGV: prefix, key, token, lease ms, the token of the run this caller waits on ('' if none),
 * '1' to act first. Nil when claimed; else the key's value. An answer left for the duplicates
 * of one run (`S`) is that run's waiters' only; anyone else claims over it. Acting first, a
 * caller that waited on no run claims over a stored answer (`D`) too, and gets it back after a
 * `C`, to put back if acting fails.
 */
const CLAIM = `
local k = ARGV[1]..'idem:'..ARGV[2]
local v = redis.call('GET', k)
local first = ARGV[6] == '1' and ARGV[5] == ''
if v then
  local kind = string.sub(v, 1, 1)
  if kind == 'D' and first then
    redis.call('SET', k, 'R'..ARGV[3], 'PX', ARGV[4])
    return 'C'..v
  end
  if kind ~= 'S' then return v end
  if ARGV[5] ~= '' and string.sub(v, 2, 1 + #ARGV[5]) == ARGV[5] then return v end
end
redis.call('SET', k, 'R'..ARGV[3], 'PX', ARGV[4])
return false
`;

/** ARGV: prefix, key, token, lease ms. Renews the lease while this run owns the key. */
const RENEW = `
local k = ARGV[1]..'idem:'..ARGV[2]
if redis.call('GET', k) ~= 'R'..ARGV[3] then return 0 end
return redis.call('PEXPIRE', k, ARGV[4])
`;

/** ARGV: prefix, key, token. Frees the key if this run still owns it. */
const RELEASE = `
local k = ARGV[1]..'idem:'..ARGV[2]
if redis.call('GET', k) ~= 'R'..ARGV[3] then return 0 end
return redis.call('DEL', k)
`;

/**
 * ARGV: prefix, key, token, value, ms. Leaves an answer that is not kept (not replayable, or too
 * large) for the duplicates already waiting on this run, and for no one else.
 */
const SHARE = `
local k = ARGV[1]..'idem:'..ARGV[2]
if redis.call('GET', k) ~= 'R'..ARGV[3] then return 0 end
redis.call('SET', k, 'S'..ARGV[3]..ARGV[4], 'PX', ARGV[5])
return 1
`;

/**
 * ARGV: prefix, key, token, value, ttl ms, weight, max entries, max weight. Stores the answer
 * unless another run took the key over, then evicts: expired records, then the oldest until
 * both bounds hold. The order is a counter, not a clock: a wall clock that steps back (as a
 * machine's may) would make a newer answer look older. Every record lives the same TTL, so the
 * expired ones are always the oldest: they are found from the front of the order.
 *
 * Kept to few commands, since it runs on every request with a key: a member is in the order
 * exactly when it has a weight (both change together, here only), so one HGET tells whether
 * there is anything to forget; the count and total are read once (ZCARD, and INCRBY's answer)
 * and then kept in step by hand; and a record's kind is read as its first byte (GETRANGE), not
 * by copying the whole answer into the script.
 */
const STORE = `
local p, key = ARGV[1], ARGV[2]
local k = p..'idem:'..key
local current = redis.call('GET', k)
if current and current ~= 'R'..ARGV[3] then return 0 end
local order, weights, total = p..'idem:order', p..'idem:weights', p..'idem:total'
local count, sum = 0, 0
local function kind(member)
  return redis.call('GETRANGE', p..'idem:'..member, 0, 0)
end
local function forget(member, mine)
  local w = redis.call('HGET', weights, member)
  if not w then return end
  redis.call('HDEL', weights, member)
  sum = redis.call('DECRBY', total, w)
  count = count - redis.call('ZREM', order, member)
  if not mine and kind(member) == 'D' then redis.call('DEL', p..'idem:'..member) end
end
forget(key, true)
redis.call('SET', k, ARGV[4], 'PX', ARGV[5])
redis.call('ZADD', order, redis.call('INCR', p..'idem:seq'), key)
redis.call('HSET', weights, key, ARGV[6])
sum = redis.call('INCRBY', total, ARGV[6])
count = redis.call('ZCARD', order)
while true do
  local oldest = redis.call('ZRANGE', order, 0, 0)[1]
  if not oldest or kind(oldest) == 'D' then break end
  forget(oldest, false)
end
local maxEntries, maxWeight = tonumber(ARGV[7]), tonumber(ARGV[8])
while count > maxEntries or sum > maxWeight do
  local oldest = redis.call('ZRANGE', order, 0, 0)[1]
  if not oldest then break end
  forget(oldest, false)
end
return 1
`;

interface Scripts {
  idemClaim(...args: string[]): Promise<string | null>;
  idemRenew(...args: string[]): Promise<number>;
  idemRelease(...args: string[]): Promise<number>;
  idemStore(...args: string[]): Promise<number>;
  idemShare(...args: string[]): Promise<number>;
}

export interface RedisIdempotencyOptions {
  /** How long a claim lasts without renewal (a replica that died frees its keys after this). Default 10000 ms. */
  readonly leaseMs?: number;
}

/**
 * A run's token: it tells this run's claim from any other run's on the same key, on every replica,
 * before and after restarts. Drawing random bytes for each request cost a few per cent of a
 * replica's CPU, so a process draws 72 random bits once (12 base64url characters; two processes
 * share them with odds of about one in 10^21) and numbers its runs after them. The number is
 * written in a fixed width (8 base-36 digits), so no token is the start of another: a shared
 * answer (`S`, token, answer) is told apart by the token at its start, and cut after it. Past
 * 36^8 runs a process draws a fresh prefix and starts again from zero.
 */
const RUNS_PER_PREFIX = 36 ** 8;

class RunTokens {
  private prefix = '';
  private count = RUNS_PER_PREFIX;

  next(): string {
    if (this.count === RUNS_PER_PREFIX) {
      this.prefix = randomBytes(9).toString('base64url');
      this.count = 0;
    }
    return this.prefix + (this.count++).toString(36).padStart(8, '0');
  }
}

const runTokens = new RunTokens();
/** The longest pause between two looks at a key another replica is running. */
const POLL_MAX_MS = 100;
/** How long an answer that is not kept stays readable by the duplicates already waiting: a few of their looks. */
const SHARE_MS = 5 * POLL_MAX_MS;

export function defineIdempotencyScripts(client: RedisClient): void {
  client.defineCommand('idemClaim', { numberOfKeys: 0, lua: CLAIM });
  client.defineCommand('idemRenew', { numberOfKeys: 0, lua: RENEW });
  client.defineCommand('idemRelease', { numberOfKeys: 0, lua: RELEASE });
  client.defineCommand('idemStore', { numberOfKeys: 0, lua: STORE });
  client.defineCommand('idemShare', { numberOfKeys: 0, lua: SHARE });
}

export class RedisIdempotency implements IdempotencyRunner {
  private readonly client: RedisClient & Scripts;
  private readonly leaseMs: number;
  /** Claims start with a plain SET (NX with GET), until Redis refuses it (before 7.0). */
  private plainClaim = true;

  /** `client` must have had defineIdempotencyScripts applied. */
  constructor(
    client: RedisClient,
    private readonly prefix: string,
    private readonly location: string,
    private readonly bounds: IdempotencyBounds,
    options: RedisIdempotencyOptions = {},
  ) {
    this.client = client as RedisClient & Scripts;
    this.leaseMs = options.leaseMs ?? 10_000;
  }

  async run(
    key: string,
    operation: () => Promise<UnaryOutcome>,
    storable: (value: UnaryOutcome) => boolean,
    weigh: (value: UnaryOutcome) => number,
    replayWhen?: (error: unknown) => boolean,
  ): Promise<{ value: UnaryOutcome; replayed: boolean }> {
    // Keys hold a principal and a client's key of any length: a digest keeps Redis keys short.
    const id = createHash('sha256').update(key).digest('base64url');
    const token = runTokens.next();
    const first = replayWhen ? '1' : '';
    let waitingOn = '';
    for (let pause = 2; ; pause = Math.min(pause * 2, POLL_MAX_MS)) {
      const found = await this.call(() => this.claim(id, token, waitingOn, first));
      if (found === null) return this.own(id, token, operation, storable, weigh);
      // Acting first over a stored answer (`C` then the `D` record), kept to be put back.
      if (found.startsWith('C'))
        return this.own(id, token, operation, storable, weigh, { stored: found.slice(2), replayWhen: replayWhen! });
      if (found.startsWith('D')) return { value: decodeOutcome(found.slice(1)), replayed: true };
      if (found.startsWith('S')) return { value: decodeOutcome(found.slice(1 + waitingOn.length)), replayed: true };
      // Another run holds the key: look again shortly (it is answered, released, or its lease runs out).
      waitingOn = found.slice(1);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /**
   * CLAIM's answer. Most keys are free when claimed, and a script costs Redis several times what
   * a plain command does (its call alone, measured: docs/benchmarks-history.md), so the claim is
   * first one `SET key R<token> NX PX lease GET`: it claims a free key, and gives back what a
   * taken one holds. Another run's claim, and a stored answer for a caller not acting first, are
   * answered as CLAIM would answer them; the rest (an answer left for waiters, or a caller acting
   * first over a stored answer) go to the script. Redis before 7.0 refuses NX with GET: then
   * this runner uses the script alone.
   */
  private async claim(id: string, token: string, waitingOn: string, first: string): Promise<string | null> {
    const lease = String(this.leaseMs);
    if (this.plainClaim) {
      const key = `${this.prefix}idem:${id}`;
      let found: string | null;
      try {
        found = (await this.client.call('SET', key, `R${token}`, 'NX', 'PX', lease, 'GET')) as string | null;
      } catch (error) {
        if (!(error instanceof Error && error.name === 'ReplyError' && /syntax/i.test(error.message))) throw error;
        this.plainClaim = false;
        return this.claim(id, token, waitingOn, first);
      }
      if (found === null) return null;
      if (found.startsWith('R') || (found.startsWith('D') && !(first === '1' && waitingOn === ''))) return found;
    }
    return this.client.idemClaim(this.prefix, id, token, lease, waitingOn, first);
  }

  /** `previous`: the stored answer this run claimed over, acting first. */
  private async own(
    id: string,
    token: string,
    operation: () => Promise<UnaryOutcome>,
    storable: (value: UnaryOutcome) => boolean,
    weigh: (value: UnaryOutcome) => number,
    previous: { readonly stored: string; readonly replayWhen: (error: unknown) => boolean } | null = null,
  ): Promise<{ value: UnaryOutcome; replayed: boolean }> {
    const lease = String(this.leaseMs);
    const renewal = setInterval(() => {
      this.client.idemRenew(this.prefix, id, token, lease).catch(() => undefined);
    }, this.leaseMs / 3);
    renewal.unref();
    let value: UnaryOutcome;
    try {
      value = await operation();
    } catch (error) {
      clearInterval(renewal);
      if (previous) {
        // The stored answer goes back (for a new TTL), and answers a failure that asks for it.
        const kept = decodeOutcome(previous.stored);
        await this.keep(id, token, kept, weigh(kept)).catch(() => undefined);
        if (previous.replayWhen(error)) return { value: kept, replayed: true };
        throw error;
      }
      // Best effort: if Redis is gone too, the lease frees the key.
      await this.client.idemRelease(this.prefix, id, token).catch(() => undefined);
      throw error;
    }
    clearInterval(renewal);
    const weight = weigh(value);
    try {
      if (!storable(value) || weight > this.bounds.maxWeight) {
        // Not kept: the duplicates waiting now get it, the next request with this key runs again.
        await this.client.idemShare(this.prefix, id, token, encodeOutcome(value), String(SHARE_MS));
      } else {
        await this.keep(id, token, value, weight);
      }
    } catch {
      // The operation ran and its answer is this caller's; only its replay to others is lost.
    }
    return { value, replayed: false };
  }

  /** Stores an answer under the key this run owns, for the TTL. */
  private async keep(id: string, token: string, value: UnaryOutcome, weight: number): Promise<void> {
    const ttlMs = String(Math.round(this.bounds.ttlSeconds * 1000));
    const args = [String(weight), String(this.bounds.maxEntries), String(this.bounds.maxWeight)];
    await this.client.idemStore(this.prefix, id, token, `D${encodeOutcome(value)}`, ttlMs, ...args);
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw redisFailure(error, this.location);
    }
  }
}

/** A stored answer: `j` and the JSON text, or `t`, the content type, a newline and the text. */
function encodeOutcome(outcome: UnaryOutcome): string {
  return outcome.kind === 'json' ? `j${outcome.encoded.text}` : `t${outcome.contentType}\n${outcome.text}`;
}

function decodeOutcome(stored: string): UnaryOutcome {
  const text = stored.slice(1);
  if (stored.startsWith('t')) {
    const newline = text.indexOf('\n');
    return { kind: 'text', contentType: text.slice(0, newline), text: text.slice(newline + 1) };
  }
  return { kind: 'json', encoded: { text, bytes: Buffer.byteLength(text, 'utf8') }, replayed: true };
}
