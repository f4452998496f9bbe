// The `better-sqlite3` package is optional: it is loaded on first use, so a missing install
// fails only the SQLite registry store, with an error that names the package.
import { importOptional } from '../core/errors.js';

export type SqliteDatabase = import('better-sqlite3').Database;
type SqliteConstructor = typeof import('better-sqlite3');

let loading: Promise<SqliteConstructor> | null = null;

export function loadSqlite(): Promise<SqliteConstructor> {
  loading ??= importOptional<{ default: SqliteConstructor }>('better-sqlite3', 'the SQLite registry store').then(
    (module) => module.default,
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}
