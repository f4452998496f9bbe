// The `better-sqlite3` package is optional: it is loaded on first use, so a missing install
// fails only the SQLite registry store, with an error that names the package.
import { importOptional } from '../../core/errors.js';
import { lazyLoader } from '../../core/lazy-import.js';

export type SqliteDatabase = import('better-sqlite3').Database;
type SqliteConstructor = typeof import('better-sqlite3');

export const loadSqlite: () => Promise<SqliteConstructor> = lazyLoader(
  async () => (await importOptional<{ default: SqliteConstructor }>('better-sqlite3', 'the SQLite registry store')).default,
);
