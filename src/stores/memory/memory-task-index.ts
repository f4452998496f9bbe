// The in-process A2A task index: at most `maxTasks` (1,024) tasks, each kept `ttlMs` (one hour)
// after its last change, and at most `maxTasksPerCaller` (256) of one caller (task-entries.ts,
// shareOf). When a new task needs room, expired tasks go first; then a caller at its share
// gives up its own inactive task changed longest ago, and a full index the largest share's, so
// a light caller keeps its tasks. Active tasks are never evicted: a share of active tasks
// refuses its caller's new task, a full index of them everyone's. Lost on restart, like every
// per-process cache. It fits the TaskIndex interface of a2a/handler/task-index.ts without naming it
// (stores/ lies below a2a/); the request handler's assignment checks the fit.
import { pageTasks } from '../page-tasks.js';
import {
  DEFAULT_MAX_TASKS_PER_CALLER,
  shareOf,
  TaskIndexFullError,
  TaskQuotaError,
  visibleTo,
  type IndexedTask,
  type TaskListPage,
  type TaskListQuery,
  type TaskScope,
} from '../task-entries.js';

export interface MemoryTaskIndexOptions {
  readonly maxTasks?: number;
  readonly maxTasksPerCaller?: number;
  readonly ttlMs?: number;
  /** The clock, in ms (tests move it instead of waiting). */
  readonly now?: () => number;
}

interface Slot {
  readonly entry: IndexedTask;
  /** shareOf the entry's tenant and owner (neither changes). */
  readonly share: string;
  touched: number;
}

export class MemoryTaskIndex {
  readonly maxTasks: number;
  readonly maxTasksPerCaller: number;
  readonly ttlMs: number;
  private readonly now: () => number;
  /** Least recently changed first: a change moves the slot to the end. */
  private readonly slots = new Map<string, Slot>();
  /** How many slots each share holds. */
  private readonly held = new Map<string, number>();

  constructor(options: MemoryTaskIndexOptions = {}) {
    this.maxTasks = options.maxTasks ?? 1024;
    this.maxTasksPerCaller = options.maxTasksPerCaller ?? DEFAULT_MAX_TASKS_PER_CALLER;
    this.ttlMs = options.ttlMs ?? 3_600_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.slots.size;
  }

  add(entry: IndexedTask): Promise<void> {
    const share = shareOf(entry.tenant, entry.owner);
    if (!this.slots.has(entry.id) && (this.heldBy(share) >= this.maxTasksPerCaller || this.slots.size >= this.maxTasks)) {
      try {
        this.makeRoom(share);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    this.put(entry, share);
    return Promise.resolve();
  }

  get(scope: TaskScope, id: string): Promise<IndexedTask | undefined> {
    const slot = this.slots.get(id);
    if (!slot || !visibleTo(slot.entry, scope)) return Promise.resolve(undefined);
    if (this.expired(slot, this.now())) {
      this.remove(id);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(slot.entry);
  }

  update(entry: IndexedTask): Promise<void> {
    const slot = this.slots.get(entry.id);
    if (slot && slot.entry === entry) {
      this.slots.delete(entry.id);
      slot.touched = this.now();
      this.slots.set(entry.id, slot);
    } else {
      this.put(entry, shareOf(entry.tenant, entry.owner));
    }
    return Promise.resolve();
  }

  list(scope: TaskScope, query: TaskListQuery): Promise<TaskListPage> {
    const now = this.now();
    const live: IndexedTask[] = [];
    for (const [id, slot] of this.slots) {
      if (this.expired(slot, now)) this.remove(id);
      else live.push(slot.entry);
    }
    return Promise.resolve(pageTasks(live, scope, query, false));
  }

  private expired(slot: Slot, now: number): boolean {
    return !slot.entry.active && now - slot.touched > this.ttlMs;
  }

  /**
   * Frees a slot for a new task of `share`: expired tasks first (all of them); then, when the
   * share is at its bound, its own inactive task changed longest ago; else, when the index is
   * full, the largest share's (the oldest of them on a tie).
   */
  private makeRoom(share: string): void {
    this.dropExpired(this.now());
    let victim: string | null = null;
    if (this.heldBy(share) >= this.maxTasksPerCaller) {
      for (const [id, slot] of this.slots) {
        if (slot.share === share && !slot.entry.active) {
          victim = id;
          break;
        }
      }
      if (victim === null) throw new TaskQuotaError(this.maxTasksPerCaller);
    } else if (this.slots.size >= this.maxTasks) {
      let largest = 0;
      for (const [id, slot] of this.slots) {
        if (slot.entry.active || this.heldBy(slot.share) <= largest) continue;
        victim = id;
        largest = this.heldBy(slot.share);
      }
      if (victim === null) throw new TaskIndexFullError(this.maxTasks);
    }
    if (victim !== null) this.remove(victim);
  }

  /**
   * Removes the expired tasks. Slots are in the order they were last changed, so the scan stops
   * at the first inactive one still within its time: every later one is newer. Without the stop,
   * each new task of a full share read every slot (a quarter of the index's 1,024 at least).
   */
  private dropExpired(now: number): void {
    for (const [id, slot] of this.slots) {
      if (slot.entry.active) continue;
      if (now - slot.touched <= this.ttlMs) return;
      this.remove(id);
    }
  }

  private heldBy(share: string): number {
    return this.held.get(share) ?? 0;
  }

  /** Stores the entry as the most recently changed, counting it in its share when it is new. */
  private put(entry: IndexedTask, share: string): void {
    const known = this.slots.delete(entry.id);
    this.slots.set(entry.id, { entry, share, touched: this.now() });
    if (!known) this.held.set(share, this.heldBy(share) + 1);
  }

  private remove(id: string): void {
    const slot = this.slots.get(id);
    if (!slot) return;
    this.slots.delete(id);
    const left = this.heldBy(slot.share) - 1;
    if (left > 0) this.held.set(slot.share, left);
    else this.held.delete(slot.share);
  }
}
