// Issue 28 defect 8: a discovery with many filter values, and a store that fails. A query past
// MAX_FILTER_VALUES is refused with 400 on every store before any store sees it (64 tags used
// to reach SQLite's join limit and answer 500 with SQLite's own text), and a store failure
// answers a stable code: never the database file's path nor SQLite's message. The full disk is
// real: SQLite's max_page_count caps the file where it stands.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstColumn, type SqliteConnection } from '../../src/stores/sqlite/sqlite-driver.js';
import type { Logger } from '../../src/observability/logger.js';
import { MemoryRegistryStore } from '../../src/stores/memory/memory-registry-store.js';
import { MAX_FILTER_VALUES, type RegistryStore } from '../../src/registry/registry-store.js';
import { SqliteRegistryStore } from '../../src/stores/sqlite/sqlite-registry-store.js';
import { failure } from '../support/cross-transport.js';
import { card, startRegistry } from '../support/registry-harness.js';

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-limits-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag-${i}`);

/** Fetches GET /agents/ with the query as it is, and answers status and body text. */
async function getAgents(url: string, query: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url.replace(/\/$/, '')}/agents/?${query}`);
  return { status: response.status, text: await response.text() };
}

describe('registry discovery: the number of filter values is bounded', () => {
  for (const kind of ['memory', 'sqlite'] as const) {
    test(`${kind}: 64 tags answer 400 invalid_request naming the limit, not a store's 500`, async (t) => {
      const store: RegistryStore =
        kind === 'memory' ? new MemoryRegistryStore() : new SqliteRegistryStore(join(scratch(t), 'registry.db'));
      const h = await startRegistry(t, 'http', { store });
      await h.client.register(card('http://a', 'a', { tags: tags(64) }));
      const answer = await getAgents(
        h.url,
        tags(64)
          .map((tag) => `tags=${tag}`)
          .join('&'),
      );
      assert.equal(answer.status, 400, answer.text);
      const body = errorOf(answer.text);
      assert.equal(body.code, 'invalid_request');
      assert.match(body.message, new RegExp(`at most ${MAX_FILTER_VALUES} filter values`));
      assert.deepEqual(body.details, { limit: MAX_FILTER_VALUES, size: 64 });
      assert.doesNotMatch(answer.text, /sqlite|join|\.db/i);
      // At the limit the query is served, on the indexes.
      const atLimit = await getAgents(h.url, `tags=${tags(MAX_FILTER_VALUES).join(',')}`);
      assert.equal(atLimit.status, 200, atLimit.text);
      assert.equal((JSON.parse(atLimit.text) as unknown[]).length, 1);
    });
  }

  test('every value counts: name, role, tags and other attributes together', async (t) => {
    const h = await startRegistry(t, 'websocket');
    const error = await failure(h.client.discover({ name: 'a', role: 'r', tags: tags(MAX_FILTER_VALUES - 1) }));
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.statusCode, 400);
    assert.deepEqual(await h.client.discover({ name: 'a', tags: tags(MAX_FILTER_VALUES - 1) }), []);
  });
});

describe('registry store failures reach clients as a stable code', () => {
  test('a full disk (SQLite max_page_count) answers 500 store_write_failed without the path or SQLite text', async (t) => {
    const path = join(scratch(t), 'registry.db');
    const store = new SqliteRegistryStore(path);
    const lines: Array<Record<string, unknown>> = [];
    const logger = recordingLogger(lines);
    const h = await startRegistry(t, 'http', { store, logger });
    // The file may not grow past the pages it has now: the next card that needs a page fails.
    const db = (store as unknown as { db: SqliteConnection }).db;
    db.exec(`PRAGMA max_page_count = ${Number(firstColumn(db.prepare('PRAGMA page_count').get()))}`);
    const big = card('http://big', 'big', { description: 'x'.repeat(32_000) });
    const response = await fetch(`${h.url.replace(/\/$/, '')}/agents/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(big),
    });
    const text = await response.text();
    assert.equal(response.status, 500, text);
    const body = errorOf(text);
    assert.equal(body.code, 'internal');
    assert.deepEqual(body.details, { reason: 'store_write_failed' });
    assert.equal(body.message, 'the registry could not write to its store');
    assert.ok(!text.includes(path) && !text.includes('registry.db'), text);
    assert.doesNotMatch(text, /sqlite|full|disk/i);
    // The operator's log has what happened, path and all.
    const logged = lines.find((line) => line.msg === 'registry store failed');
    assert.ok(logged, JSON.stringify(lines));
    assert.match(String((logged.err as Error).message), /full/);
    assert.equal(logged.operation, 'register');
    // Reads still work; the card is not there.
    assert.deepEqual(await h.client.discover({ name: 'big' }), []);
  });

  test('a store that is closed under the registry answers 500 store_unreadable, no path', async (t) => {
    const path = join(scratch(t), 'registry.db');
    const store = new SqliteRegistryStore(path);
    const h = await startRegistry(t, 'http', { store, logger: recordingLogger([]) });
    store.close();
    const answer = await getAgents(h.url, 'name=x');
    assert.equal(answer.status, 500, answer.text);
    const body = errorOf(answer.text);
    assert.deepEqual(body.details, { reason: 'store_unreadable' });
    assert.ok(!answer.text.includes(path), answer.text);
    await store.open();
  });
});

function errorOf(text: string): { code: string; message: string; details: unknown } {
  return (JSON.parse(text) as { error: { code: string; message: string; details: unknown } }).error;
}

/** A logger with pino's shape that keeps every line, for the assertions. */
function recordingLogger(lines: Array<Record<string, unknown>>): Logger {
  const write = (fields: object, msg?: string) => void lines.push({ ...fields, msg });
  const logger: Logger = {
    fatal: write,
    error: write,
    warn: write,
    info: write,
    debug: write,
    trace: write,
    isLevelEnabled: () => true,
  };
  return logger;
}
