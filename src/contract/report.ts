// How a comparison is told: one line per finding in the manner of `buf breaking`
// (`file:pointer: RULE: what changed`), then a summary line; or one JSON document.
import type { AcceptedBreak, JudgedFinding } from './accepted-breaks.js';
import { directionWords, fails } from './findings.js';

export interface CheckOutcome {
  /** What the working tree was compared with: a directory or `git:REF`. */
  readonly baseline: string;
  readonly findings: readonly JudgedFinding[];
  /** Entries of the accepted-breaks file that matched no finding. */
  readonly unusedAccepted: readonly AcceptedBreak[];
  readonly strict: boolean;
}

/** Whether the gate passes: no unaccepted break or unjudged change (nor, when strict, a warning). */
export function passes(outcome: CheckOutcome): boolean {
  const failing = outcome.findings.some((finding) => finding.accepted === undefined && fails(finding, outcome.strict));
  return !failing && !(outcome.strict && outcome.unusedAccepted.length > 0);
}

function summary(outcome: CheckOutcome): { breaking: number; unjudged: number; warning: number; accepted: number } {
  const open = outcome.findings.filter((finding) => finding.accepted === undefined);
  return {
    breaking: open.filter((finding) => finding.verdict === 'breaking').length,
    unjudged: open.filter((finding) => finding.verdict === 'unjudged').length,
    warning: open.filter((finding) => finding.verdict === 'warning').length,
    accepted: outcome.findings.length - open.length,
  };
}

export function renderText(outcome: CheckOutcome): string {
  const lines = outcome.findings.map((finding) => {
    const tail = finding.accepted === undefined ? finding.verdict : `accepted: ${finding.accepted}`;
    return `${finding.file}:${finding.pointer === '' ? '(root)' : finding.pointer}: ${finding.rule}: ${finding.message} (${directionWords(finding.direction)}; ${tail})`;
  });
  for (const entry of outcome.unusedAccepted) {
    lines.push(`accepted break ${entry.rule} at ${entry.file}:${entry.pointer} matches no change; remove it (warning)`);
  }
  const counts = summary(outcome);
  const parts = [
    `${counts.breaking} breaking`,
    `${counts.unjudged} unjudged`,
    `${counts.warning} warning${counts.warning === 1 ? '' : 's'}`,
  ];
  if (counts.accepted > 0) parts.push(`${counts.accepted} accepted`);
  const verdict = passes(outcome) ? 'compatible' : counts.breaking > 0 ? 'breaking' : 'not judged compatible';
  lines.push(`${verdict} with ${outcome.baseline}: ${parts.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

export function renderJson(outcome: CheckOutcome): string {
  const document = {
    compatible: passes(outcome),
    baseline: outcome.baseline,
    strict: outcome.strict,
    summary: summary(outcome),
    findings: outcome.findings.map(({ file, pointer, rule, verdict, direction, message, accepted }) => ({
      file,
      pointer,
      rule,
      verdict,
      direction,
      message,
      accepted: accepted ?? null,
    })),
    unused_accepted: outcome.unusedAccepted,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
