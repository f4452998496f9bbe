// The SQLite store under faults, with real processes: entries survive a restart; a registry
// killed with SIGKILL in the middle of a burst of concurrent registrations loses none that it
// acknowledged; a file that is not a database, belongs to another program, is corrupt or was
// written by a newer layout is refused at start with a clear error, never opened as an empty
// registry; and two registries on one file work together (WAL: each reads the other's commits).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RegistryClient } from '../../../src/client/registry-client.js';
import { SqliteRegistryStore } from '../../../src/stores/sqlite/sqlite-registry-store.js';
import { RegistryStoreError } from '../../../src/stores/sqlite/sqlite-error.js';
import { REGISTRY_STATUS } from '../../../generated/operations/registry.js';
import { failure } from '../../support/cross-transport.js';
import { card } from '../../support/registry-harness.js';
import { failedStart, startRegistryProcess, type RegistryProcess } from '../../registry/registry-process.js';

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-faults-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(t: { after(fn: () => unknown): void }, args: readonly string[]): Promise<RegistryProcess> {
  const registry = await startRegistryProcess(args);
  t.after(() => registry.stop('SIGKILL'));
  return registry;
}

function clientOf(t: { after(fn: () => unknown): void }, url: string): RegistryClient {
  const client = new RegistryClient(url);
  t.after(() => client.close());
  return client;
}

const urls = (cards: ReadonlyArray<{ url: string }>) => cards.map((c) => c.url).sort();

describe('SQLite registry store with real processes', () => {
  test('entries survive a restart on the same file', async (t) => {
    const db = join(scratch(t), 'registry.db');
    const first = await started(t, ['--db', db]);
    const client = clientOf(t, first.url);
    for (let i = 0; i < 3; i++)
      assert.equal(
        (await client.register(card(`http://agent-${i}`, `agent-${i}`, { tags: ['kept'] }))).status,
        REGISTRY_STATUS.registered,
      );
    assert.equal(await first.stop('SIGTERM'), 0);
    await client.close();
    const second = await started(t, ['--db', db]);
    assert.match(second.output(), /store: sqlite .*registry\.db \(3 agents\)/);
    const again = clientOf(t, second.url);
    assert.deepEqual(urls(await again.discover({ tags: 'kept' })), ['http://agent-0', 'http://agent-1', 'http://agent-2']);
  });

  test('SIGKILL in the middle of a burst of concurrent registrations loses no acknowledged one', {
    timeout: 60_000,
  }, async (t) => {
    const db = join(scratch(t), 'registry.db');
    const registry = await started(t, ['--db', db]);
    const client = clientOf(t, registry.url);
    const acknowledged = new Set<string>();
    const total = 600;
    let killed = false;
    const burst = Array.from({ length: total }, async (_, i) => {
      const url = `http://burst-${i}`;
      const outcome = await client.register(card(url, `burst-${i % 10}`, { role: 'burst', tags: [`t${i % 7}`] }));
      if (outcome.status === REGISTRY_STATUS.registered) acknowledged.add(url);
      // Kill once a good share is acknowledged: the rest are queued, in flight or unsent.
      if (!killed && acknowledged.size >= total / 4) {
        killed = true;
        registry.child.kill('SIGKILL');
      }
      return outcome;
    });
    const outcomes = await Promise.all(burst);
    assert.equal(await registry.exited, 'SIGKILL');
    const failed = outcomes.filter((o) => o.error !== undefined).length;
    assert.ok(failed > 0, 'the kill landed in the middle of the burst');
    assert.equal(acknowledged.size + failed, total);
    await client.close();

    const restarted = await started(t, ['--db', db]);
    const after = clientOf(t, restarted.url);
    const present = new Set(urls(await after.discover({ role: 'burst' })));
    const lost = [...acknowledged].filter((url) => !present.has(url));
    assert.deepEqual(lost, [], `${lost.length} acknowledged registrations lost of ${acknowledged.size}`);
    // What is there is whole: each card found under its own indexes as well.
    assert.equal(
      (await after.discover({ tags: 't0', role: 'burst' })).length,
      [...present].filter((u) => Number(u.split('-')[1]) % 7 === 0).length,
    );
  });

  test('a file that is not a SQLite database is refused at start, named, with the reason', async (t) => {
    const dir = scratch(t);
    const db = join(dir, 'garbage.db');
    writeFileSync(db, 'this is a text file, not a database. '.repeat(200));
    const error = await failure(new SqliteRegistryStore(db).open());
    assert.ok(error instanceof RegistryStoreError, `${error.name}: ${error.message}`);
    assert.equal(error.code, 'store_unreadable');
    assert.ok(error.message.includes(db));
    const cli = await failedStart(['--db', db]);
    assert.equal(cli.code, 1);
    assert.match(cli.output, /^parley: could not start the registry: .*garbage\.db/m);
    assert.equal(statSync(db).size, 'this is a text file, not a database. '.length * 200, 'the file is left as it was');
  });

  test('a SQLite database of another program is refused, not taken over', async (t) => {
    const db = join(scratch(t), 'other.db');
    const other = new Database(db);
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (1)');
    other.close();
    const error = await failure(new SqliteRegistryStore(db).open());
    assert.ok(error instanceof RegistryStoreError);
    assert.equal(error.code, 'store_foreign');
    const check = new Database(db, { readonly: true });
    t.after(() => check.close());
    assert.deepEqual(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all(), ['invoices']);
  });

  test('a registry file written by a newer layout is refused with store_too_new', async (t) => {
    const db = join(scratch(t), 'newer.db');
    const store = new SqliteRegistryStore(db);
    await store.open();
    await store.put({ card: card('http://a', 'a'), last_seen: 1, metadata: {} });
    store.close();
    const raw = new Database(db);
    raw.pragma('user_version = 99');
    raw.close();
    const error = await failure(new SqliteRegistryStore(db).open());
    assert.ok(error instanceof RegistryStoreError);
    assert.equal(error.code, 'store_too_new');
  });

  test("a layout 1 file (before owners) is migrated: its entries stay, anyone's, and new ones get an owner", async (t) => {
    const db = join(scratch(t), 'layout1.db');
    // The file as parley wrote it before owners: layout version 1, no owner column.
    const raw = new Database(db);
    raw.pragma('application_id = 1347570777');
    raw.exec(`
      CREATE TABLE agents (url TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, role TEXT NOT NULL,
        card TEXT NOT NULL, last_seen REAL NOT NULL, metadata TEXT NOT NULL);
      CREATE INDEX agents_by_name ON agents (name);
      CREATE INDEX agents_by_role ON agents (role);
      CREATE INDEX agents_by_last_seen ON agents (last_seen);
      CREATE TABLE agent_tags (tag TEXT NOT NULL, url TEXT NOT NULL, PRIMARY KEY (tag, url)) WITHOUT ROWID;
      CREATE INDEX agent_tags_by_url ON agent_tags (url);
    `);
    raw
      .prepare('INSERT INTO agents VALUES (?, ?, ?, ?, ?, ?)')
      .run('http://old', 'old', '', JSON.stringify(card('http://old', 'old', { tags: ['kept'] })), 5, '{}');
    raw.prepare('INSERT INTO agent_tags VALUES (?, ?)').run('kept', 'http://old');
    raw.pragma('user_version = 1');
    raw.close();

    const store = new SqliteRegistryStore(db);
    await store.open();
    t.after(() => store.close());
    assert.deepEqual(await store.lookup({ tags: ['kept'] }), [
      { card: card('http://old', 'old', { tags: ['kept'] }), last_seen: 5, metadata: {} },
    ]);
    assert.equal(await store.put({ card: card('http://old', 'claimed'), last_seen: 6, metadata: {}, owner: 'alice' }), true);
    assert.equal(await store.put({ card: card('http://old', 'bobs'), last_seen: 7, metadata: {}, owner: 'bob' }), false);
    assert.equal((await store.get('http://old'))?.owner, 'alice');
    const check = new Database(db, { readonly: true });
    t.after(() => check.close());
    assert.equal(check.pragma('user_version', { simple: true }), 2);
  });

  test('a corrupt registry file is refused at start, not opened as an empty registry', async (t) => {
    const db = join(scratch(t), 'corrupt.db');
    const store = new SqliteRegistryStore(db);
    await store.open();
    for (let i = 0; i < 2000; i++)
      await store.put({ card: card(`http://c-${i}`, `c-${i}`, { tags: ['x', `y${i}`] }), last_seen: i, metadata: {} });
    store.close();
    const size = statSync(db).size;
    assert.ok(size > 16 * 4096, `database of ${size} bytes spans many pages`);
    // Scribble over the middle pages (b-tree pages of the tables and indexes), not the header.
    const fd = openSync(db, 'r+');
    writeSync(fd, Buffer.alloc(8 * 4096, 0xa5), 0, 8 * 4096, 4 * 4096);
    closeSync(fd);
    const error = await failure(new SqliteRegistryStore(db).open());
    assert.ok(error instanceof RegistryStoreError, `${error.name}: ${error.message}`);
    assert.equal(error.code, 'store_corrupt');
    const cli = await failedStart(['--db', db]);
    assert.equal(cli.code, 1);
    assert.match(cli.output, /could not start the registry: .*corrupt/);
  });

  test('a path that cannot be opened (a directory) is refused with store_unreadable', async (t) => {
    const dir = join(scratch(t), 'a-directory');
    mkdirSync(dir);
    const error = await failure(new SqliteRegistryStore(dir).open());
    assert.ok(error instanceof RegistryStoreError, `${error.name}: ${error.message}`);
    assert.equal(error.code, 'store_unreadable');
  });

  test("two registries on one file work together: each sees the other's writes", { timeout: 60_000 }, async (t) => {
    const db = join(scratch(t), 'shared.db');
    const a = await started(t, ['--db', db]);
    const b = await started(t, ['--db', db]);
    const viaA = clientOf(t, a.url);
    const viaB = clientOf(t, b.url);
    assert.equal((await viaA.register(card('http://one', 'one', { tags: ['shared'] }))).status, REGISTRY_STATUS.registered);
    assert.deepEqual(urls(await viaB.discover({ tags: 'shared' })), ['http://one']);
    assert.equal((await viaB.heartbeat('http://one')).status, REGISTRY_STATUS.heartbeat);
    assert.equal((await viaB.unregister('http://one')).status, REGISTRY_STATUS.unregistered);
    assert.deepEqual(await viaA.discover({ tags: 'shared' }), []);
    // Concurrent bursts into both: every acknowledged registration is visible through either.
    const burst = (client: RegistryClient, prefix: string) =>
      Promise.all(
        Array.from({ length: 150 }, (_, i) => client.register(card(`http://${prefix}-${i}`, prefix, { tags: ['burst'] }))),
      );
    const outcomes = [...(await burst(viaA, 'a')), ...(await Promise.all([burst(viaB, 'b'), burst(viaA, 'c')])).flat()];
    for (const outcome of outcomes) assert.equal(outcome.status, REGISTRY_STATUS.registered);
    assert.equal((await viaA.discover({ tags: 'burst' })).length, 450);
    assert.equal((await viaB.discover({ tags: 'burst' })).length, 450);
    assert.deepEqual(urls(await viaA.discover({ name: 'b' })), urls(await viaB.discover({ name: 'b' })));
  });
});
