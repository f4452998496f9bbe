// What a walk over two versions of one schema carries along: both contracts, where findings go,
// and which direction applies at each place.
import { directionAt, type Directions } from './directions.js';
import type { Direction, Finding } from './findings.js';
import type { Contract } from './load.js';
import { type RuleName, verdictOf } from './rules.js';

export interface SchemaComparison {
  readonly before: Contract;
  readonly after: Contract;
  /** The schema's file in the schema folder (for directions). */
  readonly schemaFile: string;
  /** The file as findings name it. */
  readonly shownFile: string;
  readonly directions: Directions;
  /** A direction that applies everywhere, instead of the derived ones (an operation's shape, a test). */
  readonly direction?: Direction;
  /** Added to every message, to say why two different files were compared. */
  readonly note?: string;
  readonly report: (finding: Finding) => void;
}

/** Reports `rule` at `pointer` unless it is compatible for the direction that applies there. */
export function emit(comparison: SchemaComparison, rule: RuleName, pointer: string, message: string): void {
  const direction = comparison.direction ?? directionAt(comparison.directions, comparison.schemaFile, pointer);
  const verdict = verdictOf(rule, direction);
  if (verdict === 'compatible') return;
  const text = comparison.note === undefined ? message : `${message} ${comparison.note}`;
  comparison.report({ file: comparison.shownFile, pointer, rule, verdict, direction, message: text });
}
