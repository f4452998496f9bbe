// One table of store behaviour run against every registry store: the in-memory one, SQLite in
// memory, SQLite on a file and Redis (a real redis-server, one key prefix per test). Replacement removes the old entry from every index, touch moves
// last_seen only, lookups intersect the indexes, pruning follows the spec's rule (equality stays
// live), and concurrent writes to one URL leave the table and its indexes in agreement.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentCard, RegistryEntry } from '../../generated/types/index.js';
import { MemoryRegistryStore } from '../../src/stores/memory/memory-registry-store.js';
import { MAX_FILTER_VALUES, type RegistryStore } from '../../src/registry/registry-store.js';
import { SqliteRegistryStore } from '../../src/stores/sqlite/sqlite-registry-store.js';
import { RedisRegistryStore } from '../../src/stores/redis/redis-registry-store.js';
import { redisInstalled, startRedis, type RedisServer } from '../support/redis-server.js';

interface StoreKind {
  readonly name: string;
  make(t: { after(fn: () => void): void }): RegistryStore;
}

const STORES: readonly StoreKind[] = [
  { name: 'memory', make: () => new MemoryRegistryStore() },
  { name: 'sqlite :memory:', make: () => new SqliteRegistryStore(':memory:') },
  {
    name: 'sqlite file',
    make: (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-store-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      return new SqliteRegistryStore(join(dir, 'registry.db'));
    },
  },
];

// One redis-server for the whole table; each test gets its own key prefix, so none sees another's entries.
let redis: RedisServer | null = null;
let redisTests = 0;
if (redisInstalled) {
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.dispose());
  (STORES as StoreKind[]).push({
    name: 'redis',
    make: () => new RedisRegistryStore(`${redis!.url}?prefix=t${++redisTests}`),
  });
}

function card(url: string, name: string, role = '', tags: string[] = []): AgentCard {
  return { name, url, role, tags, description: '' };
}

function entry(c: AgentCard, lastSeen = 1000): RegistryEntry {
  return { card: c, last_seen: lastSeen, metadata: {} };
}

const urlsOf = (entries: readonly RegistryEntry[]) => entries.map((e) => e.card.url).sort();

async function opened(
  t: Parameters<StoreKind['make']>[0] & { after(fn: () => unknown): void },
  kind: StoreKind,
): Promise<RegistryStore> {
  const store = kind.make(t);
  await store.open();
  t.after(() => store.close());
  return store;
}

for (const kind of STORES) {
  describe(`registry store: ${kind.name}`, () => {
    test('put stores under the card URL; get, all, urls and count see it', async (t) => {
      const store = await opened(t, kind);
      await store.put(entry(card('http://a', 'alpha', 'worker', ['x', 'y']), 1000));
      const got = await store.get('http://a');
      assert.deepEqual(got, { card: card('http://a', 'alpha', 'worker', ['x', 'y']), last_seen: 1000, metadata: {} });
      assert.equal(await store.get('http://nobody'), undefined);
      assert.deepEqual(await store.urls(), ['http://a']);
      assert.equal(await store.count(), 1);
      assert.deepEqual(urlsOf(await store.all()), ['http://a']);
    });

    test('re-putting a URL replaces the entry and removes the old one from every index', async (t) => {
      const store = await opened(t, kind);
      await store.put(entry(card('http://a', 'old-name', 'old-role', ['old-tag', 'kept'])));
      await store.put(entry(card('http://a', 'new-name', 'new-role', ['new-tag', 'kept']), 2000));
      assert.equal(await store.count(), 1);
      assert.deepEqual(await store.lookup({ name: 'old-name' }), []);
      assert.deepEqual(await store.lookup({ role: 'old-role' }), []);
      assert.deepEqual(await store.lookup({ tags: ['old-tag'] }), []);
      assert.deepEqual(urlsOf(await store.lookup({ name: 'new-name', role: 'new-role', tags: ['new-tag', 'kept'] })), [
        'http://a',
      ]);
      assert.equal((await store.get('http://a'))!.last_seen, 2000);
    });

    test('lookup takes MAX_FILTER_VALUES values and refuses more', async (t) => {
      const store = await opened(t, kind);
      const tags = Array.from({ length: MAX_FILTER_VALUES }, (_, i) => `t${i}`);
      await store.put(entry(card('http://a', 'alpha', 'worker', tags)));
      assert.deepEqual(urlsOf(await store.lookup({ tags })), ['http://a']);
      await assert.rejects(
        async () => store.lookup({ name: 'alpha', tags }),
        (error: Error & { code?: string }) =>
          error.code === 'too_many_filter_values' && /at most 32 filter values/.test(error.message),
      );
    });

    test('lookup intersects name, role and every tag, exactly', async (t) => {
      const store = await opened(t, kind);
      await store.put(entry(card('http://1', 'alpha', 'worker', ['nlp', 'fr'])));
      await store.put(entry(card('http://2', 'alpha', 'planner', ['nlp'])));
      await store.put(entry(card('http://3', 'beta', 'worker', ['nlp', 'fr', 'de'])));
      await store.put(entry(card('http://4', 'Alpha', 'worker', ['NLP'])));
      assert.deepEqual(urlsOf(await store.lookup({ name: 'alpha' })), ['http://1', 'http://2']);
      assert.deepEqual(urlsOf(await store.lookup({ role: 'worker' })), ['http://1', 'http://3', 'http://4']);
      assert.deepEqual(urlsOf(await store.lookup({ tags: ['nlp'] })), ['http://1', 'http://2', 'http://3']);
      assert.deepEqual(urlsOf(await store.lookup({ tags: ['nlp', 'fr'] })), ['http://1', 'http://3']);
      assert.deepEqual(urlsOf(await store.lookup({ name: 'alpha', role: 'worker' })), ['http://1']);
      assert.deepEqual(urlsOf(await store.lookup({ name: 'alpha', tags: ['fr'] })), ['http://1']);
      assert.deepEqual(urlsOf(await store.lookup({ role: 'worker', tags: ['nlp', 'fr', 'de'] })), ['http://3']);
      assert.deepEqual(await store.lookup({ name: 'alp' }), [], 'no prefix match');
      assert.deepEqual(await store.lookup({ name: 'gamma' }), []);
      assert.deepEqual(await store.lookup({ tags: ['nlp', 'missing'] }), []);
      assert.deepEqual(await store.lookup({}), [], 'no key, nothing indexed');
    });

    test('a card with a repeated tag is stored once under it', async (t) => {
      const store = await opened(t, kind);
      await store.put(entry(card('http://a', 'alpha', '', ['x', 'x'])));
      assert.deepEqual(urlsOf(await store.lookup({ tags: ['x'] })), ['http://a']);
      await store.remove('http://a');
      assert.deepEqual(await store.lookup({ tags: ['x'] }), []);
    });

    test('remove answers whether there was an entry and clears its indexes', async (t) => {
      const store = await opened(t, kind);
      await store.put(entry(card('http://a', 'alpha', 'worker', ['x'])));
      assert.equal(await store.remove('http://a'), true);
      assert.equal(await store.remove('http://a'), false);
      assert.equal(await store.get('http://a'), undefined);
      assert.deepEqual(await store.lookup({ name: 'alpha' }), []);
      assert.deepEqual(await store.lookup({ role: 'worker' }), []);
      assert.deepEqual(await store.lookup({ tags: ['x'] }), []);
      assert.equal(await store.count(), 0);
    });

    test('touch moves last_seen only; false for an unknown URL', async (t) => {
      const store = await opened(t, kind);
      const c = card('http://a', 'alpha', 'worker', ['x']);
      await store.put({ card: c, last_seen: 1000, metadata: { registered_at: 1000 } });
      assert.equal(await store.touch('http://a', 1500), true);
      assert.deepEqual(await store.get('http://a'), { card: c, last_seen: 1500, metadata: { registered_at: 1000 } });
      assert.deepEqual(urlsOf(await store.lookup({ name: 'alpha', role: 'worker', tags: ['x'] })), ['http://a']);
      assert.equal(await store.touch('http://nobody', 1500), false);
      assert.equal(await store.count(), 1);
    });

    test('prune removes entries with now - last_seen > ttl; equality stays live', async (t) => {
      const store = await opened(t, kind);
      await store.put(entry(card('http://old', 'old', '', ['t']), 100));
      await store.put(entry(card('http://edge', 'edge', '', ['t']), 110));
      await store.put(entry(card('http://new', 'new', '', ['t']), 115));
      assert.equal(await store.prune(120, 10), 1);
      assert.deepEqual((await store.urls()).sort(), ['http://edge', 'http://new']);
      assert.deepEqual(await store.lookup({ name: 'old' }), [], 'gone from the indexes too');
      assert.deepEqual(urlsOf(await store.lookup({ tags: ['t'] })), ['http://edge', 'http://new']);
      assert.equal(await store.prune(120, 10), 0, 'nothing more to prune');
    });

    test('prune with zero or negative TTL expires any entry with positive age', async (t) => {
      const store = await opened(t, kind);
      await store.put(entry(card('http://a', 'a'), 100));
      await store.put(entry(card('http://b', 'b'), 100.5));
      assert.equal(await store.prune(100.5, 0), 1, 'age 0 stays live at TTL 0');
      assert.deepEqual(await store.urls(), ['http://b']);
      assert.equal(await store.prune(101, -5), 1);
      assert.equal(await store.count(), 0);
    });

    test('prune finds expired entries whatever order they were written in', async (t) => {
      const store = await opened(t, kind);
      await store.put(entry(card('http://late', 'late'), 500));
      await store.put(entry(card('http://early', 'early'), 100));
      await store.put(entry(card('http://mid', 'mid'), 300));
      await store.touch('http://late', 50);
      assert.equal(await store.prune(400, 150), 2);
      assert.deepEqual(await store.urls(), ['http://mid']);
    });

    test('concurrent puts and removes of one URL leave the table and its indexes in agreement', async (t) => {
      const store = await opened(t, kind);
      const url = 'http://contended';
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 200; i++) {
        work.push(
          Promise.resolve(store.put(entry(card(url, `name-${i % 7}`, `role-${i % 3}`, [`tag-${i % 5}`, 'shared']), 1000 + i))),
        );
        if (i % 3 === 0) work.push(Promise.resolve(store.remove(url)));
      }
      await Promise.all(work);
      const current = await store.get(url);
      const indexed = [
        ...(await store.lookup({ tags: ['shared'] })),
        ...(await Promise.all(Array.from({ length: 7 }, (_, i) => store.lookup({ name: `name-${i}` })))).flat(),
        ...(await Promise.all(Array.from({ length: 3 }, (_, i) => store.lookup({ role: `role-${i}` })))).flat(),
        ...(await Promise.all(Array.from({ length: 5 }, (_, i) => store.lookup({ tags: [`tag-${i}`] })))).flat(),
      ];
      if (current === undefined) {
        assert.equal(indexed.length, 0, 'no index points at a removed entry');
      } else {
        // The one entry is found under exactly its own name, role and tags, and nowhere else.
        assert.equal(indexed.length, 4);
        for (const found of indexed) assert.deepEqual(found, current);
        assert.deepEqual(
          urlsOf(await store.lookup({ name: current.card.name, role: current.card.role!, tags: current.card.tags! })),
          [url],
        );
      }
      assert.equal(await store.count(), current ? 1 : 0);
    });

    test('an owned entry: only its owner may replace, touch or remove it; anonymous writes may', async (t) => {
      const store = await opened(t, kind);
      const owned = (c: AgentCard, owner: string | null, lastSeen = 1000): RegistryEntry => ({
        ...entry(c, lastSeen),
        ...(owner !== null && { owner }),
      });
      assert.equal(await store.put(owned(card('http://a', 'alice-card', '', ['x']), 'alice')), true);
      assert.deepEqual(await store.get('http://a'), owned(card('http://a', 'alice-card', '', ['x']), 'alice'));
      assert.equal(await store.put(owned(card('http://a', 'bob-card'), 'bob')), false);
      assert.equal(await store.touch('http://a', 2000, 'bob'), false);
      assert.equal(await store.remove('http://a', 'bob'), false);
      assert.equal((await store.get('http://a'))?.card.name, 'alice-card');
      assert.equal((await store.get('http://a'))?.last_seen, 1000);
      assert.deepEqual(urlsOf(await store.lookup({ tags: ['x'] })), ['http://a'], 'indexes untouched');
      assert.equal(await store.touch('http://a', 2000, 'alice'), true);
      assert.equal((await store.get('http://a'))?.owner, 'alice', 'touch keeps the owner');
      assert.equal(await store.put(owned(card('http://a', 'alice-again'), 'alice', 3000)), true);
      assert.equal(await store.remove('http://a', 'alice'), true);
      // Anonymous (null or no owner): no check; an entry without an owner is anyone's.
      await store.put(owned(card('http://b', 'b'), 'alice'));
      assert.equal(await store.touch('http://b', 2000), true);
      assert.equal(await store.put(owned(card('http://b', 'anonymous'), null)), true);
      assert.equal((await store.get('http://b'))?.owner, undefined);
      assert.equal(await store.put(owned(card('http://b', 'bob-card'), 'bob')), true);
      assert.equal((await store.get('http://b'))?.owner, 'bob');
      assert.equal(await store.remove('http://b', null), true);
      assert.equal(await store.count(), 0);
    });

    test('close then open again keeps what a persisted store holds', async (t) => {
      const store = kind.make(t);
      await store.open();
      await store.put(entry(card('http://a', 'alpha', '', ['x'])));
      await store.close();
      await store.open();
      t.after(() => store.close());
      const persisted = kind.name === 'sqlite :memory:' ? 0 : 1;
      assert.equal(await store.count(), persisted);
      assert.equal((await store.lookup({ tags: ['x'] })).length, persisted);
    });
  });
}
