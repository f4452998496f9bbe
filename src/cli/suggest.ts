// "Did you mean" for names typed on the command line: the known names closest to what was
// typed, by edit distance, ignoring case and (for `a2a:Task`-style names) the namespace.

/**
 * Optimal string alignment distance: the fewest single-character insertions, deletions,
 * substitutions and swaps of two neighbours that turn `a` into `b`.
 */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, beforePrevious[j - 2]! + 1);
      }
      current.push(best);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

export interface SuggestOptions {
  /** At most this many names (default 4). */
  readonly limit?: number;
}

/**
 * Names worth suggesting for `typed`, best first (ties keep the order of `names`). A name
 * qualifies when it is within max(2, a third of the typed length) edits, or when one of the
 * two contains the other (three characters or more), so `agent` finds `agent-card` and
 * `tasks` finds `task`. Case is ignored; a namespaced name such as `a2a:Task` is also compared
 * without its namespace, at the cost of one edit, so `Task` suggests `task` before `a2a:Task`.
 */
export function closestNames(typed: string, names: readonly string[], options: SuggestOptions = {}): string[] {
  const wanted = typed.toLowerCase();
  if (wanted === '') return [];
  const threshold = Math.max(2, Math.floor(wanted.length / 3));
  const scored: Array<{ name: string; distance: number; order: number }> = [];
  names.forEach((name, order) => {
    const lower = name.toLowerCase();
    const colon = lower.indexOf(':');
    const bare = colon === -1 ? undefined : lower.slice(colon + 1);
    const distance = Math.min(editDistance(wanted, lower), bare === undefined ? Infinity : editDistance(wanted, bare) + 1);
    const overlaps =
      wanted.length >= 3 && [lower, bare].some((form) => form !== undefined && (form.includes(wanted) || wanted.includes(form)));
    if (distance <= threshold || overlaps) scored.push({ name, distance, order });
  });
  scored.sort((x, y) => x.distance - y.distance || x.order - y.order);
  return scored.slice(0, options.limit ?? 4).map((entry) => entry.name);
}
