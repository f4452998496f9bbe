// Normalization: any value a handler returns turned into plain JSON data, the form every
// other file of core/json/ (measuring, copying, writing) takes as its input. Plain data, the
// common case, is recognized by a cheap walk and returned as it is; only the rest is converted.
import { setOwn } from '../objects.js';
import { MAX_JSON_DEPTH } from './depth.js';

/**
 * Recursively turns a value into plain JSON data: Dates become ISO strings, Maps and class
 * instances plain objects, Sets arrays, bigints strings, Errors `{name, message}`; undefined
 * members and functions are dropped. Values that are already plain JSON are returned as
 * they are, so the common case allocates nothing.
 */
export function normalizeJson(value: unknown): unknown {
  return plainAt(value, 1) ? value : convert(value, new Set());
}

/** Whether `value` is plain JSON already, which normalizeJson would return as it is. */
export function isPlainJson(value: unknown): boolean {
  return plainAt(value, 1);
}

/**
 * `level`: how deep `value` sits, 1 for the top (depth.ts's rule). Past MAX_JSON_DEPTH the
 * answer is "not plain", so the walk never exhausts the stack; such a value goes through
 * convert, whose result is the same data.
 */
function plainAt(value: unknown, level: number): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (level > MAX_JSON_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!plainAt(value[i], level + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || !plainAt(item, level + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function convert(value: unknown, seen: Set<object>): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'function':
    case 'symbol':
      return null;
  }
  const object = value as object;
  if (seen.has(object)) throw new TypeError('cannot normalize a circular structure to JSON');
  if (object instanceof Date) return object.toISOString();
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
    return convert((object as { toJSON(): unknown }).toJSON(), seen);
  }
  seen.add(object);
  try {
    if (Array.isArray(object) || object instanceof Set) {
      return Array.from(object as Iterable<unknown>, (item) => convert(item, seen));
    }
    if (object instanceof Map) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of object) if (item !== undefined) out[String(key)] = convert(item, seen);
      return out;
    }
    if (object instanceof Error) return { name: object.name, message: object.message };
    if (ArrayBuffer.isView(object)) return Buffer.from(object.buffer, object.byteOffset, object.byteLength).toString('base64');
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(object)) {
      // setOwn: a member named __proto__ stays a member, as plainAt would have kept it.
      if (item !== undefined && typeof item !== 'function') setOwn(out, key, convert(item, seen));
    }
    return out;
  } finally {
    seen.delete(object);
  }
}
