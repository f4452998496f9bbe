// The caller's own copy of an answer the target made in this process. The target's value is
// normally plain JSON already (normalized before it was encoded), so a copy is new arrays and
// objects around the same strings, numbers and booleans: strings are immutable, so sharing
// them keeps the two sides as separate as JSON text would, at a fraction of the cost of
// parsing the text. Anything the text would show differently (a Date, a class instance, a
// number JSON has no form for, a hole) makes the copy give up, and the caller parses the text.

/** Returned by copyJson for a value that is not plain JSON. */
export const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

class NotPlain {}
const notPlain = new NotPlain();

/**
 * A deep copy of plain JSON that reads exactly as JSON.parse(JSON.stringify(value)) would
 * (object members that are undefined are left out, as JSON.stringify leaves them out), or
 * NOT_PLAIN.
 */
export function copyJson(value: unknown): unknown {
  try {
    return copy(value, 0);
  } catch (error) {
    if (error === notPlain) return NOT_PLAIN;
    throw error;
  }
}

// Deeper than any payload the wires accept: a cycle or an extreme tree parses its text instead.
const MAX_DEPTH = 128;

function copy(value: unknown, depth: number): unknown {
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
  if (depth > MAX_DEPTH) throw notPlain;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (item === undefined) throw notPlain;
      out[i] = copy(item, depth + 1);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw notPlain;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) out[key] = copy(item, depth + 1);
  }
  return out;
}
