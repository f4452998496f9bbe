// Redis set to evict keys under memory pressure drops them without a word: a write parley was
// told had succeeded (a registration, an A2A task, an idempotency claim) is later simply gone.
// So a store reads the server's `maxmemory-policy` when it opens and refuses to start when that
// policy can evict keys the store must keep, unless the operator accepts the loss (a cache).
// `noeviction` is always safe; a `volatile-*` policy evicts only keys with a TTL, so it is safe
// for a store that sets none (the registry) and not for one that does (an agent's idempotency
// claims and answers carry one: losing a claim early lets a duplicate run twice). The policy is
// read with CONFIG GET, else from INFO (managed services often rename or forbid CONFIG); when
// neither answers, the store cannot tell and refuses as well.
import { RedisStoreError } from './redis-error.js';
import type { RedisClient } from './redis-module.js';
import type { RedisTarget } from './redis-target.js';

/** The keys a store needs kept: every one, or only those it sets no TTL on. */
type KeptKeys = 'all' | 'without-ttl';

/** What the refusal tells the operator to do about it. */
const OVERRIDE = '--store-allow-eviction (option allowStoreEviction)';

/** Rejects with RedisStoreError `redis_eviction_policy` when Redis may evict what the store keeps; `allow` skips the check. */
export async function refuseEvictingRedis(
  client: RedisClient,
  target: RedisTarget,
  kept: KeptKeys,
  allow: boolean,
): Promise<void> {
  if (allow) return;
  const policy = await readEvictionPolicy(client);
  if (policy === null) {
    throw new RedisStoreError(
      'redis_eviction_policy',
      `cannot read the maxmemory-policy of Redis at ${target.location} (CONFIG GET and INFO are refused), so cannot ` +
        `tell whether it may evict parley's keys; make sure it is noeviction, then start with ${OVERRIDE}`,
      target.location,
    );
  }
  if (safe(policy, kept)) return;
  const fix = kept === 'without-ttl' ? 'noeviction (or a volatile-* policy)' : 'noeviction';
  throw new RedisStoreError(
    'redis_eviction_policy',
    `Redis at ${target.location} has maxmemory-policy ${policy}, which can evict parley's keys and so lose ` +
      `acknowledged writes without a word; set it to ${fix}, or start with ${OVERRIDE} if losing them is acceptable`,
    target.location,
  );
}

function safe(policy: string, kept: KeptKeys): boolean {
  return policy === 'noeviction' || (kept === 'without-ttl' && policy.startsWith('volatile-'));
}

/** The server's eviction policy, or null when it will not say. */
async function readEvictionPolicy(client: RedisClient): Promise<string | null> {
  try {
    const [, policy] = (await client.config('GET', 'maxmemory-policy')) as string[];
    if (policy) return policy;
  } catch (error) {
    if (!refused(error)) throw error;
  }
  try {
    const policy = /^maxmemory_policy:(\S+)/m.exec(await client.info('memory'))?.[1];
    if (policy) return policy;
  } catch (error) {
    if (!refused(error)) throw error;
  }
  return null;
}

/** Redis answered with an error (unknown command, no permission), as against a lost connection. */
function refused(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}
