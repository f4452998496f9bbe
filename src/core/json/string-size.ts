// The UTF-8 size of a string as JSON writes it (quotes and escapes included), and the two
// patterns the long-string writer shares. Every measure of a payload (measure.ts) ends here,
// once per string and member name, so this file holds the speed work on strings: a loop for
// short strings, a regular expression for longer ones, and two small caches (member names, the
// last few long strings). It also reads the clock's last timestamp (clock.ts lastIsoString): a
// task repeats that string in most of its entries, and checking it first was worth about 4.5%
// of a runtime round trip (docs/benchmarks.md, "timestamp check"). The dependency is stated
// here and runs one way, core/json on core/clock.
import { lastIsoString } from '../clock.js';

// Printable ASCII other than the quote and the backslash: JSON writes a string of only these as
// it is, one byte a character. Anything else is measured the slow way.
export const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

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
export const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string with something other than printable ASCII: UTF-8, and escapes where JSON needs them. */
function escapedBytes(text: string): number {
  if (!NEEDS_ESCAPE.test(text)) return Buffer.byteLength(text, 'utf8') + 2;
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}
