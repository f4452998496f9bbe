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
 * Whether `given` is one of `candidates`, comparing against every candidate (no early exit), so
 * the time taken does not tell which one matched or how many there are before it.
 */
export function findSecret(given: string, candidates: Iterable<string>): string | null {
  const probe = digest(given);
  let found: string | null = null;
  for (const candidate of candidates) {
    if (timingSafeEqual(probe, digest(candidate)) && found === null) found = candidate;
  }
  return found;
}
