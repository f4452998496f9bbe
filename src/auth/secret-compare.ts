// Comparing secrets without leaking, through timing, how much of a guess was right. Both sides
// are hashed first so the comparison always runs over 32 bytes, whatever their lengths: a
// length mismatch is then no faster to detect than a wrong last byte.
import * as nodeCrypto from 'node:crypto';

const DIGEST_BYTES = 32;

// crypto.hash (node 20.12 and later) hashes in one call, without the Hash object createHash
// makes: about a third of the cost for a short key. Its Buffer output allocates a fresh
// backing store, so the digest comes back as 'binary' (latin1) text (one character per byte) and is
// written into a buffer the caller owns. Older nodes take the createHash path.
const oneShot = (nodeCrypto as Partial<typeof nodeCrypto>).hash;

/** Writes the SHA-256 digest of `value` (UTF-8) into `into` (32 bytes) and returns it. */
function digestInto(value: string, into: Buffer): Buffer {
  if (oneShot) into.write(oneShot('sha256', value, 'binary'), 'binary');
  else nodeCrypto.createHash('sha256').update(value, 'utf8').digest().copy(into);
  return into;
}

/**
 * A secret's SHA-256 digest as text, to key a cache by a secret without holding it: lookups
 * then compare digests, and timing can tell nothing about the secret's own characters.
 */
export function secretDigest(value: string): string {
  return oneShot ? oneShot('sha256', value, 'base64') : nodeCrypto.createHash('sha256').update(value, 'utf8').digest('base64');
}

function digest(value: string): Buffer {
  return digestInto(value, Buffer.alloc(DIGEST_BYTES));
}

// Scratch space for the digests of presented values. The comparisons below are synchronous,
// so no two of them can share these buffers at the same time.
const given = Buffer.alloc(DIGEST_BYTES);
const expected = Buffer.alloc(DIGEST_BYTES);

export function secretsEqual(presented: string, secret: string): boolean {
  return nodeCrypto.timingSafeEqual(digestInto(presented, given), digestInto(secret, expected));
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

  /** The value stored with the secret equal to `presented`, or undefined. */
  find(presented: string): T | undefined {
    const probe = digestInto(presented, given);
    let found: T | undefined;
    for (const [candidate, value] of this.digests) {
      if (nodeCrypto.timingSafeEqual(probe, candidate) && found === undefined) found = value;
    }
    return found;
  }
}
