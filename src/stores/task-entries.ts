// What an A2A task index holds and the rules every index applies, whichever backend keeps it:
// the indexed task and the caller's scope, a ListTasks query and its page, each caller's share
// of the index (shareOf) and the two refusals when the index is full. Every lookup is scoped: a
// task is visible only to the tenant and principal that created it (visibleTo). The TaskIndex
// interface stays with its consumer (a2a/handler/task-index.ts); this file sits in stores/ because the
// backends need these as values and stores/ lies below a2a/ in the layers (docs/layout.md).
import type { Task as NativeTask, TaskState } from '../../generated/types/index.js';

/** Who is asking: the request's tenant, and its authenticated principal (null without an authenticator). */
export interface TaskScope {
  readonly tenant: string;
  readonly principal: string | null;
}

export interface IndexedTask {
  readonly id: string;
  readonly contextId: string;
  readonly tenant: string;
  readonly owner: string | null;
  /** The native task (for the memory index, the live record the engine updates). */
  task: NativeTask;
  /** True while the engine runs it: an active task is never evicted. */
  active: boolean;
}

export interface TaskListQuery {
  readonly contextId?: string;
  readonly state?: TaskState;
  /** Only tasks whose status time is at or after this instant (ms). */
  readonly statusAfter?: number;
  /** Continue after this task of the ordering (from a page token). */
  readonly after?: TaskCursor;
  readonly limit: number;
}

/** A position in the listing order: status time descending, then id descending. */
export interface TaskCursor {
  readonly time: number;
  readonly id: string;
}

export interface TaskListPage {
  readonly tasks: readonly IndexedTask[];
  /** Tasks matching the filters, over all pages. */
  readonly total: number;
  /** Whether tasks follow this page. */
  readonly more: boolean;
}

/** How many tasks one caller may hold in an index unless told otherwise: a quarter of the default 1,024. */
export const DEFAULT_MAX_TASKS_PER_CALLER = 256;

/**
 * The share of the index a task counts against: its principal's, over every tenant (a tenant is
 * the caller's to name, so naming many must not buy more room); without a principal (no
 * authenticator), its tenant's, the only thing that tells anonymous callers apart.
 */
export function shareOf(tenant: string, owner: string | null): string {
  return JSON.stringify(owner !== null ? ['principal', owner] : ['tenant', tenant]);
}

/** Every slot of the index holds an active task, so a new one cannot be taken on. */
export class TaskIndexFullError extends Error {
  readonly code = 'task_index_full';
  constructor(readonly capacity: number) {
    super(`the A2A task index holds ${capacity} active tasks; try again once some finish`);
    this.name = 'TaskIndexFullError';
  }
}

/** The caller already holds its share of the index, every task of it active: it alone is refused. */
export class TaskQuotaError extends Error {
  readonly code = 'task_quota_exceeded';
  constructor(readonly quota: number) {
    super(`this caller already has ${quota} running tasks, its share of the A2A task index; try again once some finish`);
    this.name = 'TaskQuotaError';
  }
}

/** Whether the task belongs to the asking tenant and principal. */
export function visibleTo(entry: IndexedTask, scope: TaskScope): boolean {
  return entry.tenant === scope.tenant && entry.owner === scope.principal;
}

/** When the task last changed state (ms since the epoch). */
/** The ISO 8601 text statusTime reads: the time of the last state change, else of creation. */
export function statusStamp(task: NativeTask): string | null | undefined {
  return task.metadata?.state_history?.at(-1)?.timestamp ?? task.created_at;
}

export function statusTime(task: NativeTask): number {
  const iso = statusStamp(task);
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(ms) ? ms : 0;
}
