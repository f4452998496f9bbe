// Splits the text of one input into the values `parley validate` checks, and says where a
// malformed one goes wrong. Three layouts are recognised:
//   single  one JSON value (the whole text parses);
//   array   one JSON array whose items are checked one by one (when the caller asks for it);
//   ndjson  one JSON value per line (blank lines ignored), the JSON Lines convention.
import { locateJsonSyntaxError } from '../core/json/syntax.js';

type RecordLayout = 'single' | 'array' | 'ndjson';

export interface JsonRecords {
  readonly layout: RecordLayout;
  readonly values: readonly unknown[];
}

/** The text is not JSON (nor JSON Lines); `line` and `column` are 1-based. */
export class JsonInputError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = 'JsonInputError';
  }
}

export interface ReadRecordsOptions {
  /** Check the items of a top-level array one by one, instead of the array as one value. */
  readonly splitArrays: boolean;
}

export function readJsonRecords(input: string, options: ReadRecordsOptions): JsonRecords {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  if (text.trim() === '') throw new JsonInputError('no JSON value: the input is empty', 1, 1);

  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch (error) {
    if (looksLikeJsonLines(text)) return { layout: 'ndjson', values: parseLines(text) };
    throw syntaxError(text, error, 1);
  }
  if (options.splitArrays && Array.isArray(whole)) return { layout: 'array', values: whole };
  return { layout: 'single', values: [whole] };
}

/**
 * A text that failed to parse as a whole is taken for JSON Lines when it has several non-blank
 * lines and the first of them is a complete JSON value on its own. A pretty-printed document
 * with a mistake in it fails that test (its first line is just `{` or `[`), so its error is
 * reported against the whole document.
 */
function looksLikeJsonLines(text: string): boolean {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length < 2) return false;
  try {
    JSON.parse(lines[0]!);
    return true;
  } catch {
    return false;
  }
}

function parseLines(text: string): unknown[] {
  const values: unknown[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      throw syntaxError(line, error, index + 1);
    }
  }
  return values;
}

/** Locates the problem in `text`, which starts on line `firstLine` of the input. */
function syntaxError(text: string, parseError: unknown, firstLine: number): JsonInputError {
  const at = locateJsonSyntaxError(text, parseError);
  return new JsonInputError(at.reason, firstLine + at.line - 1, at.column);
}
