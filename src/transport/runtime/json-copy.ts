// Each side's own copy of what the other side handed over in this process: the target's copy of
// the caller's request, the caller's copy of the target's answer. Both are normally plain JSON
// already, so a copy is new arrays and objects around the same strings, numbers and booleans:
// strings are immutable, so sharing them keeps the two sides as separate as JSON text would,
// at a fraction of the cost of parsing the text. Anything the text would show differently (a
// Date, a class instance, a number JSON has no form for, a hole, a `__proto__` member) makes
// the copy give up, and the receiving side parses the text instead.
import { MAX_JSON_DEPTH } from '../../core/json-depth.js';

/** Returned by copyJson for a value that is not plain JSON. */
export const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

class NotPlain {}
const notPlain = new NotPlain();

/**
 * A deep copy of plain JSON that reads exactly as JSON.parse(JSON.stringify(value)) would
 * (object members that are undefined are left out, as JSON.stringify leaves them out), or
 * NOT_PLAIN. So is a value that nests arrays and objects more than `maxDepth` levels deep
 * (counted as json-depth.ts counts them): a copy is never too deep for the wires' limit.
 */
export function copyJson(value: unknown, maxDepth: number = MAX_JSON_DEPTH): unknown {
  limit = maxDepth;
  try {
    return copy(value, 1);
  } catch (error) {
    if (error === notPlain) return NOT_PLAIN;
    throw error;
  }
}

// The depth limit of the copy under way (copies never overlap: they are synchronous).
let limit = MAX_JSON_DEPTH;

/** `level`: how deep `value` sits, 1 for the top; a container past the limit (or a cycle) gives up. */
function copy(value: unknown, level: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw notPlain;
    case 'object':
      break;
    default:
      throw notPlain;
  }
  if (value === null) return null;
  if (level > limit) throw notPlain;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (item === undefined) throw notPlain;
      out[i] = copy(item, level + 1);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw notPlain;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    // Assigning it would set the copy's prototype; JSON.parse makes it an own member.
    if (key === '__proto__') throw notPlain;
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) out[key] = copy(item, level + 1);
  }
  return out;
}
