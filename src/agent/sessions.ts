// Per-session agent state: the model conversation and free-form values. A session belongs to
// the principal that made it: sessions are stored under (owner, id), so another principal
// naming the same id finds nothing (and would make a session of its own), exactly as for an id
// nobody used. Bounded in number and in bytes, all sessions together (the least recently used
// session is dropped first), and in age (a session unused for longer than its time to live is
// dropped when the store next looks at it). One session is bounded in bytes too: its oldest
// turns are dropped to fit, and a value that alone would not fit is refused.
import type { SecurityContext } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
import { normalizeJson } from '../core/json/normalize.js';
import type { ChatTurn } from '../llm/language-model.js';

export interface Session {
  readonly id: string;
  /** The principal that made it; null without an authenticator (or for a caller with no identity). */
  readonly owner: string | null;
  /** The conversation; replaced through SessionStore.setTurns, which keeps it in bounds. */
  turns: readonly ChatTurn[];
  /** Values as their JSON text, by key; changed through SessionStore.setValue and deleteValue. */
  readonly values: Map<string, string>;
  /** The JSON bytes of `turns`, and of `values` (keys and texts), as the bounds count them. */
  turnBytes: number;
  valueBytes: number;
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
  /** A copy of the stored value: change it with `set`. */
  get(key: string): unknown;
  /**
   * Stores a copy of `value` as plain JSON; `undefined` deletes the key. Throws an
   * InvalidArgumentError `session_too_large` when the session's values would not fit in one
   * session's byte bound.
   */
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

  readonly get = (key: string): unknown => {
    const text = this.store.get(this.owner, this.id)?.values.get(key);
    return text === undefined ? undefined : JSON.parse(text);
  };

  readonly set = (key: string, value: unknown): void => {
    if (value === undefined) {
      this.delete(key);
      return;
    }
    const text = JSON.stringify(normalizeJson(value));
    this.store.setValue(this.store.ensure(this.owner, this.id), key, text);
  };

  readonly delete = (key: string): boolean => {
    const session = this.store.get(this.owner, this.id);
    return session !== undefined && this.store.deleteValue(session, key);
  };

  readonly has = (key: string): boolean => this.store.get(this.owner, this.id)?.values.has(key) ?? false;

  readonly keys = (): string[] => [...(this.store.get(this.owner, this.id)?.values.keys() ?? [])];
}

/** Who owns what a request makes or names: its principal, or null without one. */
export function sessionOwner(security: SecurityContext | null | undefined): string | null {
  return security?.principal_id ?? null;
}

export interface SessionBounds {
  /** Sessions kept at most. Default 1024. */
  readonly maxSessions?: number;
  /** How long a session may go unused, in ms. Default one hour. */
  readonly ttlMs?: number;
  /** JSON bytes of all sessions together (turns and values). Default 64 MiB. */
  readonly totalBytes?: number;
  /** JSON bytes of one session; never more than totalBytes. Default 4 MiB. */
  readonly sessionBytes?: number;
  /** What Date.now() is, for the time to live (tests turn it forward). */
  readonly clock?: () => number;
}

const DEFAULT_MAX_SESSIONS = 1024;
const DEFAULT_SESSION_TTL_MS = 3_600_000;
/** As idempotency_cache_bytes: what a default agent may hold for its callers. */
const DEFAULT_TOTAL_SESSION_BYTES = 64 * 1024 * 1024;
/** About a million tokens: more than most models read at once. */
const DEFAULT_SESSION_BYTES = 4 * 1024 * 1024;

export class SessionStore {
  /** By owner and id (see storeKey), least recently used first. */
  private readonly sessions = new Map<string, Session>();
  /** The bytes of every stored session. */
  private bytes = 0;
  readonly maxSessions: number;
  readonly ttlMs: number;
  readonly totalBytes: number;
  readonly sessionBytes: number;
  private readonly clock: () => number;

  constructor(bounds: SessionBounds = {}) {
    this.maxSessions = bounds.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.ttlMs = bounds.ttlMs ?? DEFAULT_SESSION_TTL_MS;
    this.totalBytes = bounds.totalBytes ?? DEFAULT_TOTAL_SESSION_BYTES;
    this.sessionBytes = Math.min(bounds.sessionBytes ?? DEFAULT_SESSION_BYTES, this.totalBytes);
    this.clock = bounds.clock ?? Date.now;
  }

  /** Sessions kept, whoever owns them. */
  get size(): number {
    this.sweep();
    return this.sessions.size;
  }

  /** JSON bytes of every session kept, whoever owns them. */
  get totalSize(): number {
    this.sweep();
    return this.bytes;
  }

  get(owner: string | null, id: string): Session | undefined {
    const key = storeKey(owner, id);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    if (this.expired(session, this.clock())) {
      this.drop(key, session);
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
    const session: Session = {
      id,
      owner,
      turns: [],
      values: new Map(),
      turnBytes: 0,
      valueBytes: 0,
      created_at: now,
      updated_at: now,
      usedAt: this.clock(),
    };
    this.sessions.set(storeKey(owner, id), session);
    while (this.sessions.size > this.maxSessions) this.dropOldest();
    return session;
  }

  /**
   * Replaces the conversation of `session`, dropping its oldest turns until the session fits in
   * its bound, then the least recently used other sessions until all fit in theirs. Returns how
   * many turns were dropped. A session no longer stored (reset or evicted meanwhile) is left be.
   */
  setTurns(session: Session, turns: readonly ChatTurn[]): number {
    if (!this.holds(session)) return 0;
    const fitted = fitTurns(turns, this.sessionBytes - session.valueBytes);
    this.resize(session, fitted.bytes, session.valueBytes);
    session.turns = fitted.turns;
    this.evictFor(session);
    return turns.length - fitted.turns.length;
  }

  /** Stores a value's JSON text; refuses one that would make the values alone outgrow the session's bound. */
  setValue(session: Session, key: string, text: string): void {
    const before = session.values.get(key);
    const valueBytes = session.valueBytes - entryBytes(key, before) + entryBytes(key, text);
    if (valueBytes > this.sessionBytes) {
      throw new InvalidArgumentError(
        `session values would take ${valueBytes} bytes, over the ${this.sessionBytes} bytes one session may hold`,
        'session_too_large',
      );
    }
    if (!this.holds(session)) return;
    session.values.set(key, text);
    this.resize(session, session.turnBytes, valueBytes);
    // The values fit; the conversation gives way to them.
    if (session.turnBytes + valueBytes > this.sessionBytes) this.setTurns(session, session.turns);
    this.evictFor(session);
  }

  deleteValue(session: Session, key: string): boolean {
    const text = session.values.get(key);
    if (text === undefined) return false;
    session.values.delete(key);
    if (this.holds(session)) this.resize(session, session.turnBytes, session.valueBytes - entryBytes(key, text));
    return true;
  }

  delete(session: Session): boolean {
    if (!this.holds(session)) return false;
    this.drop(storeKey(session.owner, session.id), session);
    return true;
  }

  /** Drops the sessions of `owner`; how many there were. */
  clear(owner: string | null): number {
    let count = 0;
    for (const [key, session] of this.sessions) {
      if (session.owner !== owner) continue;
      this.drop(key, session);
      count++;
    }
    return count;
  }

  /** The sessions of `owner`, least recently used first. */
  all(owner: string | null): Session[] {
    this.sweep();
    return [...this.sessions.values()].filter((session) => session.owner === owner);
  }

  private holds(session: Session): boolean {
    return this.sessions.get(storeKey(session.owner, session.id)) === session;
  }

  private resize(session: Session, turnBytes: number, valueBytes: number): void {
    this.bytes += turnBytes + valueBytes - session.turnBytes - session.valueBytes;
    session.turnBytes = turnBytes;
    session.valueBytes = valueBytes;
  }

  /** Drops the least recently used sessions but `keep` until all fit in the total bound. */
  private evictFor(keep: Session): void {
    for (const [key, session] of this.sessions) {
      if (this.bytes <= this.totalBytes) return;
      if (session !== keep) this.drop(key, session);
    }
  }

  private dropOldest(): void {
    const [key, session] = this.sessions.entries().next().value!;
    this.drop(key, session);
  }

  private drop(key: string, session: Session): void {
    this.sessions.delete(key);
    this.bytes -= session.turnBytes + session.valueBytes;
  }

  private expired(session: Session, now: number): boolean {
    return now - session.usedAt > this.ttlMs;
  }

  /** Drops expired sessions: they sit at the front, least recently used first. */
  private sweep(): void {
    const now = this.clock();
    for (const [key, session] of this.sessions) {
      if (!this.expired(session, now)) break;
      this.drop(key, session);
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

/** A value's share of a session: its key and its JSON text (nothing for a value not there). */
function entryBytes(key: string, text: string | undefined): number {
  return text === undefined ? 0 : Buffer.byteLength(key) + Buffer.byteLength(text);
}

/** Turns are never changed once made, so each is measured once. */
const turnSizes = new WeakMap<ChatTurn, number>();

function turnBytes(turn: ChatTurn): number {
  let bytes = turnSizes.get(turn);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(turn));
    turnSizes.set(turn, bytes);
  }
  return bytes;
}

/**
 * The newest turns that fit in `budget` bytes, and their bytes. A tool turn is never kept
 * without the assistant turn that asked for it (providers refuse such a history).
 */
function fitTurns(turns: readonly ChatTurn[], budget: number): { turns: readonly ChatTurn[]; bytes: number } {
  let bytes = 0;
  let from = turns.length;
  while (from > 0) {
    const next = bytes + turnBytes(turns[from - 1]!);
    if (next > budget) break;
    bytes = next;
    from--;
  }
  while (from < turns.length && turns[from]!.role === 'tool') bytes -= turnBytes(turns[from++]!);
  return { turns: from === 0 ? turns : turns.slice(from), bytes };
}
