// Redis's own count of the commands it ran (`INFO commandstats`), for tests that pin what a
// request or a background check costs in round trips.
import type { Redis } from 'ioredis';

/** Commands Redis ran since the last reset (`CONFIG RESETSTAT`), by name (lowercase), leaving out the probe's own. */
export async function commandCounts(admin: Redis): Promise<Record<string, number>> {
  const info = await admin.info('commandstats');
  const counts: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const name = match[1]!;
    if (name === 'info' || name.startsWith('config')) continue;
    counts[name] = Number(match[2]);
  }
  return counts;
}
