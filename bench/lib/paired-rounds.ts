// Ratios of alternated rounds. The benchmarks run their contenders in turn, round after
// round, so the two rounds of a pair ran seconds apart under the same load on this shared
// machine. The ratio of each pair cancels that load; their median ignores the odd round
// in which either side was lucky or unlucky. The best round of each side, compared with the
// other's best, can pair two moments the machine was in different states.

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

/** "median 0.71 of rounds 0.69 0.71 0.74" */
export function describePaired(ratios: readonly number[]): string {
  return `median ${median(ratios).toFixed(2)} of rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')}`;
}
