// Per-session agent state: the model conversation and free-form values. Bounded in number (the
// least recently used session is dropped first) and in age (a session unused for longer than
// its time to live is dropped when the store next looks at it).
import { nowIso } from '../core/clock.js';
import type { ChatTurn } from '../llm/language-model.js';
import { normalizeJson } from '../core/json.js';

export interface Session {
  readonly id: string;
  turns: ChatTurn[];
  values: Record<string, unknown>;
  readonly created_at: string;
  updated_at: string;
  /** Date.now() of the last use, for the time to live. */
  usedAt: number;
}

/**
 * A session's free-form values as a handler sees them (`context.session`). They live as long
 * as the session: across its tasks, until a state reset or eviction. Values are stored as
 * plain JSON, so what `get` returns is what `POST /state/describe` shows.
 */
export interface SessionValues {
  get(key: string): unknown;
  /** Stores a copy of `value` as plain JSON; `undefined` deletes the key. */
  set(key: string, value: unknown): void;
  delete(key: string): boolean;
  has(key: string): boolean;
  keys(): string[];
}

/**
 * The values view over one session, looked up again on each use: a reset may replace it. Its
 * functions are closures, so a handler may take them out of the view (`const { get } = session`).
 */
export class SessionValuesView implements SessionValues {
  constructor(
    private readonly store: SessionStore,
    private readonly id: string,
  ) {}

  readonly get = (key: string): unknown => this.store.get(this.id)?.values[key];

  readonly set = (key: string, value: unknown): void => {
    if (value === undefined) {
      this.delete(key);
      return;
    }
    const session = this.store.ensure(this.id);
    session.values[key] = JSON.parse(JSON.stringify(normalizeJson(value)));
  };

  readonly delete = (key: string): boolean => {
    const values = this.store.get(this.id)?.values;
    if (!values || !Object.hasOwn(values, key)) return false;
    delete values[key];
    return true;
  };

  readonly has = (key: string): boolean => {
    const values = this.store.get(this.id)?.values;
    return values !== undefined && Object.hasOwn(values, key);
  };

  readonly keys = (): string[] => Object.keys(this.store.get(this.id)?.values ?? {});
}

/** Sessions kept at most, and how long one may go unused (in ms), by default. */
const DEFAULT_MAX_SESSIONS = 1024;
const DEFAULT_SESSION_TTL_MS = 3_600_000;

export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  /** `clock`: what Date.now() is for the time to live (tests turn it forward). */
  constructor(
    readonly maxSessions = DEFAULT_MAX_SESSIONS,
    readonly ttlMs = DEFAULT_SESSION_TTL_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  get size(): number {
    this.sweep();
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (this.expired(session, this.clock())) {
      this.sessions.delete(id);
      return undefined;
    }
    this.touch(session);
    return session;
  }

  ensure(id: string): Session {
    const existing = this.get(id);
    if (existing) return existing;
    this.sweep();
    const now = nowIso();
    const session: Session = { id, turns: [], values: {}, created_at: now, updated_at: now, usedAt: this.clock() };
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
    this.sweep();
    return [...this.sessions.values()];
  }

  private expired(session: Session, now: number): boolean {
    return now - session.usedAt > this.ttlMs;
  }

  /** Drops expired sessions: they sit at the front, least recently used first. */
  private sweep(): void {
    const now = this.clock();
    for (const session of this.sessions.values()) {
      if (!this.expired(session, now)) break;
      this.sessions.delete(session.id);
    }
  }

  private touch(session: Session): void {
    session.usedAt = this.clock();
    session.updated_at = nowIso();
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }
}
