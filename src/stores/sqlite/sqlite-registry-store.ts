// The embedded SQLite registry store (node:sqlite, or better-sqlite3 on Node 20: see
// sqlite-driver.ts), the persisted default of `parley serve registry`. Every read goes to the file, so several registry processes can share one file
// (WAL mode lets readers and a writer work at once; a busy writer waits busy_timeout). Writes
// are queued and committed together once per turn of the event loop, in order, each in its
// own savepoint: one fsync covers a burst of registrations, and none is acknowledged before
// its commit. Discovery uses SQL indexes on name, role and a table of tags.
import { resolve } from 'node:path';
import type { AgentCard, RegistryEntry } from '../../../generated/types/index.js';
import { checkLookupSize, mayWrite, type IndexKeys } from '../registry-entries.js';
import {
  firstColumn,
  immediateTransaction,
  inSavepoint,
  openSqlite,
  readPragma,
  type SqliteConnection,
  type SqliteDriverName,
  type SqliteStatement,
} from './sqlite-driver.js';
import { prepareSchema } from './sqlite-schema.js';
import { RegistryStoreError, type RegistryStoreErrorCode } from './sqlite-error.js';

export interface SqliteRegistryStoreOptions {
  /** How long a write waits for another process holding the file's write lock. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

interface Row {
  readonly card: string;
  readonly last_seen: number;
  readonly metadata: string;
  readonly owner: string | null;
}

type Statement = SqliteStatement;

interface Statements {
  readonly deleteTags: Statement;
  readonly deleteAgent: Statement;
  readonly insertAgent: Statement;
  readonly insertTag: Statement;
  readonly touch: Statement;
  readonly ownerOf: Statement;
  readonly get: Statement;
  readonly all: Statement;
  readonly urls: Statement;
  readonly count: Statement;
  readonly anyExpired: Statement;
  readonly pruneTags: Statement;
  readonly pruneAgents: Statement;
}

interface QueuedWrite {
  readonly run: () => unknown;
  /** A method, not a property, so a Promise<T>'s resolve fits: the queue holds writes of every T, and gets T from `run`. */
  resolve(value: unknown): void;
  readonly reject: (error: unknown) => void;
}

const SELECTED = 'a.card, a.last_seen, a.metadata, a.owner';
/** The expiry rule in SQL: `last_seen <= ?bound` lets the index find candidates, the rest decides. */
const EXPIRED = 'last_seen <= @bound AND (@now - last_seen) > @ttl';

export class SqliteRegistryStore {
  readonly kind = 'sqlite';
  private db: SqliteConnection | null = null;
  private statements: Statements | null = null;
  private readonly lookups = new Map<string, Statement>();
  private queue: QueuedWrite[] = [];
  private flushScheduled = false;

  constructor(
    readonly path: string,
    private readonly options: SqliteRegistryStoreOptions = {},
  ) {}

  get location(): string {
    return this.path === ':memory:' ? 'SQLite in memory (not persisted)' : resolve(this.path);
  }

  /** The journal mode in use: `wal` for a file, `memory` for `:memory:`. */
  get journalMode(): string | null {
    return this.db ? (readPragma(this.db, 'journal_mode') as string) : null;
  }

  /** Which SQLite is in use once open: Node's own `node:sqlite`, or the `better-sqlite3` package. */
  get driver(): SqliteDriverName | null {
    return this.db?.driver ?? null;
  }

  async open(): Promise<void> {
    if (this.db) return;
    let db: SqliteConnection | null = null;
    try {
      db = await openSqlite(this.path);
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(this.options.busyTimeoutMs ?? 5000))}`);
      db.exec('PRAGMA journal_mode = WAL');
      // FULL: a commit is on disk before it returns, so an acknowledged write survives a crash.
      db.exec('PRAGMA synchronous = FULL');
      prepareSchema(db, this.location);
      const check = readPragma(db, 'quick_check');
      if (check !== 'ok')
        throw new RegistryStoreError('store_corrupt', `${this.location} is corrupt: ${String(check)}`, this.location);
      this.statements = prepareStatements(db);
      this.db = db;
    } catch (error) {
      db?.close();
      throw this.storeError(error, 'open');
    }
  }

  close(): void {
    if (!this.db) return;
    this.flush();
    const db = this.db;
    this.db = null;
    this.statements = null;
    this.lookups.clear();
    db.close();
  }

  put(entry: RegistryEntry): Promise<boolean> {
    const card = entry.card;
    const text = JSON.stringify(card);
    const metadata = JSON.stringify(entry.metadata ?? {});
    const owner = entry.owner ?? null;
    // Each write runs in the group commit's IMMEDIATE transaction: the owner check and the write
    // are one step, also against another process on the same file.
    return this.write(() => {
      const s = this.ready();
      if (!this.mayWrite(card.url, owner)) return false;
      s.deleteTags.run(card.url);
      s.deleteAgent.run(card.url);
      s.insertAgent.run(card.url, card.name, card.role ?? '', text, entry.last_seen, metadata, owner);
      for (const tag of card.tags ?? []) s.insertTag.run(tag, card.url);
      return true;
    });
  }

  remove(url: string, owner?: string | null): Promise<boolean> {
    return this.write(() => {
      const s = this.ready();
      if (!this.mayWrite(url, owner)) return false;
      s.deleteTags.run(url);
      return s.deleteAgent.run(url).changes > 0;
    });
  }

  touch(url: string, lastSeen: number, owner?: string | null): Promise<boolean> {
    return this.write(() => this.mayWrite(url, owner) && this.ready().touch.run(lastSeen, url).changes > 0);
  }

  get(url: string): RegistryEntry | undefined {
    const row = this.read(() => this.ready().get.get(url) as Row | undefined);
    return row ? toEntry(row) : undefined;
  }

  lookup(keys: IndexKeys): RegistryEntry[] {
    // One join per tag: the bound keeps a query under SQLite's 64 tables in a join.
    checkLookupSize(keys);
    const tags = keys.tags ?? [];
    if (keys.name === undefined && keys.role === undefined && tags.length === 0) return [];
    const args: string[] = [...tags];
    if (keys.name !== undefined) args.push(keys.name);
    if (keys.role !== undefined) args.push(keys.role);
    return this.read(() => {
      const statement = this.lookupStatement(keys.name !== undefined, keys.role !== undefined, tags.length);
      return (statement.all(...args) as Row[]).map(toEntry);
    });
  }

  all(): RegistryEntry[] {
    return this.read(() => (this.ready().all.all() as Row[]).map(toEntry));
  }

  urls(): string[] {
    return this.read(() => this.ready().urls.all().map(firstColumn) as string[]);
  }

  count(): number {
    return this.read(() => firstColumn(this.ready().count.get()) as number);
  }

  prune(now: number, ttl: number): number {
    // A margin of a second on the indexed bound; the exact rule then decides.
    const params = { now, ttl, bound: now - ttl + 1 };
    return this.read(() => {
      const s = this.ready();
      if (!s.anyExpired.get(params)) return 0;
      return Number(
        immediateTransaction(this.db!, () => {
          s.pruneTags.run(params);
          return s.pruneAgents.run(params).changes;
        }),
      );
    });
  }

  /** Whether `caller` may write the entry at `url` (mayWrite in stores/registry-entries.ts); true when there is none. */
  private mayWrite(url: string, caller: string | null | undefined): boolean {
    if (caller == null) return true;
    const row = this.ready().ownerOf.get(url) as { owner: string | null } | undefined;
    return row === undefined || mayWrite(row.owner, caller);
  }

  /** Queues a write for the next group commit; resolves once it is committed. */
  private write<T>(run: () => T): Promise<T> {
    if (!this.db) return Promise.reject(this.closedError());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits every queued write in one transaction, each in its own savepoint. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const db = this.db;
    if (!db) {
      for (const write of batch) write.reject(this.closedError());
      return;
    }
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    let firstFailure: unknown = null;
    try {
      immediateTransaction(db, () => {
        for (const write of batch) {
          try {
            outcomes.push({ ok: true, value: inSavepoint(db, write.run) });
          } catch (error) {
            firstFailure ??= error;
            outcomes.push({ ok: false, value: this.storeError(error, 'write') });
          }
        }
      });
    } catch (error) {
      // Some errors (SQLITE_FULL, SQLITE_IOERR) roll the whole transaction back, and the commit
      // then fails with "no transaction is active": the write's own error is the cause to report.
      const failure = this.storeError(firstFailure ?? error, 'write');
      for (const write of batch) write.reject(failure);
      return;
    }
    batch.forEach((write, i) => {
      if (outcomes[i]!.ok) write.resolve(outcomes[i]!.value);
      else write.reject(outcomes[i]!.value);
    });
  }

  private read<T>(run: () => T): T {
    try {
      return run();
    } catch (error) {
      throw this.storeError(error, 'read');
    }
  }

  private ready(): Statements {
    if (!this.statements) throw this.closedError();
    return this.statements;
  }

  /** One statement per combination of indexed keys: the tags joined in, name and role compared. */
  private lookupStatement(name: boolean, role: boolean, tags: number): Statement {
    this.ready();
    const shape = `${name ? 'n' : ''}${role ? 'r' : ''}${tags}`;
    let statement = this.lookups.get(shape);
    if (!statement) {
      const joins = Array.from({ length: tags }, (_, i) => `JOIN agent_tags t${i} ON t${i}.url = a.url AND t${i}.tag = ?`);
      const where = [name && 'a.name = ?', role && 'a.role = ?'].filter(Boolean);
      const sql = `SELECT ${SELECTED} FROM agents a ${joins.join(' ')}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
      statement = this.db!.prepare(sql);
      this.lookups.set(shape, statement);
    }
    return statement;
  }

  private closedError(): RegistryStoreError {
    return new RegistryStoreError('store_unreadable', `the registry store ${this.location} is not open`, this.location);
  }

  /** A SQLite failure as a RegistryStoreError, decided by SQLite's error code. */
  private storeError(error: unknown, during: 'open' | 'read' | 'write'): unknown {
    if (error instanceof RegistryStoreError) return error;
    const sqliteCode = String((error as { code?: unknown }).code ?? '');
    if (!sqliteCode.startsWith('SQLITE_')) return error;
    const reason = error instanceof Error ? error.message : String(error);
    const [code, what] = classify(sqliteCode, during);
    return new RegistryStoreError(code, `${what} ${this.location}: ${reason} (${sqliteCode})`, this.location, { cause: error });
  }
}

function classify(sqliteCode: string, during: 'open' | 'read' | 'write'): [RegistryStoreErrorCode, string] {
  if (sqliteCode === 'SQLITE_NOTADB') return ['store_unreadable', 'not a SQLite database:'];
  if (sqliteCode.startsWith('SQLITE_CORRUPT')) return ['store_corrupt', 'the registry database is corrupt:'];
  if (sqliteCode.startsWith('SQLITE_BUSY') || sqliteCode.startsWith('SQLITE_LOCKED')) {
    return ['store_busy', 'another process holds the registry database:'];
  }
  if (during === 'write') return ['store_write_failed', 'could not write the registry database'];
  return ['store_unreadable', 'could not read the registry database'];
}

function toEntry(row: Row): RegistryEntry {
  const entry: RegistryEntry = {
    card: JSON.parse(row.card) as AgentCard,
    last_seen: row.last_seen,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
  // Present only when set, as in the other stores.
  if (row.owner !== null) entry.owner = row.owner;
  return entry;
}

function prepareStatements(db: SqliteConnection): Statements {
  return {
    deleteTags: db.prepare('DELETE FROM agent_tags WHERE url = ?'),
    deleteAgent: db.prepare('DELETE FROM agents WHERE url = ?'),
    insertAgent: db.prepare(
      'INSERT INTO agents (url, name, role, card, last_seen, metadata, owner) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertTag: db.prepare('INSERT OR IGNORE INTO agent_tags (tag, url) VALUES (?, ?)'),
    touch: db.prepare('UPDATE agents SET last_seen = ? WHERE url = ?'),
    ownerOf: db.prepare('SELECT owner FROM agents WHERE url = ?'),
    get: db.prepare(`SELECT ${SELECTED} FROM agents a WHERE a.url = ?`),
    all: db.prepare(`SELECT ${SELECTED} FROM agents a ORDER BY a.last_seen`),
    urls: db.prepare('SELECT url FROM agents ORDER BY last_seen'),
    count: db.prepare('SELECT count(*) FROM agents'),
    anyExpired: db.prepare(`SELECT 1 FROM agents WHERE ${EXPIRED} LIMIT 1`),
    pruneTags: db.prepare(`DELETE FROM agent_tags WHERE url IN (SELECT url FROM agents WHERE ${EXPIRED})`),
    pruneAgents: db.prepare(`DELETE FROM agents WHERE ${EXPIRED}`),
  };
}
