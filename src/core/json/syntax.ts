// Finds where a JSON text stops being valid, and why. JSON.parse says that a text is malformed
// but, depending on the error, not always where; this scanner walks the text once, without
// recursion (so any nesting depth is fine), and reports the offset of the first character that
// breaks the grammar of RFC 8259. It builds no values: call it only after JSON.parse has failed.

import { positionAt, type TextPosition } from '../text-position.js';

interface JsonSyntaxProblem {
  /** Offset of the offending character (the text's length for an early end). */
  readonly offset: number;
  readonly reason: string;
}

/** What the scanner expects next: a value, or what may follow one (a comma, a closing bracket, the end). */
type Expect = 'value' | 'after-value';

/**
 * Where and why `text`, which JSON.parse refused with `parseError`, is not JSON: the 1-based
 * line and column of the first offending character and the rule it breaks. Used by the CLI for
 * files and by the servers for request bodies and frames.
 */
export function locateJsonSyntaxError(text: string, parseError: unknown): TextPosition & { readonly reason: string } {
  const problem = findJsonSyntaxProblem(text);
  if (problem) return { ...positionAt(text, problem.offset), reason: problem.reason };
  // The scanner and JSON.parse disagree (they should not): fall back on JSON.parse's words.
  const message = parseError instanceof Error ? parseError.message : String(parseError);
  const offset = Number(/at position (\d+)/.exec(message)?.[1] ?? 0);
  return { ...positionAt(text, offset), reason: message };
}

/** `line L, column C: reason`, for an error message. */
export function describeJsonSyntaxError(text: string, parseError: unknown): string {
  const { line, column, reason } = locateJsonSyntaxError(text, parseError);
  return `line ${line}, column ${column}: ${reason}`;
}

function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  const containers: Array<'object' | 'array'> = [];
  let i = skipWhitespace(text, 0);
  let expect: Expect = 'value';

  for (;;) {
    if (expect === 'value') {
      const ch = text[i];
      if (ch === '{') {
        i = skipWhitespace(text, i + 1);
        if (text[i] === '}') {
          i++;
          expect = 'after-value';
          continue;
        }
        containers.push('object');
        const key = readKey(text, i);
        if ('reason' in key) return key;
        i = key.next;
        continue;
      }
      if (ch === '[') {
        i = skipWhitespace(text, i + 1);
        if (text[i] === ']') {
          i++;
          expect = 'after-value';
          continue;
        }
        containers.push('array');
        continue;
      }
      const scalar = readScalar(text, i);
      if ('reason' in scalar) return scalar;
      i = scalar.next;
      expect = 'after-value';
      continue;
    }

    // After a complete value: a separator, the end of its container, or the end of the text.
    i = skipWhitespace(text, i);
    const container = containers[containers.length - 1];
    const ch = text[i];
    if (container === undefined) {
      if (i >= text.length) return undefined;
      return { offset: i, reason: `unexpected ${describe(text, i)} after the end of the JSON value` };
    }
    if (ch === ',') {
      i = skipWhitespace(text, i + 1);
      if (container === 'object') {
        const key = readKey(text, i);
        if ('reason' in key) return key;
        i = key.next;
      }
      expect = 'value';
      continue;
    }
    if ((container === 'object' && ch === '}') || (container === 'array' && ch === ']')) {
      containers.pop();
      i++;
      continue;
    }
    const expected = container === 'object' ? "',' or '}' after a property value" : "',' or ']' after an array item";
    return { offset: i, reason: `expected ${expected}, found ${describe(text, i)}` };
  }
}

/** Reads `"name" :` and returns the offset of the value that follows. */
function readKey(text: string, start: number): { next: number } | JsonSyntaxProblem {
  if (text[start] !== '"') {
    return { offset: start, reason: `expected a property name in double quotes, found ${describe(text, start)}` };
  }
  const key = readString(text, start);
  if ('reason' in key) return key;
  const colon = skipWhitespace(text, key.next);
  if (text[colon] !== ':') {
    return { offset: colon, reason: `expected ':' after a property name, found ${describe(text, colon)}` };
  }
  return { next: skipWhitespace(text, colon + 1) };
}

function readScalar(text: string, start: number): { next: number } | JsonSyntaxProblem {
  const ch = text[start];
  if (ch === '"') return readString(text, start);
  if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return readNumber(text, start);
  for (const literal of ['true', 'false', 'null']) {
    if (ch !== literal[0]) continue;
    for (let k = 1; k < literal.length; k++) {
      if (text[start + k] !== literal[k]) {
        return { offset: start + k, reason: `expected "${literal}", found ${describe(text, start + k)}` };
      }
    }
    return { next: start + literal.length };
  }
  return { offset: start, reason: `expected a value, found ${describe(text, start)}` };
}

function readString(text: string, start: number): { next: number } | JsonSyntaxProblem {
  let i = start + 1;
  for (;;) {
    if (i >= text.length) return { offset: i, reason: 'unterminated string' };
    const code = text.charCodeAt(i);
    if (code === 0x22) return { next: i + 1 };
    if (code === 0x5c) {
      const escaped = text[i + 1];
      if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) {
        i += 2;
      } else if (escaped === 'u') {
        for (let k = 2; k < 6; k++) {
          if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
            return { offset: i + k, reason: 'invalid \\u escape: four hexadecimal digits must follow' };
          }
        }
        i += 6;
      } else {
        return { offset: i + 1, reason: `invalid escape sequence in a string: ${describe(text, i + 1)}` };
      }
      continue;
    }
    if (code < 0x20) {
      const what = code === 0x0a || code === 0x0d ? 'a line break' : `control character ${codePoint(code)}`;
      return { offset: i, reason: `${what} inside a string (escape it)` };
    }
    i++;
  }
}

function readNumber(text: string, start: number): { next: number } | JsonSyntaxProblem {
  let i = start;
  if (text[i] === '-') i++;
  if (text[i] === '0') {
    i++;
  } else if (isDigit(text[i])) {
    while (isDigit(text[i])) i++;
  } else {
    return { offset: i, reason: `invalid number: expected a digit, found ${describe(text, i)}` };
  }
  if (text[i] === '.') {
    i++;
    if (!isDigit(text[i])) return { offset: i, reason: `invalid number: expected a digit after '.', found ${describe(text, i)}` };
    while (isDigit(text[i])) i++;
  }
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    if (!isDigit(text[i])) return { offset: i, reason: `invalid number: expected an exponent digit, found ${describe(text, i)}` };
    while (isDigit(text[i])) i++;
  }
  return { next: i };
}

function skipWhitespace(text: string, start: number): number {
  let i = start;
  for (;;) {
    const ch = text[i];
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') i++;
    else return i;
  }
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

function describe(text: string, offset: number): string {
  if (offset >= text.length) return 'the end of the input';
  const code = text.codePointAt(offset)!;
  if (code < 0x20 || code === 0x7f || code === 0xfeff) return codePoint(code);
  return `'${String.fromCodePoint(code)}'`;
}

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
