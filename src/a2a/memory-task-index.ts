// The in-process A2A task index: at most `maxTasks` (1,024) tasks, each kept `ttlMs` (one hour)
// after its last change. When a new task needs room, expired tasks go first, then the inactive
// task changed longest ago; active tasks are never evicted, so a full index of active tasks
// refuses the new one. Lost on restart, like every per-process cache.
import { statusTime } from './tasks.js';
import {
  TaskIndexFullError,
  type IndexedTask,
  type TaskIndex,
  type TaskListPage,
  type TaskListQuery,
  type TaskScope,
} from './task-index.js';

export interface MemoryTaskIndexOptions {
  readonly maxTasks?: number;
  readonly ttlMs?: number;
  /** The clock, in ms (tests move it instead of waiting). */
  readonly now?: () => number;
}

interface Slot {
  readonly entry: IndexedTask;
  touched: number;
}

export class MemoryTaskIndex implements TaskIndex {
  readonly maxTasks: number;
  readonly ttlMs: number;
  private readonly now: () => number;
  /** Least recently changed first: a change moves the slot to the end. */
  private readonly slots = new Map<string, Slot>();

  constructor(options: MemoryTaskIndexOptions = {}) {
    this.maxTasks = options.maxTasks ?? 1024;
    this.ttlMs = options.ttlMs ?? 3_600_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.slots.size;
  }

  add(entry: IndexedTask): Promise<void> {
    if (!this.slots.has(entry.id) && this.slots.size >= this.maxTasks) {
      try {
        this.makeRoom();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    this.slots.delete(entry.id);
    this.slots.set(entry.id, { entry, touched: this.now() });
    return Promise.resolve();
  }

  get(scope: TaskScope, id: string): Promise<IndexedTask | undefined> {
    const slot = this.slots.get(id);
    if (!slot || !visible(slot.entry, scope)) return Promise.resolve(undefined);
    if (this.expired(slot, this.now())) {
      this.slots.delete(id);
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
      this.slots.set(entry.id, { entry, touched: this.now() });
    }
    return Promise.resolve();
  }

  list(scope: TaskScope, query: TaskListQuery): Promise<TaskListPage> {
    const now = this.now();
    const matching: { entry: IndexedTask; time: number }[] = [];
    for (const [id, slot] of this.slots) {
      if (this.expired(slot, now)) {
        this.slots.delete(id);
        continue;
      }
      const { entry } = slot;
      if (!visible(entry, scope)) continue;
      if (query.contextId !== undefined && entry.contextId !== query.contextId) continue;
      if (query.state !== undefined && entry.task.state !== query.state) continue;
      const time = statusTime(entry.task);
      if (query.statusAfter !== undefined && time < query.statusAfter) continue;
      matching.push({ entry, time });
    }
    matching.sort((a, b) => b.time - a.time || (a.entry.id < b.entry.id ? 1 : a.entry.id > b.entry.id ? -1 : 0));
    let start = 0;
    const after = query.after;
    if (after) {
      start = matching.findIndex(({ entry, time }) => time < after.time || (time === after.time && entry.id < after.id));
      if (start < 0) start = matching.length;
    }
    const page = matching.slice(start, start + query.limit).map(({ entry }) => entry);
    return Promise.resolve({ tasks: page, total: matching.length, more: start + query.limit < matching.length });
  }

  private expired(slot: Slot, now: number): boolean {
    return !slot.entry.active && now - slot.touched > this.ttlMs;
  }

  /** Frees one slot: expired tasks first (all of them), else the inactive one changed longest ago. */
  private makeRoom(): void {
    const now = this.now();
    let oldestInactive: string | null = null;
    for (const [id, slot] of this.slots) {
      if (this.expired(slot, now)) this.slots.delete(id);
      else if (oldestInactive === null && !slot.entry.active) oldestInactive = id;
    }
    if (this.slots.size < this.maxTasks) return;
    if (oldestInactive === null) throw new TaskIndexFullError(this.maxTasks);
    this.slots.delete(oldestInactive);
  }
}

function visible(entry: IndexedTask, scope: TaskScope): boolean {
  return entry.tenant === scope.tenant && entry.owner === scope.principal;
}
