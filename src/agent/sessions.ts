// Per-session agent state: the model conversation and free-form values. Bounded: the least
// recently used session is dropped first.
import { nowIso } from '../core/clock.js';
import type { ChatTurn } from '../llm/language-model.js';

export interface Session {
  readonly id: string;
  turns: ChatTurn[];
  values: Record<string, unknown>;
  readonly created_at: string;
  updated_at: string;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(readonly maxSessions = 1024) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (session) this.touch(session);
    return session;
  }

  ensure(id: string): Session {
    const existing = this.get(id);
    if (existing) return existing;
    const now = nowIso();
    const session: Session = { id, turns: [], values: {}, created_at: now, updated_at: now };
    this.sessions.set(id, session);
    while (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    return session;
  }

  delete(id: string): boolean {
    return this.sessions.delete(id);
  }

  clear(): number {
    const count = this.sessions.size;
    this.sessions.clear();
    return count;
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }

  private touch(session: Session): void {
    session.updated_at = nowIso();
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }
}
