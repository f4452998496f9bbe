// The SQLite the registry store runs on: Node's own `node:sqlite` where this Node has it
// (22.5 and newer; before 22.13 only with --experimental-sqlite), else the optional package
// `better-sqlite3` (Node 20). Both are reached through the few calls the store makes, with
// transactions written out as SQL so they behave the same on either, and failures carrying
// SQLite's own code name (`SQLITE_BUSY`, ...) whichever driver raised them.
import { importOptional } from '../../core/errors.js';
import { lazyLoader } from '../../core/lazy-import.js';

export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

type Parameters = ReadonlyArray<unknown>;

export interface SqliteStatement {
  run(...params: Parameters): { readonly changes: number | bigint };
  get(...params: Parameters): unknown;
  all(...params: Parameters): unknown[];
}

export interface SqliteConnection {
  readonly driver: SqliteDriverName;
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/** The part of either driver's database object the store uses: the two agree on these. */
interface DriverDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  close(): unknown;
}

type Open = (path: string) => DriverDatabase;

/** node:sqlite's numeric result codes, by the names better-sqlite3 and the store use. */
const RESULT_CODES: Readonly<Record<number, string>> = {
  1: 'SQLITE_ERROR',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
  26: 'SQLITE_NOTADB',
};

const loadDriver = lazyLoader(async (): Promise<{ name: SqliteDriverName; open: Open }> => {
  const builtin = await importNodeSqlite();
  if (builtin) return { name: 'node:sqlite', open: (path) => new builtin.DatabaseSync(path) };
  const { default: Database } = await importOptional<{ default: new (path: string) => DriverDatabase }>(
    'better-sqlite3',
    'the SQLite registry store (this Node has no node:sqlite)',
  );
  return { name: 'better-sqlite3', open: (path) => new Database(path) };
});

/** Opens (creating if need be) the database at `path`, or `:memory:`. */
export async function openSqlite(path: string): Promise<SqliteConnection> {
  const driver = await loadDriver();
  return new Connection(
    driver.name,
    translated(() => driver.open(path)),
  );
}

/** Reads one pragma's value (the first column of its row). */
export function readPragma(db: SqliteConnection, name: string): unknown {
  return firstColumn(db.prepare(`PRAGMA ${name}`).get());
}

/** The first column of a row, or undefined for no row: for `SELECT count(*)` and the like. */
export function firstColumn(row: unknown): unknown {
  return row === undefined ? undefined : Object.values(row as object)[0];
}

/** Runs `run` in a BEGIN IMMEDIATE transaction: committed if it returns, rolled back if it throws. */
export function immediateTransaction<T>(db: SqliteConnection, run: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  let result: T;
  try {
    result = run();
    db.exec('COMMIT');
  } catch (error) {
    // Some failures (SQLITE_FULL, SQLITE_IOERR) have already rolled the transaction back.
    quietly(() => db.exec('ROLLBACK'));
    throw error;
  }
  return result;
}

/** Runs `run` inside the open transaction as a savepoint: its failure undoes only its own writes. */
export function inSavepoint<T>(db: SqliteConnection, run: () => T): T {
  db.exec('SAVEPOINT one_write');
  try {
    const result = run();
    db.exec('RELEASE one_write');
    return result;
  } catch (error) {
    quietly(() => db.exec('ROLLBACK TO one_write'));
    quietly(() => db.exec('RELEASE one_write'));
    throw error;
  }
}

class Connection implements SqliteConnection {
  constructor(
    readonly driver: SqliteDriverName,
    private readonly db: DriverDatabase,
  ) {}

  exec(sql: string): void {
    translated(() => this.db.exec(sql));
  }

  prepare(sql: string): SqliteStatement {
    const statement = translated(() => this.db.prepare(sql));
    return {
      run: (...params) => translated(() => statement.run(...params)),
      get: (...params) => translated(() => statement.get(...params)),
      all: (...params) => translated(() => statement.all(...params)),
    };
  }

  close(): void {
    this.db.close();
  }
}

/** A variable, not a literal: Node 20's types have no `node:sqlite`. */
const NODE_SQLITE: string = 'node:sqlite';

/** `node:sqlite`, or null where this Node has none (Node 20, or 22.5-22.12 without the flag). */
async function importNodeSqlite(): Promise<{ DatabaseSync: new (path: string) => DriverDatabase } | null> {
  // Loading it prints an ExperimentalWarning on the Node versions that have it; that line would
  // land in every `serve registry` log, so that one warning (and no other) is dropped.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/i.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return (await import(NODE_SQLITE)) as { DatabaseSync: new (path: string) => DriverDatabase };
  } catch {
    return null;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Runs a driver call, giving a node:sqlite failure the `SQLITE_*` code better-sqlite3 would. */
function translated<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw withSqliteCode(error);
  }
}

/** A node:sqlite failure as an Error whose `code` is SQLite's name for it; any other error as it is. */
export function withSqliteCode(error: unknown): unknown {
  const failure = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (failure?.code !== 'ERR_SQLITE_ERROR') return error;
  // errcode is the extended result code; its low byte is the primary one. A Node too early to
  // set it still gets a SQLite code, the generic one.
  const primary = typeof failure.errcode === 'number' ? failure.errcode & 0xff : 1;
  const code = RESULT_CODES[primary] ?? `SQLITE_ERROR_${primary}`;
  return Object.assign(new Error(String(failure.message), { cause: error }), { code });
}

function quietly(run: () => unknown): void {
  try {
    run();
  } catch {
    // Nothing left to undo.
  }
}
