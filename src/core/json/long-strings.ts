// JSON text for a value that holds a few very long strings (a 4 MiB text part, echoed back
// three times). JSON.stringify checks every character of a string for escaping at about
// 150 MB/s on the machines here, so writing such a task kept the event loop for 60-80 ms.
// writeJsonString (below) finds that a string needs no escaping about four times faster, and
// the same string held in several places is checked once; the rest of the value, small by then,
// still goes through JSON.stringify. The text is the same either way, and its UTF-8 size comes
// out of the same pass instead of another scan of the whole text. Which strings are long, and
// where they sit, only the caller knows (the task engine passes a spot finder for a task), so
// nothing here knows the shape of a task.
import { randomBytes } from 'node:crypto';
import type { EncodedJson } from './encoded.js';
import { NEEDS_ESCAPE, PLAIN_ASCII } from './string-size.js';

/** Where a long string sits: `holder[key]`. */
export interface LongStringSpot {
  readonly holder: Record<string, unknown>;
  readonly key: string;
}

/** Strings at least this long are worth writing apart (below it JSON.stringify takes under half a millisecond). */
export const WRITE_APART_LENGTH = 64 * 1024;

/** Stands in for a long string while the rest is written; the random part keeps it from meeting user text. */
const MARK = `\u0000parley-${randomBytes(8).toString('hex')}-`;
/** A mark as JSON.stringify writes it (the NUL escaped), with the string's index. */
const WRITTEN_MARK = new RegExp(`"\\\\u0000${MARK.slice(1)}(\\d+)"`, 'g');

/**
 * JSON.stringify(value) and its UTF-8 size, the strings at `spots` written apart. A spot that
 * cannot be written in place (a frozen holder, a getter) is left to JSON.stringify. Throws what
 * JSON.stringify throws; `value` is as it was after either.
 */
export function stringifyWithLongStrings(value: unknown, allSpots: readonly LongStringSpot[]): EncodedJson {
  const spots = allSpots.filter(({ holder, key }) => Object.getOwnPropertyDescriptor(holder, key)?.writable === true);
  // All read before any is replaced: one holder met twice gets its own string back.
  const strings = spots.map(({ holder, key }) => holder[key] as string);
  let skeleton: string;
  try {
    spots.forEach(({ holder, key }, index) => {
      holder[key] = `${MARK}${index}`;
    });
    skeleton = JSON.stringify(value);
  } finally {
    spots.forEach(({ holder, key }, index) => {
      holder[key] = strings[index];
    });
  }
  const written = new Map<string, EncodedJson>();
  let bytes = Buffer.byteLength(skeleton, 'utf8');
  const text = skeleton.replace(WRITTEN_MARK, (mark: string, index: string) => {
    const string = strings[Number(index)]!;
    let json = written.get(string);
    if (json === undefined) {
      json = writeJsonString(string);
      written.set(string, json);
    }
    bytes += json.bytes - mark.length;
    return json.text;
  });
  return { text, bytes };
}

/**
 * The text of `value`, which holds `holder` (a finished task, or the event that closes its
 * stream), with the long strings `findSpots` points at in `holder` written apart; with its
 * size too when there were any. `findSpots` knows the holder's shape, so this file does not:
 * the task engine passes its own. When JSON.stringify refuses the value (a handler kept an
 * object it had attached and later put a bigint or a cycle into it), `repair` makes the holder
 * plain and the text is written again; the common case pays nothing for the check.
 */
export function writeWithLongStrings<H>(
  value: unknown,
  holder: H,
  findSpots: (holder: H) => readonly LongStringSpot[] | null,
  repair: (holder: H) => void,
): string | EncodedJson {
  try {
    return writeWithSpots(value, findSpots(holder));
  } catch {
    // Repaired below.
  }
  repair(holder);
  return writeWithSpots(value, findSpots(holder));
}

function writeWithSpots(value: unknown, spots: readonly LongStringSpot[] | null): string | EncodedJson {
  return spots === null ? JSON.stringify(value) : stringifyWithLongStrings(value, spots);
}

/**
 * `text` as a JSON string, with its UTF-8 size. For a long string this is cheaper than
 * JSON.stringify, which checks every character for escaping itself (about four times slower
 * than these regular expressions); the text is the same.
 */
function writeJsonString(text: string): EncodedJson {
  if (PLAIN_ASCII.test(text)) return { text: `"${text}"`, bytes: text.length + 2 };
  if (!NEEDS_ESCAPE.test(text)) return { text: `"${text}"`, bytes: Buffer.byteLength(text, 'utf8') + 2 };
  const json = JSON.stringify(text);
  return { text: json, bytes: Buffer.byteLength(json, 'utf8') };
}
