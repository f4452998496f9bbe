// The read behind a replica's check of the tasks its subscribers wait for (queued, or handed on
// after their replica stopped or died; a2a/handler/waited-tasks.ts): for every such task, its
// record in the task index and where its job stands in the queue, in one script call, so the
// check costs one round trip about once a second whatever the number of tasks, not two per task.
// A job's state is judged as BullMQ's own state lookup judges it (the same sets and lists, in the
// same order), from the queue's key names (redis-task-queue.ts, stateKeys).
import type { IndexedTask, TaskScope } from '../task-entries.js';
import { redisFailure } from './redis-connection.js';
import type { RedisClient } from './redis-module.js';
import type { RedisTaskIndex } from './redis-task-index.js';
import type { JobState, JobStateKeys } from './redis-task-queue.js';

/**
 * ARGV: the queue's state keys (completed, failed, delayed, prioritized, active, wait, paused,
 * waiting-children), then for each task its index key and its job id. Answers, for each task,
 * its record (false when none) and its job's state: 'none' (finished or unknown), 'taken' or
 * 'queued'.
 */
const READ_WAITS = `
local completed, failed, delayed, prioritized, active, wait, paused, children = unpack(ARGV, 1, 8)
local function stateOf(job)
  if redis.call('ZSCORE', completed, job) or redis.call('ZSCORE', failed, job) then return 'none' end
  if redis.call('ZSCORE', delayed, job) or redis.call('ZSCORE', prioritized, job) then return 'queued' end
  if redis.call('LPOS', active, job) then return 'taken' end
  if redis.call('LPOS', wait, job) or redis.call('LPOS', paused, job) or redis.call('ZSCORE', children, job) then
    return 'queued'
  end
  return 'none'
end
local out = {}
for i = 9, #ARGV, 2 do
  out[#out + 1] = redis.call('GET', ARGV[i])
  out[#out + 1] = stateOf(ARGV[i + 1])
end
return out
`;

interface Scripts {
  a2aReadWaits(...args: string[]): Promise<(string | null)[]>;
}

export function defineTaskWaitScripts(client: RedisClient): void {
  client.defineCommand('a2aReadWaits', { numberOfKeys: 0, lua: READ_WAITS });
}

/** A task a subscriber waits for: whose it is, and its job's id. */
export interface WaitRead {
  readonly scope: TaskScope;
  readonly id: string;
  readonly jobId: string;
}

export class RedisTaskWaits {
  private readonly client: RedisClient & Scripts;

  /** `client` must have had defineTaskWaitScripts applied, and reach the index's and the queue's Redis. */
  constructor(
    client: RedisClient,
    private readonly index: RedisTaskIndex,
    private readonly keys: JobStateKeys,
    private readonly location: string,
  ) {
    this.client = client as RedisClient & Scripts;
  }

  /** read(), as a function to hand on. */
  reader(): (tasks: readonly WaitRead[]) => Promise<{ entry: IndexedTask | undefined; job: JobState }[]> {
    return (tasks) => this.read(tasks);
  }

  /** Each task's entry (as the index's get() answers it) and its job's state, in the order asked. */
  async read(tasks: readonly WaitRead[]): Promise<{ entry: IndexedTask | undefined; job: JobState }[]> {
    if (tasks.length === 0) return [];
    const { completed, failed, delayed, prioritized, active, wait, paused, waitingChildren } = this.keys;
    const args = [completed, failed, delayed, prioritized, active, wait, paused, waitingChildren];
    for (const task of tasks) args.push(this.index.taskKey(task.id), task.jobId);
    let answer: (string | null)[];
    try {
      answer = await this.client.a2aReadWaits(...args);
    } catch (error) {
      throw redisFailure(error, this.location);
    }
    return tasks.map((task, i) => ({
      entry: this.index.entryOf(answer[2 * i] ?? null, task.scope),
      job: answer[2 * i + 1] as JobState,
    }));
  }
}
