// Deliberate breaks, declared in a reviewed file: each entry names the rule, the file and the
// pointer of one finding and says why it is accepted. A finding with a matching entry no longer
// fails the gate (it is still listed, as accepted); an entry that matches nothing is reported,
// so the file is emptied when the next baseline is released.
//
// { "accepted": [ { "rule": "PROPERTY_REMOVED", "file": "schemas/native/task.schema.json",
//                   "pointer": "/properties/metadata", "reason": "..." } ] }
import type { Finding } from './findings.js';

export interface AcceptedBreak {
  readonly rule: string;
  readonly file: string;
  readonly pointer: string;
  readonly reason: string;
}

export interface JudgedFinding extends Finding {
  /** The reason given for accepting it, when an entry matches. */
  readonly accepted?: string;
}

/** Reads the file's JSON text; throws an Error naming what is wrong with an entry. */
export function parseAcceptedBreaks(text: string): AcceptedBreak[] {
  const document = JSON.parse(text) as unknown;
  const entries = (document as { accepted?: unknown } | null)?.accepted;
  if (!Array.isArray(entries)) throw new Error('expected {"accepted": [...]}');
  return entries.map((entry, i) => {
    const { rule, file, pointer, reason } = (entry ?? {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries({ rule, file, pointer, reason })) {
      if (typeof value !== 'string') throw new Error(`accepted[${i}].${name} must be a string`);
    }
    if ((reason as string).trim() === '') throw new Error(`accepted[${i}].reason must say why the break is accepted`);
    return { rule, file, pointer, reason } as AcceptedBreak;
  });
}

export function applyAcceptedBreaks(
  findings: readonly Finding[],
  accepted: readonly AcceptedBreak[],
): { findings: JudgedFinding[]; unused: AcceptedBreak[] } {
  const used = new Set<AcceptedBreak>();
  const judged = findings.map((finding) => {
    const entry = accepted.find((e) => e.rule === finding.rule && e.file === finding.file && e.pointer === finding.pointer);
    if (entry === undefined) return finding;
    used.add(entry);
    return { ...finding, accepted: entry.reason };
  });
  return { findings: judged, unused: accepted.filter((entry) => !used.has(entry)) };
}
