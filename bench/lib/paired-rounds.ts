// Ratios of alternated rounds. The benchmarks run their contenders in turn, round after
// round, so round i of parley and round i of its baseline ran seconds apart under the same
// load on this shared machine. Two readings of the same rounds, each guarding against a
// different way the machine misleads:
// - the median of the per-round ratios ignores a single round in which either side was
//   lucky, which the best rounds, compared with each other, would pair with an ordinary one;
// - the ratio of the best rounds ignores rounds in which something else set the pace (a
//   load generator starved of CPU makes every server look alike, and such rounds read as
//   ratios near 1, which the median would count).
// A target counts as met only when both readings meet it.

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** ours[i] / baseline[i] for every round both sides ran. */
export function pairedRatios(ours: readonly number[], baseline: readonly number[]): number[] {
  const rounds = Math.min(ours.length, baseline.length);
  return Array.from({ length: rounds }, (_, i) => ours[i]! / baseline[i]!);
}

/** "median 0.712 of rounds 0.69 0.71 0.74; best rounds 0.73 (target >= 0.70 on both) OK" */
export function judgeRatio(paired: readonly number[], bestRounds: number, target = 0.7): string {
  const middle = median(paired);
  const rounds = paired.map((ratio) => ratio.toFixed(2)).join(' ');
  const verdict = middle >= target && bestRounds >= target ? 'OK' : 'BELOW TARGET';
  return `median ${middle.toFixed(3)} of rounds ${rounds}; best rounds ${bestRounds.toFixed(3)} (target >= ${target.toFixed(2)} on both) ${verdict}`;
}
