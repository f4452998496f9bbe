// One ListTasks page, the same for every task index: the scope's tasks filtered by context,
// state and status time, ordered newest status first (ties: the larger id first), and cut after
// the page token's position. Written once so that the memory and the Redis index cannot drift
// apart in what a page holds or how `total` and `more` are counted.
import {
  statusTime,
  visibleTo,
  type IndexedTask,
  type TaskListPage,
  type TaskListQuery,
  type TaskScope,
} from './task-entries.js';

/**
 * The page of `candidates` the query asks for. `ordered` says the candidates already come in
 * the listing order (Redis reads them from a sorted set); otherwise they are sorted here.
 */
export function pageTasks(
  candidates: Iterable<IndexedTask>,
  scope: TaskScope,
  query: TaskListQuery,
  ordered: boolean,
): TaskListPage {
  const matching: { entry: IndexedTask; time: number }[] = [];
  for (const entry of candidates) {
    if (!visibleTo(entry, scope)) continue;
    if (query.contextId !== undefined && entry.contextId !== query.contextId) continue;
    if (query.state !== undefined && entry.task.state !== query.state) continue;
    const time = statusTime(entry.task);
    if (query.statusAfter !== undefined && time < query.statusAfter) continue;
    matching.push({ entry, time });
  }
  if (!ordered) {
    matching.sort((a, b) => b.time - a.time || (a.entry.id < b.entry.id ? 1 : a.entry.id > b.entry.id ? -1 : 0));
  }
  let start = 0;
  const after = query.after;
  if (after) {
    start = matching.findIndex(({ entry, time }) => time < after.time || (time === after.time && entry.id < after.id));
    if (start < 0) start = matching.length;
  }
  const page = matching.slice(start, start + query.limit).map(({ entry }) => entry);
  return { tasks: page, total: matching.length, more: start + query.limit < matching.length };
}
