// The A2A task index: the tasks the request handler knows, so GetTask, ListTasks, CancelTask
// and follow-up messages find them. A small store interface, async so a shared backend (Redis)
// can implement it; the in-memory index (stores/memory/memory-task-index.ts) is the default.
// What an index holds, each caller's share and the refusals are in stores/task-entries.ts, where
// every backend reaches them; they are re-exported here for the request handler.
import type { StoredPushConfig } from '../../stores/push-configs.js';
import type { IndexedTask, TaskListPage, TaskListQuery, TaskScope } from '../../stores/task-entries.js';

export {
  TaskIndexFullError,
  TaskQuotaError,
  type IndexedTask,
  type TaskCursor,
  type TaskScope,
} from '../../stores/task-entries.js';

export interface TaskIndex {
  /**
   * Adds a new task; rejects with TaskQuotaError when its caller's share holds only active
   * tasks, and with TaskIndexFullError when every slot does.
   */
  add(entry: IndexedTask): Promise<void>;
  /** The task with this id in this scope; undefined when absent, expired or someone else's. */
  get(scope: TaskScope, id: string): Promise<IndexedTask | undefined>;
  /**
   * Records a change of the entry (state, active flag, a replaced task record). `progress`: the
   * caller holds the entry's run and it stays active (a shared index refuses, as a conflict, to
   * activate a task another run holds; this is no activation).
   */
  update(entry: IndexedTask, progress?: boolean): Promise<void>;
  /**
   * Optional: update() for an entry that has stopped running and, in the same step, what
   * `configs.touch` would answer for its task (its push configs, kept alive). A backend that
   * keeps both (Redis) saves the task's end a round trip; it answers null, after a plain
   * update(), for a `configs` store it does not reach, and the caller touches that itself.
   */
  settle?(entry: IndexedTask, configs: object): Promise<readonly StoredPushConfig[] | null>;
  /**
   * Optional: get() for many tasks in one step, answering in the order asked. A shared index
   * (Redis) reads them in one round trip; without it each task is read on its own.
   */
  getMany?(tasks: readonly { readonly scope: TaskScope; readonly id: string }[]): Promise<(IndexedTask | undefined)[]>;
  /** One page of the scope's tasks, newest status first. */
  list(scope: TaskScope, query: TaskListQuery): Promise<TaskListPage>;
}
