// Cancel across replicas. A task runs on the replica that took its request; a cancel may land on
// any replica. When the local engine does not run the task, the cancel is published on a channel
// every replica listens to; each one answers on the asker's own channel, with the canceled task
// if it was running it there, or with "not here" (the asking and counting: redis-replica-poll.ts).
// Nobody running it means no run to stop: the caller then decides (404 on the native route; the
// A2A index marks the task canceled).
import { randomBytes } from 'node:crypto';
import type { Task } from '../../../generated/types/index.js';
import type { RedisClient } from './redis-module.js';
import { heardObject, RedisReplicaPoll } from './redis-replica-poll.js';

/** What a replica does with a cancel it hears: the canceled task, or undefined when it does not have it. */
export type LocalCancel = (id: string, principal: string | null, metadata: Record<string, unknown>) => Task | undefined;

interface CancelRequestMessage {
  readonly ask: string;
  readonly replyTo: string;
  readonly id: string;
  readonly principal: string | null;
  readonly metadata: Record<string, unknown>;
}

interface CancelReplyMessage {
  readonly ask: string;
  readonly task: Task | null;
}

export interface RedisCancelBusOptions {
  /** Longest wait for the replicas' answers. Default 2000 ms. */
  readonly answerTimeoutMs?: number;
}

export class RedisCancelBus {
  /** This replica's name on the bus: its answers channel. */
  readonly replica = randomBytes(9).toString('base64url');
  private readonly poll: RedisReplicaPoll<Task>;
  private local: LocalCancel | null = null;
  private readonly requests: string;
  private readonly replies: string;

  /** `subscriber` is a connection of its own: a subscribed Redis connection runs no other commands. */
  constructor(
    private readonly client: RedisClient,
    private readonly subscriber: RedisClient,
    prefix: string,
    location: string,
    options: RedisCancelBusOptions = {},
  ) {
    this.requests = `${prefix}cancel`;
    this.replies = `${prefix}cancel:${this.replica}`;
    this.poll = new RedisReplicaPoll(client, this.requests, location, options.answerTimeoutMs ?? 2000);
    subscriber.on('message', (channel: string, text: string) => this.heard(channel, text));
  }

  /** Starts listening; `local` cancels on this replica. */
  async open(local: LocalCancel): Promise<void> {
    this.local = local;
    await this.subscriber.subscribe(this.requests, this.replies);
  }

  /** Asks the other replicas to cancel the task; the canceled task, or undefined when none runs it. */
  async cancel(id: string, principal: string | null, metadata: Record<string, unknown>): Promise<Task | undefined> {
    return this.poll.ask((ask): CancelRequestMessage => ({ ask, replyTo: this.replies, id, principal, metadata }));
  }

  private heard(channel: string, text: string): void {
    const message = heardObject(text);
    if (!message) return;
    if (channel === this.requests) this.answer(message as CancelRequestMessage);
    else if (channel === this.replies) this.received(message as CancelReplyMessage);
  }

  private answer(request: CancelRequestMessage): void {
    let task: Task | undefined;
    try {
      task = this.local?.(request.id, request.principal, request.metadata ?? {});
    } catch {
      task = undefined;
    }
    const reply: CancelReplyMessage = { ask: request.ask, task: task ?? null };
    // A lost answer only shortens the asker's wait to its deadline.
    this.client.publish(request.replyTo, JSON.stringify(reply)).catch(() => undefined);
  }

  private received(reply: CancelReplyMessage): void {
    this.poll.answered(reply.ask, reply.task ? reply.task : undefined);
  }

  close(): void {
    this.poll.close();
    this.local = null;
  }
}
