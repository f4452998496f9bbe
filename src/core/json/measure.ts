// The two walks over plain JSON that measure it, one per job: the count (the UTF-8 size of
// JSON.stringify(value), without writing the text) and the measured copy (a copy for a receiver
// in this process, and that size, in one walk). Both give up on anything the text would show
// differently, and past MAX_JSON_DEPTH levels (depth.ts), so neither can exhaust the stack;
// their callers then write the text instead.
//
// The measured copy serves the in-process transport, which hands values over instead of text:
// the target gets its own copy of the caller's request, the caller its own copy of the target's
// answer, and each is checked against the same byte limits as a wire. Walking the value once
// for the copy and once more for the size cost a third of an in-process round trip; this does
// both at once. A copy is new arrays and objects around the same strings, numbers and booleans:
// strings are immutable, so sharing them keeps the two sides as separate as JSON text would, at
// a fraction of the cost of parsing the text. Anything the text would show differently (a
// Date, a class instance, a number JSON has no form for, a hole, a `__proto__` member) makes
// the copy give up, and the receiving side parses the text instead. (objects.ts cloneJson is
// the other contract: a copy of data parsed already, no size, `__proto__` kept.)
import { MAX_JSON_DEPTH } from './depth.js';
import { jsonKeyBytes, jsonStringBytes } from './string-size.js';

// The depth limit of the walk under way, shared by both walks, and the running byte count of
// the copy under way. Module state so that the recursion passes one argument less; safe because
// every walk is synchronous and walks never overlap. A running total rather than sizes returned
// up the recursion: the copy is what each level returns.
let limit = MAX_JSON_DEPTH;
let bytes = 0;

/**
 * The UTF-8 byte length of JSON.stringify(value) for normalized JSON, counted without building
 * the text: for a payload that arrived in another form (a protobuf Value) and is only measured.
 */
export function jsonByteLength(value: unknown): number {
  const counted = plainJsonByteLength(value);
  return counted >= 0 ? counted : Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/**
 * The UTF-8 byte length of JSON.stringify(value) when `value` is plain JSON, counted without
 * writing the text: plain objects (members that are undefined left out, as JSON.stringify
 * leaves them out) and arrays, strings, finite numbers, booleans and null, nested at most
 * `maxDepth` levels (depth.ts's rule). For anything else, -1: its text may differ from what the walk would count
 * (a Date has a toJSON, a class instance or a hole reads differently, a cycle never ends).
 */
export function plainJsonByteLength(value: unknown, maxDepth: number = MAX_JSON_DEPTH): number {
  limit = maxDepth;
  return countBytes(value, 1);
}

function countBytes(value: unknown, level: number): number {
  switch (typeof value) {
    case 'string':
      return jsonStringBytes(value);
    case 'boolean':
      return value ? 4 : 5;
    case 'number':
      return Number.isFinite(value) ? String(value).length : -1;
    case 'object':
      break;
    default:
      return -1;
  }
  if (value === null) return 4;
  if (level > limit) return -1;
  if (Array.isArray(value)) {
    let size = 1 + Math.max(1, value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const counted = item === undefined ? -1 : countBytes(item, level + 1);
      if (counted < 0) return -1;
      size += counted;
    }
    return size;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return -1;
  let size = 1;
  let members = 0;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const counted = countBytes(item, level + 1);
    if (counted < 0) return -1;
    // The key, its colon, and the comma or closing brace after the member.
    size += jsonKeyBytes(key) + counted + 2;
    members++;
  }
  return members === 0 ? 2 : size;
}

/** Returned by measuredCopy for a value that is not plain JSON. */
export const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

/** A copy, and the UTF-8 size of JSON.stringify of the original (and so of the copy). */
export interface JsonCopy {
  readonly value: unknown;
  readonly bytes: number;
}

class NotPlain {}
const notPlain = new NotPlain();

/**
 * A deep copy of plain JSON that reads exactly as JSON.parse(JSON.stringify(value)) would
 * (object members that are undefined are left out, as JSON.stringify leaves them out), with the
 * byte size of that text; or NOT_PLAIN. So is a value that nests arrays and objects more than
 * `maxDepth` levels deep (counted as depth.ts counts them): a copy is never too deep for
 * the wires' limit.
 */
export function measuredCopy(value: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonCopy | typeof NOT_PLAIN {
  limit = maxDepth;
  bytes = 0;
  try {
    const copied = copy(value, 1);
    return { value: copied, bytes };
  } catch (error) {
    if (error === notPlain) return NOT_PLAIN;
    throw error;
  }
}

/** `level`: how deep `value` sits, 1 for the top; a container past the limit (or a cycle) gives up. */
function copy(value: unknown, level: number): unknown {
  switch (typeof value) {
    case 'string':
      bytes += jsonStringBytes(value);
      return value;
    case 'boolean':
      bytes += value ? 4 : 5;
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw notPlain;
      bytes += String(value).length;
      // The text writes -0 as 0.
      return value + 0;
    case 'object':
      break;
    default:
      throw notPlain;
  }
  if (value === null) {
    bytes += 4;
    return null;
  }
  if (level > limit) throw notPlain;
  if (Array.isArray(value)) {
    const length = value.length;
    // The brackets and the commas between items.
    bytes += length === 0 ? 2 : length + 1;
    const out = new Array<unknown>(length);
    for (let i = 0; i < length; i++) {
      const item = value[i];
      if (item === undefined) throw notPlain;
      out[i] = copy(item, level + 1);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw notPlain;
  const out: Record<string, unknown> = {};
  // The braces; each member adds its name, a colon, and a comma (one too many, taken back).
  let members = 0;
  bytes += 1;
  for (const key in value) {
    // Assigning it would set the copy's prototype; JSON.parse makes it an own member.
    if (key === '__proto__') throw notPlain;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    bytes += jsonKeyBytes(key) + 2;
    members++;
    out[key] = copy(item, level + 1);
  }
  if (members === 0) bytes += 1;
  return out;
}
