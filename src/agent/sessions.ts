// Per-session agent state: the model conversation and free-form values. A session belongs to
// the principal that made it: sessions are stored under (owner, id), so another principal
// naming the same id finds nothing (and would make a session of its own), exactly as for an id
// nobody used. Bounded in number (the least recently used session is dropped first) and in age
// (a session unused for longer than its time to live is dropped when the store next looks at it).
import type { SecurityContext } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';
import type { ChatTurn } from '../llm/language-model.js';
import { normalizeJson } from '../core/json.js';

export interface Session {
  readonly id: string;
  /** The principal that made it; null without an authenticator (or for a caller with no identity). */
  readonly owner: string | null;
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
    private readonly owner: string | null,
    private readonly id: string,
  ) {}

  readonly get = (key: string): unknown => this.store.get(this.owner, this.id)?.values[key];

  readonly set = (key: string, value: unknown): void => {
    if (value === undefined) {
      this.delete(key);
      return;
    }
    const session = this.store.ensure(this.owner, this.id);
    session.values[key] = JSON.parse(JSON.stringify(normalizeJson(value)));
  };

  readonly delete = (key: string): boolean => {
    const values = this.store.get(this.owner, this.id)?.values;
    if (!values || !Object.hasOwn(values, key)) return false;
    delete values[key];
    return true;
  };

  readonly has = (key: string): boolean => {
    const values = this.store.get(this.owner, this.id)?.values;
    return values !== undefined && Object.hasOwn(values, key);
  };

  readonly keys = (): string[] => Object.keys(this.store.get(this.owner, this.id)?.values ?? {});
}

/** Sessions kept at most, and how long one may go unused (in ms), by default. */
const DEFAULT_MAX_SESSIONS = 1024;
const DEFAULT_SESSION_TTL_MS = 3_600_000;

/** Who owns what a request makes or names: its principal, or null without one. */
export function sessionOwner(security: SecurityContext | null | undefined): string | null {
  return security?.principal_id ?? null;
}

export class SessionStore {
  /** By owner and id (see storeKey), least recently used first. */
  private readonly sessions = new Map<string, Session>();

  /** `clock`: what Date.now() is for the time to live (tests turn it forward). */
  constructor(
    readonly maxSessions = DEFAULT_MAX_SESSIONS,
    readonly ttlMs = DEFAULT_SESSION_TTL_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Sessions kept, whoever owns them. */
  get size(): number {
    this.sweep();
    return this.sessions.size;
  }

  get(owner: string | null, id: string): Session | undefined {
    const key = storeKey(owner, id);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    if (this.expired(session, this.clock())) {
      this.sessions.delete(key);
      return undefined;
    }
    this.touch(key, session);
    return session;
  }

  ensure(owner: string | null, id: string): Session {
    const existing = this.get(owner, id);
    if (existing) return existing;
    this.sweep();
    const now = nowIso();
    const session: Session = { id, owner, turns: [], values: {}, created_at: now, updated_at: now, usedAt: this.clock() };
    this.sessions.set(storeKey(owner, id), session);
    while (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    return session;
  }

  delete(session: Session): boolean {
    const key = storeKey(session.owner, session.id);
    return this.sessions.get(key) === session && this.sessions.delete(key);
  }

  /** Drops the sessions of `owner`; how many there were. */
  clear(owner: string | null): number {
    let count = 0;
    for (const [key, session] of this.sessions) {
      if (session.owner !== owner) continue;
      this.sessions.delete(key);
      count++;
    }
    return count;
  }

  /** The sessions of `owner`, least recently used first. */
  all(owner: string | null): Session[] {
    this.sweep();
    return [...this.sessions.values()].filter((session) => session.owner === owner);
  }

  private expired(session: Session, now: number): boolean {
    return now - session.usedAt > this.ttlMs;
  }

  /** Drops expired sessions: they sit at the front, least recently used first. */
  private sweep(): void {
    const now = this.clock();
    for (const [key, session] of this.sessions) {
      if (!this.expired(session, now)) break;
      this.sessions.delete(key);
    }
  }

  private touch(key: string, session: Session): void {
    session.usedAt = this.clock();
    session.updated_at = nowIso();
    this.sessions.delete(key);
    this.sessions.set(key, session);
  }
}

/** One key per (owner, id): the owner as a JSON string, or `-` for none, so no pair passes for another. */
function storeKey(owner: string | null, id: string): string {
  return `${owner === null ? '-' : JSON.stringify(owner)} ${id}`;
}
