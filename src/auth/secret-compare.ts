// Comparing secrets without leaking, through timing, how much of a guess was right. Both sides
// are hashed first so the comparison always runs over 32 bytes, whatever their lengths: a
// length mismatch is then no faster to detect than a wrong last byte.
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * A fixed set of secrets, hashed once, that a given value is compared against in constant time:
 * against every member (no early exit), so the time taken tells neither which one matched nor
 * how many come before it.
 */
export class SecretSet<T = string> {
  private readonly digests: ReadonlyArray<readonly [Buffer, T]>;

  constructor(secrets: Iterable<readonly [secret: string, value: T]>) {
    this.digests = [...secrets].map(([secret, value]) => [digest(secret), value] as const);
  }

  get size(): number {
    return this.digests.length;
  }

  /** The value stored with the secret equal to `given`, or undefined. */
  find(given: string): T | undefined {
    const probe = digest(given);
    let found: T | undefined;
    for (const [candidate, value] of this.digests) {
      if (timingSafeEqual(probe, candidate) && found === undefined) found = value;
    }
    return found;
  }
}
