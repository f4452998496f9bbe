// JSON text for a value that holds a few very long strings (a 4 MiB text part, echoed back
// three times). JSON.stringify checks every character of a string for escaping at about
// 150 MB/s on the machines here, so writing such a task kept the event loop for 60-80 ms.
// writeJsonString (json.ts) finds that a string needs no escaping about four times faster, and
// the same string held in several places is checked once; the rest of the value, small by then,
// still goes through JSON.stringify. The text is the same either way, and its UTF-8 size comes
// out of the same pass instead of another scan of the whole text.
import { randomBytes } from 'node:crypto';
import { writeJsonString, type EncodedJson } from './json.js';

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
