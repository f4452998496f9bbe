// The tasks this replica's subscribers wait for while no replica runs them: queued and not taken
// yet, or handed on after their replica stopped or died. The task feed's reader asks about all of
// them together about once a second (`check`): QueuedRuns.waitingMany reads their index entries
// in one step, then asks the queue about the jobs of those still pending, all at once.
//
// A task waits while the index shows it running or about to, and its job is queued or taken. A
// job taken while the index says `working` may be a dead replica's, held until its lock runs out
// and a stall check puts it back in the queue: that is waited for `stallBoundMs` from the first
// check that saw it, no longer.
import type { WaitingCheck } from '../../stores/task-feed.js';
import type { IndexedTask, TaskScope } from './task-index.js';
import type { QueuedRuns, TaskWait, WaitedTask } from './task-queue.js';

interface Waited {
  readonly task: WaitedTask;
  /** Subscriptions following the task here. */
  followers: number;
  /** When a check first found its job taken while the index shows it working; null otherwise. */
  takenSince: number | null;
}

export class WaitedTasks {
  private readonly tasks = new Map<string, Waited>();

  constructor(private readonly runs: QueuedRuns) {}

  /** A subscription follows the entry's task from here until `release` is called. */
  follow(entry: IndexedTask, scope: TaskScope): () => void {
    let waited = this.tasks.get(entry.id);
    if (!waited) this.tasks.set(entry.id, (waited = { task: { scope, id: entry.id }, followers: 0, takenSince: null }));
    waited.followers++;
    const held = waited;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--held.followers === 0 && this.tasks.get(entry.id) === held) this.tasks.delete(entry.id);
    };
  }

  /** Whether each task still waits for a worker (false for one nobody here follows). */
  readonly check: WaitingCheck = async (taskIds) => {
    const asked = taskIds.map((id) => this.tasks.get(id));
    const known = asked.filter((waited): waited is Waited => waited !== undefined);
    const found = await this.runs.waitingMany(known.map((waited) => waited.task));
    const answers = new Map(known.map((waited, i) => [waited, this.stillWaits(waited, found[i]!)]));
    return asked.map((waited) => (waited ? (answers.get(waited) ?? false) : false));
  };

  private stillWaits(waited: Waited, { entry, waiting }: TaskWait): boolean {
    if (waiting !== 'taken' || entry?.task.state !== 'working') {
      waited.takenSince = null;
      return waiting !== false;
    }
    waited.takenSince ??= Date.now();
    return Date.now() - waited.takenSince <= this.runs.stallBoundMs;
  }
}
