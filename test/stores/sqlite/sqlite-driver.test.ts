// Which SQLite the registry store runs on: Node's own node:sqlite where this Node can load it
// (22.5 and newer), the better-sqlite3 package otherwise. The other registry tests run on
// whichever this is; this one says which, and that the store works through it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { withSqliteCode } from '../../../src/stores/sqlite/sqlite-driver.js';
import { SqliteRegistryStore } from '../../../src/stores/sqlite/sqlite-registry-store.js';

async function nodeHasSqlite(): Promise<boolean> {
  const specifier: string = 'node:sqlite';
  return import(specifier).then(
    () => true,
    () => false,
  );
}

test('the store opens on node:sqlite when Node has it, on better-sqlite3 when not, and works', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-sqlite-driver-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = new SqliteRegistryStore(join(dir, 'registry.db'));
  assert.equal(store.driver, null);
  await store.open();
  t.after(() => store.close());
  const expected = (await nodeHasSqlite()) ? 'node:sqlite' : 'better-sqlite3';
  t.diagnostic(`driver: ${store.driver}`);
  assert.equal(store.driver, expected);
  assert.equal(store.journalMode, 'wal');
  const card = { name: 'a', url: 'http://a', version: '1', tags: ['t'] } as never;
  assert.equal(await store.put({ card, last_seen: 1, metadata: {} }), true);
  assert.equal(store.count(), 1);
  assert.deepEqual(store.urls(), ['http://a']);
  assert.equal(store.prune(10_000, 1), 1);
  assert.equal(store.count(), 0);
});

// node:sqlite reports SQLite's result code as a number (errcode, the extended code); the store
// classifies failures by better-sqlite3's names. This Node may have no node:sqlite, so the
// translation is checked on the error objects node:sqlite documents.
const translations: Array<[string, Record<string, unknown>, string | undefined]> = [
  ['busy', { code: 'ERR_SQLITE_ERROR', errcode: 5, errstr: 'database is locked' }, 'SQLITE_BUSY'],
  ['an extended busy code (SQLITE_BUSY_SNAPSHOT)', { code: 'ERR_SQLITE_ERROR', errcode: 517 }, 'SQLITE_BUSY'],
  ['not a database', { code: 'ERR_SQLITE_ERROR', errcode: 26 }, 'SQLITE_NOTADB'],
  ['corrupt', { code: 'ERR_SQLITE_ERROR', errcode: 11 }, 'SQLITE_CORRUPT'],
  ['disk full', { code: 'ERR_SQLITE_ERROR', errcode: 13 }, 'SQLITE_FULL'],
  ['no errcode (an early node:sqlite)', { code: 'ERR_SQLITE_ERROR' }, 'SQLITE_ERROR'],
  ['an unlisted code', { code: 'ERR_SQLITE_ERROR', errcode: 23 }, 'SQLITE_ERROR_23'],
];
for (const [what, fields, code] of translations) {
  test(`a node:sqlite failure (${what}) carries ${code}, its message and the original as cause`, () => {
    const original = Object.assign(new Error('sqlite said no'), fields);
    const translated = withSqliteCode(original) as Error & { code: string };
    assert.equal(translated.code, code);
    assert.equal(translated.message, 'sqlite said no');
    assert.equal(translated.cause, original);
  });
}

test('an error that is not from node:sqlite is left as it is (better-sqlite3 already names its codes)', () => {
  const own = Object.assign(new Error('x'), { code: 'SQLITE_BUSY' });
  assert.equal(withSqliteCode(own), own);
  const other = new TypeError('y');
  assert.equal(withSqliteCode(other), other);
});
