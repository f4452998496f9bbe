// What the contract checker says about one change: where it is (a file and a JSON pointer into
// it), which rule it broke, how bad it is for the direction the schema travels, and a sentence.

/** Which way a schema travels: into the server (request, query), out of it (answer, event), or both. */
export type Direction = 'request' | 'answer' | 'both';

/**
 * `breaking` fails the gate; `warning` fails it only with --strict; `unjudged` means the checker
 * could not tell, and fails the gate like a break so that nothing passes unexamined.
 */
export type Verdict = 'compatible' | 'warning' | 'breaking' | 'unjudged';

export interface Finding {
  /** The file, relative to the working directory (or to the schema folder for library callers). */
  readonly file: string;
  /** JSON pointer into that file, `` for the whole document. */
  readonly pointer: string;
  readonly rule: string;
  readonly verdict: Verdict;
  readonly direction: Direction;
  readonly message: string;
}

export function unionDirection(a: Direction | undefined, b: Direction): Direction {
  if (a === undefined || a === b) return b;
  return 'both';
}

/** How a direction reads in a sentence. */
export function directionWords(direction: Direction): string {
  if (direction === 'both') return 'requests and answers';
  return direction === 'request' ? 'requests' : 'answers';
}

/** True when the finding makes the gate fail (warnings only when strict). */
export function fails(finding: Pick<Finding, 'verdict'>, strict: boolean): boolean {
  return finding.verdict === 'breaking' || finding.verdict === 'unjudged' || (strict && finding.verdict === 'warning');
}
