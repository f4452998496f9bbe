// Identifiers for tasks, messages, artifacts and requests: random (version 4) UUIDs, from the
// same source and with the same bits as crypto.randomUUID. Written here because of the string
// it returns: node builds its UUID from twenty pieces, and V8 must join them into one flat
// string before anyone can read it. Every id is read at least once, to measure or write a
// task, and joining a fresh one cost about as much as making it (docs/benchmarks.md). Here the
// characters go into a buffer and come out as one flat string.
import { randomFillSync } from 'node:crypto';

// Random bytes are drawn for 256 ids at a time, as node's own entropy cache does.
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let next = POOL_IDS;
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** Where each of the 16 bytes' two hex digits go, around the dashes at 8, 13, 18 and 23. */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DASH = 0x2d;
for (const at of [8, 13, 18, 23]) text[at] = DASH;

/** A fresh identifier for tasks, messages, artifacts and requests (a random UUID, lowercase). */
export function newId(): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const start = 16 * next++;
  for (let i = 0; i < 16; i++) {
    let byte = pool[start + i]!;
    // The version (4) in the high half of byte 6, the variant (binary 10) in the top of byte 8.
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    const at = AT[i]!;
    text[at] = HEX[byte >> 4]!;
    text[at + 1] = HEX[byte & 0x0f]!;
  }
  return text.toString('latin1');
}
