// Which SQLite the registry store runs on: Node's own node:sqlite where this Node can load it
// (22.5 and newer), the better-sqlite3 package otherwise. The other registry tests run on
// whichever this is; this one says which, and that the store works through it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
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
