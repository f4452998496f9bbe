// The layout of a registry database file and how an older file is brought up to date. A file
// is recognised by its application id; its layout version is SQLite's user_version. Each
// migration takes a file from version i to i + 1 and runs in the transaction that records the
// new version, so a crash half-way leaves the old version intact.
import { immediateTransaction, readPragma, type SqliteConnection } from './sqlite-driver.js';
import { RegistryStoreError } from './sqlite-error.js';

/** "PRLY": marks a SQLite file as a parley registry. */
const APPLICATION_ID = 0x50524c59;

const MIGRATIONS: ReadonlyArray<(db: SqliteConnection) => void> = [
  // 0 -> 1: cards by URL, with the columns discovery indexes, and a table of tags.
  (db) => {
    db.exec(`
      CREATE TABLE agents (
        url TEXT PRIMARY KEY NOT NULL,
        name TEXT NOT NULL,
        role TEXT NOT NULL,
        card TEXT NOT NULL,
        last_seen REAL NOT NULL,
        metadata TEXT NOT NULL
      );
      CREATE INDEX agents_by_name ON agents (name);
      CREATE INDEX agents_by_role ON agents (role);
      CREATE INDEX agents_by_last_seen ON agents (last_seen);
      CREATE TABLE agent_tags (
        tag TEXT NOT NULL,
        url TEXT NOT NULL,
        PRIMARY KEY (tag, url)
      ) WITHOUT ROWID;
      CREATE INDEX agent_tags_by_url ON agent_tags (url);
    `);
  },
  // 1 -> 2: the principal that owns each entry. Existing rows get null: anyone's, as they were.
  (db) => {
    db.exec('ALTER TABLE agents ADD COLUMN owner TEXT');
  },
];

/** The layout version this parley writes. */
const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Checks that the file is a parley registry this version can read, creating the layout in an
 * empty file and migrating an older one. Runs under a write lock, so two processes opening the
 * same new file do not both create it.
 */
export function prepareSchema(db: SqliteConnection, location: string): void {
  immediateTransaction(db, () => {
    const applicationId = Number(readPragma(db, 'application_id'));
    const version = Number(readPragma(db, 'user_version'));
    if (applicationId === 0 && version === 0) {
      const objects = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").get() as { n: number };
      if (objects.n > 0) {
        throw new RegistryStoreError(
          'store_foreign',
          `${location} is a SQLite database of another program, not a parley registry`,
          location,
        );
      }
      db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    } else if (applicationId !== APPLICATION_ID) {
      throw new RegistryStoreError(
        'store_foreign',
        `${location} is a SQLite database of another program, not a parley registry`,
        location,
      );
    }
    if (version > SCHEMA_VERSION) {
      throw new RegistryStoreError(
        'store_too_new',
        `${location} has registry layout version ${version}, newer than this parley reads (${SCHEMA_VERSION}); upgrade parley`,
        location,
      );
    }
    for (let from = version; from < SCHEMA_VERSION; from++) MIGRATIONS[from]!(db);
    if (version !== SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  });
}
