// Comparing secrets without leaking, through timing, how much of a guess was right, and
// keying caches by a secret without holding it.
import * as nodeCrypto from 'node:crypto';

// crypto.hash (node 20.12 and later) hashes in one call, without the Hash object createHash
// makes. Older nodes take the createHash path.
const oneShot = (nodeCrypto as Partial<typeof nodeCrypto>).hash;

/**
 * A secret's SHA-256 digest as text, to key a cache by a secret without holding it: lookups
 * then compare digests, and timing can tell nothing about the secret's own characters.
 */
export function secretDigest(value: string): string {
  return oneShot ? oneShot('sha256', value, 'base64') : nodeCrypto.createHash('sha256').update(value, 'utf8').digest('base64');
}

/**
 * A fixed set of secrets that a given value is compared against in constant time: against
 * every member (no early exit), so the time taken tells neither which one matched nor how many
 * come before it. The comparison runs over the secrets' bytes, not their digests: hashing the
 * presented value cost a profiled agent about 5 µs a request (OpenSSL's digest setup), against
 * about 2 µs for writing and comparing the bytes as below (less since the value is written by
 * a loop and only the bytes the last value left are zeroed). Every value is written
 * into a buffer of one fixed width, zero-padded, with its length compared on the side, so the
 * time depends on that width alone: the same for every set whose secrets fit in 64 bytes,
 * whatever their lengths, which keeps a known and an unknown Basic user alike.
 */
export class SecretSet<T = string> {
  private readonly entries: ReadonlyArray<{ readonly padded: Buffer; readonly length: number; readonly value: T }>;
  // Scratch space for the presented value: find() is synchronous, so calls never share it.
  // Zero past `dirty`, the length of the last value written into it.
  private readonly probe: Buffer;
  private dirty = 0;

  constructor(secrets: Iterable<readonly [secret: string, value: T]>) {
    const raw = [...secrets].map(([secret, value]) => ({ bytes: Buffer.from(secret, 'utf8'), value }));
    const longest = raw.reduce((most, { bytes }) => Math.max(most, bytes.length), 0);
    const width = Math.max(1, Math.ceil(longest / WIDTH_STEP)) * WIDTH_STEP;
    this.entries = raw.map(({ bytes, value }) => {
      const padded = Buffer.alloc(width);
      bytes.copy(padded);
      return { padded, length: bytes.length, value };
    });
    this.probe = Buffer.alloc(width);
  }

  get size(): number {
    return this.entries.length;
  }

  /** The value stored with the secret equal to `presented`, or undefined. */
  find(presented: string): T | undefined {
    const { probe } = this;
    let written = writeAscii(probe, presented);
    let length = written;
    if (written < 0) {
      written = probe.write(presented, 'utf8');
      // A value that did not fit is written in part, and its length tells it from every secret.
      // One that stopped more than a character's 4 bytes short of the width was written whole.
      length = written <= probe.length - 4 ? written : Buffer.byteLength(presented, 'utf8');
    }
    // Zero what the last value left past this one; the rest is zero already.
    for (let i = written; i < this.dirty; i++) probe[i] = 0;
    this.dirty = written;
    let found: T | undefined;
    for (const entry of this.entries) {
      // Both comparisons always run; a match needs the same bytes and the same length.
      const same = Number(nodeCrypto.timingSafeEqual(probe, entry.padded)) & Number(length === entry.length);
      if (same === 1 && found === undefined) found = entry.value;
    }
    return found;
  }
}

/**
 * Writes an ASCII `text` that fits into `buffer` and returns its length, else -1 (the caller
 * writes it as UTF-8). A loop costs a fraction of Buffer#write's call for a key's few dozen
 * characters; what it branches on is the presented value, never a secret.
 */
function writeAscii(buffer: Buffer, text: string): number {
  const length = text.length;
  if (length > buffer.length) return -1;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return -1;
    buffer[i] = code;
  }
  return length;
}

/** Secrets are compared over a multiple of this many bytes. */
const WIDTH_STEP = 64;
