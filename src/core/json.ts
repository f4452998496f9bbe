// Normalization to plain JSON, and the byte size every limit is measured in.
import { lastIsoString } from './clock.js';

/**
 * Recursively turns a value into plain JSON data: Dates become ISO strings, Maps and class
 * instances plain objects, Sets arrays, bigints strings, Errors `{name, message}`; undefined
 * members and functions are dropped. Values that are already plain JSON are returned as
 * they are, so the common case allocates nothing.
 */
export function normalizeJson(value: unknown): unknown {
  return plainAt(value, 0) ? value : convert(value, new Set());
}

/** Whether `value` is plain JSON already, which normalizeJson would return as it is. */
export function isPlainJson(value: unknown): boolean {
  return plainAt(value, 0);
}

function plainAt(value: unknown, depth: number): boolean {
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
        for (let i = 0; i < value.length; i++) if (!plainAt(value[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || !plainAt(item, depth + 1)) return false;
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
 * A value handed over together with its encoding (the task engine's finished tasks, whose text
 * is written when first read, and A2A answers): encodeJson takes that encoding as it is. Once
 * its text is written, `encoded` holds no reference to `value`, so it can be kept without the
 * object graph.
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

// Printable ASCII other than the quote and the backslash: JSON writes a string of only these as
// it is, one byte a character. Anything else is measured the slow way.
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

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
 * `maxDepth` levels. For anything else, -1: its text may differ from what the walk would count
 * (a Date has a toJSON, a class instance or a hole reads differently, a cycle never ends).
 */
export function plainJsonByteLength(value: unknown, maxDepth = 64): number {
  depthLimit = maxDepth;
  return countBytes(value, 1);
}

// The limit of the count under way (counts never overlap: they are synchronous).
let depthLimit = 64;

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
  if (level > depthLimit) return -1;
  if (Array.isArray(value)) {
    let bytes = 1 + Math.max(1, value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const counted = item === undefined ? -1 : countBytes(item, level + 1);
      if (counted < 0) return -1;
      bytes += counted;
    }
    return bytes;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return -1;
  let bytes = 1;
  let members = 0;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const counted = countBytes(item, level + 1);
    if (counted < 0) return -1;
    // The key, its colon, and the comma or closing brace after the member.
    bytes += jsonKeyBytes(key) + counted + 2;
    members++;
  }
  return members === 0 ? 2 : bytes;
}

// Member names repeat from object to object (a task uses a few dozen), so their sizes are
// remembered: a map lookup costs less than measuring the name again. Bounded in count and in
// length, so arbitrary names (metadata keys) cannot grow it without limit.
const KEY_SIZES_MAX = 4_096;
const KEY_MAX_LENGTH = 64;
const keySizes = new Map<string, number>();

/** The UTF-8 size of `key` written as a JSON string, quotes included; sizes of short names are remembered. */
export function jsonKeyBytes(key: string): number {
  const known = keySizes.get(key);
  if (known !== undefined) return known;
  const bytes = jsonStringBytes(key);
  if (key.length <= KEY_MAX_LENGTH && keySizes.size < KEY_SIZES_MAX) keySizes.set(key, bytes);
  return bytes;
}

// A task repeats its own text: the answer carries the messages of the request, and agents quote
// them in their replies and artifacts. The last few long strings measured are remembered, so the
// same text is scanned once. A string equal to a remembered one has the same size, whether it is
// the same string or a copy, so the match is plain equality. A remembered string stays alive
// (with any larger string it was sliced from) until four newer long strings replace it.
const LONG_STRING = 256;
const REMEMBERED_MAX_LENGTH = 65_536;
const remembered: string[] = ['', '', '', ''];
const rememberedBytes: number[] = [0, 0, 0, 0];
let nextSlot = 0;

/** The UTF-8 size of `text` written as a JSON string, quotes and escapes included. */
export function jsonStringBytes(text: string): number {
  // The clock's current timestamp, which a task repeats in most of its entries: an equal string
  // (the same one, nearly always, so the check costs next to nothing) needs no scan.
  if (text === lastIsoString()) return text.length + 2;
  if (text.length < SHORT_STRING) return plainAsciiShort(text) ? text.length + 2 : escapedBytes(text);
  if (text.length < LONG_STRING) return PLAIN_ASCII.test(text) ? text.length + 2 : escapedBytes(text);
  for (let i = 0; i < remembered.length; i++) if (remembered[i] === text) return rememberedBytes[i]!;
  const bytes = PLAIN_ASCII.test(text) ? text.length + 2 : escapedBytes(text);
  if (text.length <= REMEMBERED_MAX_LENGTH) {
    remembered[nextSlot] = text;
    rememberedBytes[nextSlot] = bytes;
    nextSlot = (nextSlot + 1) % remembered.length;
  }
  return bytes;
}

// Most strings in a task are short (ids, timestamps, states, roles): for them a loop over the
// characters costs less than a call of the regular expression (measured in the runtime round
// trip, where the expression's calls cost far more than in a loop of their own).
const SHORT_STRING = 64;

/** PLAIN_ASCII.test, for a short string. */
function plainAsciiShort(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

// Characters JSON.stringify writes as escapes: quote, backslash, controls, lone surrogates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this looks for.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `text` as a JSON string, with its UTF-8 size. For a long string this is cheaper than
 * JSON.stringify, which checks every character for escaping itself (about four times slower
 * than these regular expressions); the text is the same.
 */
export function writeJsonString(text: string): EncodedJson {
  if (PLAIN_ASCII.test(text)) return { text: `"${text}"`, bytes: text.length + 2 };
  if (!NEEDS_ESCAPE.test(text)) return { text: `"${text}"`, bytes: Buffer.byteLength(text, 'utf8') + 2 };
  const json = JSON.stringify(text);
  return { text: json, bytes: Buffer.byteLength(json, 'utf8') };
}

/** A string with something other than printable ASCII: UTF-8, and escapes where JSON needs them. */
function escapedBytes(text: string): number {
  if (!NEEDS_ESCAPE.test(text)) return Buffer.byteLength(text, 'utf8') + 2;
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}
