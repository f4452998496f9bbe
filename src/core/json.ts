// Normalization to plain JSON, and the byte size every limit is measured in.

/**
 * Recursively turns a value into plain JSON data: Dates become ISO strings, Maps and class
 * instances plain objects, Sets arrays, bigints strings, Errors `{name, message}`; undefined
 * members and functions are dropped. Values that are already plain JSON are returned as
 * they are, so the common case allocates nothing.
 */
export function normalizeJson(value: unknown): unknown {
  return isPlainJson(value, 0) ? value : convert(value, new Set());
}

function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (depth > 64) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || !isPlainJson(item, depth + 1)) return false;
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
      if (item !== undefined && typeof item !== 'function') out[key] = convert(item, seen);
    }
    return out;
  } finally {
    seen.delete(object);
  }
}

/** Serializes normalized JSON once; the text and its UTF-8 size travel together from here. */
export interface EncodedJson {
  readonly text: string;
  readonly bytes: number;
}

/**
 * A value handed over together with the encoding its producer already made (the task engine
 * serializes every finished task once, to keep it compactly): encodeJson takes that text as
 * it is. `encoded` holds no reference to `value`, so it can be kept without the object graph.
 */
export class PreEncoded {
  constructor(
    readonly value: unknown,
    readonly encoded: EncodedJson,
  ) {}
}

export function encodeJson(value: unknown): EncodedJson {
  if (value instanceof PreEncoded) return value.encoded;
  return encodeNormalizedJson(normalizeJson(value));
}

/** encodeJson for a value normalizeJson has already been through. */
export function encodeNormalizedJson(value: unknown): EncodedJson {
  const text = JSON.stringify(value) ?? 'null';
  return { text, bytes: Buffer.byteLength(text, 'utf8') };
}

// Characters JSON.stringify writes as escapes: quote, backslash, controls, lone surrogates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this looks for.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The UTF-8 byte length of JSON.stringify(value) for normalized JSON, counted without building
 * the text: for a payload that arrived in another form (a protobuf Value) and is only measured.
 */
export function jsonByteLength(value: unknown): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'boolean':
      return value ? 4 : 5;
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'object': {
      if (Array.isArray(value)) {
        let bytes = 2 + Math.max(0, value.length - 1);
        for (let i = 0; i < value.length; i++) bytes += jsonByteLength(value[i] ?? null);
        return bytes;
      }
      let bytes = 2;
      let members = 0;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        bytes += stringBytes(key) + 1 + jsonByteLength(item);
        members++;
      }
      return bytes + Math.max(0, members - 1);
    }
    default:
      return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
  }
}

function stringBytes(text: string): number {
  if (!NEEDS_ESCAPE.test(text)) return Buffer.byteLength(text, 'utf8') + 2;
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}
