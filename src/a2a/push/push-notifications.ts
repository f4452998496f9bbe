// The request handler's push-notification side, whatever the binding: the four config methods
// (Create, Get, List, Delete TaskPushNotificationConfig), the config a SendMessage carries, and
// telling delivery of a task's changes. Every method is scoped as the task is: a config of a task
// the caller cannot see is TaskNotFoundError, as the task itself would be. A bad config is
// -32602 naming its field (push-config.ts); a bound of the store passed is -32603 with the
// bound in the metadata, as A2A files load refusals.
import type { JsonObject, MessageShape } from '@bufbuild/protobuf';
import type {
  DeleteTaskPushNotificationConfigRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  TaskPushNotificationConfig,
} from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { ConfigError } from '../../core/errors.js';
import { MemoryPushConfigStore } from '../../stores/memory/memory-push-config-store.js';
import type { PushConfigBounds, StoredPushConfig } from '../../stores/push-configs.js';
import type { Logger } from '../../transport/hooks.js';
import { A2aError, invalidParams } from '../errors/a2a-error.js';
import type { IndexedTask, TaskIndex, TaskScope } from '../handler/task-index.js';
import { configFromA2a, configToA2a } from './push-config.js';
import { PushConfigQuotaError, type PushConfigStore } from './push-config-store.js';
import { PushDelivery, type PushDeliveryOptions, type TaskChange } from './push-delivery.js';
import { DestinationPolicy } from './destination-policy.js';

/** How an agent delivers push notifications and keeps their configs (AgentServer's `a2aPush`). */
export interface A2aPushOptions extends PushDeliveryOptions, PushConfigBounds {}

/** The numeric options and the least each may be. */
const COUNTS: readonly [keyof A2aPushOptions, number][] = [
  ['maxAttempts', 1],
  ['initialBackoffMs', 0],
  ['maxBackoffMs', 0],
  ['maxDeliveryMs', 0],
  ['attemptTimeoutMs', 1],
  ['maxResponseBytes', 0],
  ['concurrencyPerDestination', 1],
  ['maxQueuedPerDestination', 1],
  ['maxQueued', 1],
  ['maxPendingPerTask', 1],
  ['maxConfigsPerTask', 1],
  ['maxConfigsPerCaller', 1],
  ['maxConfigs', 1],
  ['ttlMs', 1],
];

/** Throws a ConfigError naming the first bad option (`field` is where they were given). */
export function checkPushOptions(options: A2aPushOptions, field: string): void {
  for (const [name, least] of COUNTS) {
    const value = options[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= least)) {
      throw new ConfigError(`${field}.${name}`, value, `must be a whole number of at least ${least}`);
    }
  }
  // The allow list is read here, so a bad entry fails when the server is built.
  new DestinationPolicy(options);
}

/**
 * Push notifications for one run of a server: the given store (a shared one), else one in
 * memory with the options' bounds, and a delivery that logs to `logger`.
 */
export function openPushNotifications(
  options: A2aPushOptions,
  index: TaskIndex,
  store: PushConfigStore | null,
  logger: Logger | null,
): PushNotifications {
  const configs = store ?? new MemoryPushConfigStore(options);
  const delivery = new PushDelivery(configs, logger && !options.logger ? { ...options, logger } : options);
  return new PushNotifications(configs, delivery, index);
}

/** ListTaskPushNotificationConfigs' largest page; unset or 0 means all of them. */
const MAX_PAGE_SIZE = 100;

export class PushNotifications {
  constructor(
    readonly store: PushConfigStore,
    readonly delivery: PushDelivery,
    private readonly index: TaskIndex,
  ) {}

  async create(request: TaskPushNotificationConfig, scope: TaskScope): Promise<JsonObject> {
    const entry = await this.task(scope, request.taskId, '/taskId');
    const config = configFromA2a(request, scope, entry.id, this.delivery.policy);
    await this.put(config);
    return configToA2a(config);
  }

  async get(request: MessageShape<typeof GetTaskPushNotificationConfigRequestSchema>, scope: TaskScope): Promise<JsonObject> {
    if (!request.taskId) throw invalidParams('/taskId', 'is required');
    if (!request.id) throw invalidParams('/id', 'is required');
    const config = await this.store.get(scope, request.taskId, request.id);
    if (!config) throw new A2aError('taskNotFound', `push notification config ${request.id} of task ${request.taskId} not found`);
    return configToA2a(config);
  }

  async list(request: MessageShape<typeof ListTaskPushNotificationConfigsRequestSchema>, scope: TaskScope): Promise<JsonObject> {
    if (request.pageSize < 0 || request.pageSize > MAX_PAGE_SIZE) {
      throw invalidParams('/pageSize', `must be from 0 (all) to ${MAX_PAGE_SIZE}`);
    }
    const after = request.pageToken ? decodePageToken(request.pageToken) : null;
    await this.task(scope, request.taskId, '/taskId');
    const all = await this.store.list(scope, request.taskId);
    const rest = after === null ? all : all.filter((config) => config.id > after);
    const size = request.pageSize || rest.length;
    const page = rest.slice(0, size);
    const more = rest.length > page.length;
    return { configs: page.map(configToA2a), nextPageToken: more ? encodePageToken(page.at(-1)!.id) : '' };
  }

  async delete(
    request: MessageShape<typeof DeleteTaskPushNotificationConfigRequestSchema>,
    scope: TaskScope,
  ): Promise<JsonObject> {
    if (!request.id) throw invalidParams('/id', 'is required');
    // Deleting twice is not an error; deleting from a task the caller cannot see is.
    if (!(await this.store.delete(scope, request.taskId, request.id))) await this.task(scope, request.taskId, '/taskId');
    return {};
  }

  /**
   * The config a SendMessage carries (`configuration.taskPushNotificationConfig`), checked before
   * anything is created: its task is the message's (a new task's id when it starts one).
   */
  fromMessage(config: TaskPushNotificationConfig, scope: TaskScope, taskId: string): StoredPushConfig {
    return configFromA2a(config, scope, taskId, this.delivery.policy, '/configuration/taskPushNotificationConfig');
  }

  /** Stores a config; a bound passed is -32603 naming it. */
  async put(config: StoredPushConfig): Promise<void> {
    try {
      await this.store.put(config);
    } catch (error) {
      if (error instanceof PushConfigQuotaError) {
        throw new A2aError('internalError', error.message, { limit: error.limit, bound: String(error.bound) });
      }
      throw error;
    }
  }

  /**
   * Tells delivery of a change of the task; returns at once. `configs`: the task's configs as
   * `store.touch` just answered them (read with the change's own write), so delivery need not
   * read them again.
   */
  notify(entry: IndexedTask, change: TaskChange, configs?: readonly StoredPushConfig[]): void {
    this.delivery.notify({ tenant: entry.tenant, principal: entry.owner }, entry.id, change, configs);
  }

  close(): void {
    this.delivery.close();
  }

  private async task(scope: TaskScope, taskId: string, pointer: string): Promise<IndexedTask> {
    if (!taskId) throw invalidParams(pointer, 'is required');
    const entry = await this.index.get(scope, taskId);
    if (!entry) throw new A2aError('taskNotFound', `task ${taskId} not found`);
    return entry;
  }
}

function encodePageToken(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

function decodePageToken(token: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalidParams('/pageToken', 'is not a page token this agent gave');
  return Buffer.from(token, 'base64url').toString('utf8');
}
