// The in-process store of A2A push-notification configs: per (tenant, principal, task) the
// task's configs by id, kept `ttlMs` after the task's last change (put and touch extend it), at
// most `maxConfigsPerTask` per task, `maxConfigsPerCaller` per caller's share and `maxConfigs`
// in all (stores/push-configs.ts). A new config past a bound is refused, after expired tasks
// are dropped: configs are the caller's own registrations, so none is evicted to make room.
// Lost on restart. It fits the PushConfigStore interface of a2a/push/push-config-store.ts
// without naming it (stores/ lies below a2a/).
import {
  DEFAULT_PUSH_CONFIG_BOUNDS,
  PushConfigQuotaError,
  pushShareOf,
  pushTaskKey,
  scopeOfConfig,
  type PushConfigBounds,
  type StoredPushConfig,
} from '../push-configs.js';
import type { TaskScope } from '../task-entries.js';

export interface MemoryPushConfigStoreOptions extends PushConfigBounds {
  /** The clock, in ms (tests move it instead of waiting). */
  readonly now?: () => number;
}

interface TaskConfigs {
  readonly share: string;
  readonly configs: Map<string, StoredPushConfig>;
  expires: number;
}

export class MemoryPushConfigStore {
  readonly maxConfigsPerTask: number;
  readonly maxConfigsPerCaller: number;
  readonly maxConfigs: number;
  readonly ttlMs: number;
  private readonly now: () => number;
  private readonly tasks = new Map<string, TaskConfigs>();
  /** How many configs each share holds. */
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(options: MemoryPushConfigStoreOptions = {}) {
    this.maxConfigsPerTask = options.maxConfigsPerTask ?? DEFAULT_PUSH_CONFIG_BOUNDS.maxConfigsPerTask;
    this.maxConfigsPerCaller = options.maxConfigsPerCaller ?? DEFAULT_PUSH_CONFIG_BOUNDS.maxConfigsPerCaller;
    this.maxConfigs = options.maxConfigs ?? DEFAULT_PUSH_CONFIG_BOUNDS.maxConfigs;
    this.ttlMs = options.ttlMs ?? DEFAULT_PUSH_CONFIG_BOUNDS.ttlMs;
    this.now = options.now ?? Date.now;
  }

  /** Configs held, expired ones included until they are next swept. */
  get size(): number {
    return this.total;
  }

  put(config: StoredPushConfig): Promise<void> {
    const scope = scopeOfConfig(config);
    const key = pushTaskKey(scope, config.taskId);
    const now = this.now();
    let task = this.live(key, now);
    if (!task?.configs.has(config.id)) {
      const share = pushShareOf(scope);
      const refusal = this.refusal(task, share, now);
      if (refusal) return Promise.reject(refusal);
      if (!task) {
        task = { share, configs: new Map(), expires: 0 };
        this.tasks.set(key, task);
      }
      this.held.set(share, (this.held.get(share) ?? 0) + 1);
      this.total += 1;
    }
    task.configs.set(config.id, config);
    task.expires = now + this.ttlMs;
    return Promise.resolve();
  }

  get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    return Promise.resolve(this.live(pushTaskKey(scope, taskId), this.now())?.configs.get(id));
  }

  list(scope: TaskScope, taskId: string): Promise<readonly StoredPushConfig[]> {
    return Promise.resolve(byId(this.live(pushTaskKey(scope, taskId), this.now())));
  }

  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    const key = pushTaskKey(scope, taskId);
    const task = this.live(key, this.now());
    if (!task?.configs.delete(id)) return Promise.resolve(false);
    this.release(task.share, 1);
    if (task.configs.size === 0) this.tasks.delete(key);
    return Promise.resolve(true);
  }

  touch(scope: TaskScope, taskId: string): Promise<readonly StoredPushConfig[]> {
    const now = this.now();
    const task = this.live(pushTaskKey(scope, taskId), now);
    if (task) task.expires = now + this.ttlMs;
    return Promise.resolve(byId(task));
  }

  /** The task's configs unless they have expired (then they are dropped). */
  private live(key: string, now: number): TaskConfigs | undefined {
    const task = this.tasks.get(key);
    if (task && task.expires < now) {
      this.drop(key, task);
      return undefined;
    }
    return task;
  }

  /** The bound a new config of `share` would pass, after expired tasks are swept; null when none. */
  private refusal(task: TaskConfigs | undefined, share: string, now: number): PushConfigQuotaError | null {
    if (task && task.configs.size >= this.maxConfigsPerTask) return new PushConfigQuotaError('task', this.maxConfigsPerTask);
    if ((this.held.get(share) ?? 0) >= this.maxConfigsPerCaller || this.total >= this.maxConfigs) {
      for (const [key, other] of this.tasks) if (other.expires < now) this.drop(key, other);
    }
    if ((this.held.get(share) ?? 0) >= this.maxConfigsPerCaller) {
      return new PushConfigQuotaError('caller', this.maxConfigsPerCaller);
    }
    if (this.total >= this.maxConfigs) return new PushConfigQuotaError('store', this.maxConfigs);
    return null;
  }

  private drop(key: string, task: TaskConfigs): void {
    this.tasks.delete(key);
    this.release(task.share, task.configs.size);
  }

  private release(share: string, count: number): void {
    this.total -= count;
    const left = (this.held.get(share) ?? 0) - count;
    if (left > 0) this.held.set(share, left);
    else this.held.delete(share);
  }
}

function byId(task: TaskConfigs | undefined): readonly StoredPushConfig[] {
  if (!task) return [];
  return [...task.configs.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
