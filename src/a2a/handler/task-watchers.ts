// The subscribers (SubscribeToTask) of the tasks this process runs: each gets the task's
// StreamResponses from the moment it subscribed, through a queue of its own. The queue is
// bounded: a subscriber that falls that far behind the task is dropped with an error event
// rather than holding the events in memory without end. Only tasks running in this process are
// seen: with replicas sharing a store, the request handler follows the shared task feed
// (stores/task-feed.ts) instead.
import type { JsonObject } from '@bufbuild/protobuf';
import { AsyncQueue } from '../../core/async-queue.js';
import { A2aError } from '../errors/a2a-error.js';

/** Events one subscriber may have unread before it is dropped. */
const MAX_UNREAD = 256;

export class TaskWatchers {
  private readonly byTask = new Map<string, Set<AsyncQueue<JsonObject>>>();

  /** Tasks with at least one subscriber. */
  get size(): number {
    return this.byTask.size;
  }

  has(taskId: string): boolean {
    return this.byTask.has(taskId);
  }

  /** A new subscriber's queue of the task's next events. */
  watch(taskId: string): AsyncQueue<JsonObject> {
    const queue = new AsyncQueue<JsonObject>();
    let watchers = this.byTask.get(taskId);
    if (!watchers) this.byTask.set(taskId, (watchers = new Set()));
    watchers.add(queue);
    return queue;
  }

  unwatch(taskId: string, queue: AsyncQueue<JsonObject>): void {
    const watchers = this.byTask.get(taskId);
    if (!watchers) return;
    watchers.delete(queue);
    if (watchers.size === 0) this.byTask.delete(taskId);
  }

  /** Hands `response` to the task's subscribers; one too far behind is dropped with an error. */
  publish(taskId: string, response: JsonObject): void {
    const watchers = this.byTask.get(taskId);
    if (!watchers) return;
    for (const queue of watchers) {
      if (queue.size < MAX_UNREAD) {
        queue.push(response);
        continue;
      }
      queue.fail(
        new A2aError('internalError', `this subscriber fell ${MAX_UNREAD} events behind task ${taskId} and was dropped`, {
          limit: String(MAX_UNREAD),
        }),
      );
      watchers.delete(queue);
    }
    if (watchers.size === 0) this.byTask.delete(taskId);
  }
}
