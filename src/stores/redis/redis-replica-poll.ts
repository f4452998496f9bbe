// Asking every replica one question over Redis pub/sub and waiting for the one that has the
// answer (the cancel bus: "do you run this task? cancel it"; the task feed: "do you run this
// task? start writing its events"). The question is published on a channel all replicas
// listen to; PUBLISH says how many heard it, so the asker waits for exactly that many answers:
// the first that found something settles the question, and once all said "not here" it settles
// with nothing. A deadline covers a replica that dies between hearing and answering. Each
// question carries its own id (`ask`), which the answers repeat.
import { randomBytes } from 'node:crypto';
import { redisFailure } from './redis-connection.js';
import type { RedisClient } from './redis-module.js';

/**
 * A question or answer as heard on a channel: its JSON object, or null for anything else
 * (anyone who can publish on the channel can send anything).
 */
export function heardObject(text: string): object | null {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof message === 'object' && message !== null ? message : null;
}

interface Pending<Found> {
  /** How many replicas heard the question; null until PUBLISH answers. */
  expected: number | null;
  answered: number;
  readonly resolve: (found: Found | undefined) => void;
  readonly timer: NodeJS.Timeout;
}

export class RedisReplicaPoll<Found> {
  private readonly pending = new Map<string, Pending<Found>>();

  constructor(
    private readonly client: RedisClient,
    /** The channel every replica hears questions on. */
    private readonly channel: string,
    private readonly location: string,
    /** Longest wait for the answers. */
    private readonly answerTimeoutMs: number,
  ) {}

  /**
   * Publishes the question `message(ask)` makes and waits: what the first replica that found
   * something answered, or undefined when every one that heard it (this one included, since it
   * listens too) said "not here" or the deadline passed. Rejects when Redis refuses the PUBLISH.
   */
  ask(message: (ask: string) => unknown): Promise<Found | undefined> {
    const ask = randomBytes(9).toString('base64url');
    return new Promise<Found | undefined>((resolve, reject) => {
      const timer = setTimeout(() => this.settle(ask, undefined), this.answerTimeoutMs);
      this.pending.set(ask, { expected: null, answered: 0, resolve, timer });
      this.client.publish(this.channel, JSON.stringify(message(ask))).then(
        (heard) => {
          const pending = this.pending.get(ask);
          if (!pending) return;
          pending.expected = heard;
          if (pending.answered >= heard) this.settle(ask, undefined);
        },
        (error: unknown) => {
          clearTimeout(timer);
          this.pending.delete(ask);
          reject(redisFailure(error, this.location));
        },
      );
    });
  }

  /** One replica's answer to question `ask`: what it found, or undefined for "not here". */
  answered(ask: string, found: Found | undefined): void {
    const pending = this.pending.get(ask);
    if (!pending) return;
    if (found !== undefined) {
      this.settle(ask, found);
      return;
    }
    pending.answered++;
    if (pending.expected !== null && pending.answered >= pending.expected) this.settle(ask, undefined);
  }

  /** Settles every open question with nothing. */
  close(): void {
    for (const ask of [...this.pending.keys()]) this.settle(ask, undefined);
  }

  private settle(ask: string, found: Found | undefined): void {
    const pending = this.pending.get(ask);
    if (!pending) return;
    this.pending.delete(ask);
    clearTimeout(pending.timer);
    pending.resolve(found);
  }
}
