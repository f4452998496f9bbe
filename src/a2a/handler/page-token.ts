// ListTasks page tokens: opaque to clients, and signed with a key made per process (or shared
// by the replicas of one agent), so a token that was edited or invented is refused (-32602)
// instead of steering the listing. A token
// names the last task of its page (status time and id); the next page starts after it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidParams } from '../errors/a2a-error.js';
import type { TaskCursor } from './task-index.js';

export class PageTokens {
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  encode(cursor: TaskCursor): string {
    const payload = Buffer.from(`${cursor.time}.${cursor.id}`, 'utf8').toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(token: string): TaskCursor {
    const dot = token.lastIndexOf('.');
    const payload = dot > 0 ? token.slice(0, dot) : '';
    const signature = Buffer.from(dot > 0 ? token.slice(dot + 1) : '', 'utf8');
    const expected = Buffer.from(this.sign(payload), 'utf8');
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
      throw invalidParams('/pageToken', 'is not a page token this agent issued');
    }
    const text = Buffer.from(payload, 'base64url').toString('utf8');
    const split = text.indexOf('.');
    return { time: Number(text.slice(0, split)), id: text.slice(split + 1) };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }
}
