// Every registry rule of the spec (Registry endpoints and its rules, Registry entry lifecycle,
// the registry rows of Idempotency and Errors, the TTL of Timeouts and timers), each run over
// all five transports and both stores. The clock is the test's, so TTL cases move time instead
// of waiting for it. Calls go through RegistryClient (the facade) or the typed client when the
// raised error is what is checked.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentCard } from '../../generated/types/index.js';
import { validate } from '../../generated/validators/index.js';
import { REGISTRY_STATUS } from '../../generated/operations/registry.js';
import { TransportLimitError, TransportRemoteError } from '../../src/transport/errors.js';
import { failure } from '../support/cross-transport.js';
import { card, startRegistry, STORE_KINDS, TRANSPORTS, urlsOf, type RegistryHarness } from '../support/registry-harness.js';

const { registered, unregistered, heartbeat: recorded, notFound } = REGISTRY_STATUS;

async function seed(h: RegistryHarness, cards: readonly AgentCard[]): Promise<void> {
  for (const c of cards) assert.deepEqual(await h.client.register(c), { status: registered });
}

const FLEET: readonly AgentCard[] = [
  card('http://a1', 'translator', { role: 'worker', tags: ['nlp', 'fr', 'de'], description: 'one' }),
  card('http://a2', 'translator', { role: 'planner', tags: ['nlp'] }),
  card('http://a3', 'summarizer', { role: 'worker', tags: ['nlp', 'fr'], version: '2.0' }),
  card('http://a4', 'Translator', { role: 'worker', tags: ['NLP'] }),
];

for (const kind of TRANSPORTS) {
  for (const storeKind of STORE_KINDS) {
    describe(`registry rules over ${kind}, ${storeKind} store`, () => {
      test('register answers the spec status; discover returns the card with its defaults filled in', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        assert.deepEqual(await h.client.register({ name: 'bare', url: 'http://bare' }), { status: registered });
        const cards = await h.client.discover();
        assert.deepEqual(cards, [{ name: 'bare', url: 'http://bare', description: '', role: '', tags: [] }]);
        assert.ok(validate('agent-card-list', cards).valid);
        const entry = await h.registry.getEntry('http://bare');
        assert.equal(entry?.last_seen, h.clock.now);
      });

      test('re-registering replaces the entry: the old name, role and tags no longer find it', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        await seed(h, [card('http://x', 'old', { role: 'r-old', tags: ['t-old', 'both'] })]);
        h.clock.advance(5);
        await seed(h, [card('http://x', 'new', { role: 'r-new', tags: ['t-new', 'both'] })]);
        assert.equal(await h.registry.count(), 1);
        assert.deepEqual(await h.client.discover({ name: 'old' }), []);
        assert.deepEqual(await h.client.discover({ role: 'r-old' }), []);
        assert.deepEqual(await h.client.discover({ tags: 't-old' }), []);
        assert.deepEqual(urlsOf(await h.client.discover({ name: 'new', role: 'r-new', tags: ['t-new', 'both'] })), ['http://x']);
        assert.equal((await h.registry.getEntry('http://x'))?.last_seen, h.clock.now);
      });

      test('heartbeat refreshes last_seen only, every time (a later heartbeat is never a replay)', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        const c = card('http://hb', 'beater', { role: 'worker', tags: ['pulse'] });
        await seed(h, [c]);
        const registeredAt = h.clock.now;
        for (const step of [10, 20]) {
          h.clock.advance(step);
          assert.deepEqual(await h.client.heartbeat('http://hb'), { status: recorded });
          const entry = await h.registry.getEntry('http://hb');
          assert.equal(entry?.last_seen, h.clock.now, `heartbeat after ${step} s moved last_seen`);
          assert.deepEqual(entry?.card, c);
          assert.deepEqual(entry?.metadata, { registered_at: registeredAt });
        }
        assert.deepEqual(urlsOf(await h.client.discover({ name: 'beater', role: 'worker', tags: 'pulse' })), ['http://hb']);
      });

      test('heartbeat for an unknown or missing agent_url answers "agent not found", a normal payload', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        assert.deepEqual(await h.ops.heartbeat({ agent_url: 'http://nobody' }), { status: notFound });
        assert.deepEqual(await h.ops.heartbeat({}), { status: notFound });
        assert.deepEqual(await h.ops.heartbeat({ agent_url: null }), { status: notFound });
        // The same agent_url registered afterwards is found: the earlier answer is not replayed.
        await seed(h, [card('http://nobody', 'late')]);
        assert.deepEqual(await h.ops.heartbeat({ agent_url: 'http://nobody' }), { status: recorded });
      });

      test('unregister is idempotent: unknown, repeated and missing URLs all succeed', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        await seed(h, [card('http://u', 'leaver', { tags: ['t'] })]);
        assert.deepEqual(await h.ops.unregister({ agent_url: 'http://u' }), { status: unregistered });
        assert.deepEqual(await h.ops.unregister({ agent_url: 'http://u' }), { status: unregistered });
        assert.deepEqual(await h.ops.unregister({ agent_url: 'http://never' }), { status: unregistered });
        assert.deepEqual(await h.ops.unregister({}), { status: unregistered });
        assert.deepEqual(await h.client.discover({ tags: 't' }), []);
        // Registered again, then unregistered with the same key: it really goes.
        await seed(h, [card('http://u', 'leaver', { tags: ['t'] })]);
        assert.deepEqual(await h.client.unregister('http://u'), { status: unregistered });
        assert.deepEqual(await h.client.discover(), []);
      });

      test('discovery matches exactly; every requested tag must be present; no filter lists all', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        await seed(h, FLEET);
        assert.deepEqual(urlsOf(await h.client.discover()), ['http://a1', 'http://a2', 'http://a3', 'http://a4']);
        assert.deepEqual(urlsOf(await h.client.discover({ name: 'translator' })), ['http://a1', 'http://a2']);
        assert.deepEqual(await h.client.discover({ name: 'translat' }), [], 'no prefix');
        assert.deepEqual(await h.client.discover({ name: 'TRANSLATOR' }), [], 'case matters');
        assert.deepEqual(urlsOf(await h.client.discover({ role: 'worker' })), ['http://a1', 'http://a3', 'http://a4']);
        assert.deepEqual(urlsOf(await h.client.discover({ tags: 'nlp' })), ['http://a1', 'http://a2', 'http://a3']);
        assert.deepEqual(urlsOf(await h.client.discover({ tags: ['nlp', 'fr'] })), ['http://a1', 'http://a3']);
        assert.deepEqual(urlsOf(await h.client.discover({ tags: ['fr', 'de', 'nlp'] })), ['http://a1']);
        assert.deepEqual(await h.client.discover({ tags: ['nlp', 'es'] }), []);
        assert.deepEqual(urlsOf(await h.client.discover({ name: 'translator', role: 'worker', tags: ['fr'] })), ['http://a1']);
        assert.deepEqual(await h.client.discover({ name: 'translator', role: 'worker', tags: ['es'] }), []);
      });

      test('a list of tags travels as repeated parameters or as a comma list, meaning the same', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        await seed(h, FLEET);
        const repeated = urlsOf(await h.client.discover({ tags: ['nlp', 'fr'] }));
        assert.deepEqual(repeated, ['http://a1', 'http://a3']);
        assert.deepEqual(urlsOf(await h.client.discover({ tags: 'nlp,fr' })), repeated);
        assert.deepEqual(urlsOf(await h.client.discover({ tags: 'nlp, fr' })), repeated);
        assert.deepEqual(urlsOf(await h.client.discover({ tags: ['nlp,fr', 'de'] })), ['http://a1']);
      });

      test('keys other than name, role and tags filter on the card attribute of that name', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        await seed(h, FLEET);
        assert.deepEqual(urlsOf(await h.client.discover({ version: '2.0' })), ['http://a3']);
        assert.deepEqual(urlsOf(await h.client.discover({ description: 'one', role: 'worker' })), ['http://a1']);
        assert.deepEqual(await h.client.discover({ version: '2' }), []);
        assert.deepEqual(await h.client.discover({ unknown_attribute: 'x' }), []);
      });

      test('filter_by is taken as it stands: a text value is not decoded and means no filter', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        await seed(h, FLEET);
        const all = ['http://a1', 'http://a2', 'http://a3', 'http://a4'];
        assert.deepEqual(urlsOf(await h.client.discover({ filter_by: '{"name":"translator"}' })), all);
        // Present, it replaces the other keys.
        assert.deepEqual(urlsOf(await h.client.discover({ filter_by: 'x', name: 'summarizer' })), all);
      });

      test('TTL: pruned lazily when now - last_seen > ttl; equality stays live', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind, entryTtlSeconds: 30 });
        await seed(h, [card('http://old', 'old', { tags: ['t'] })]);
        h.clock.advance(10);
        await seed(h, [card('http://young', 'young', { tags: ['t'] })]);
        h.clock.advance(20);
        // old: age 30 = ttl, still live.
        assert.deepEqual(urlsOf(await h.client.discover({ tags: 't' })), ['http://old', 'http://young']);
        h.clock.advance(0.5);
        assert.deepEqual(urlsOf(await h.client.discover({ tags: 't' })), ['http://young']);
        assert.equal(await h.registry.getEntry('http://old'), undefined);
        assert.deepEqual(await h.registry.listUrls(), ['http://young']);
        assert.equal(await h.registry.count(), 1);
        // A heartbeat cannot revive a pruned entry.
        assert.deepEqual(await h.client.heartbeat('http://old'), { status: notFound });
        // A heartbeat keeps a live one: young is 20.5 s old, refreshed, then 30 s more is equality again.
        assert.deepEqual(await h.client.heartbeat('http://young'), { status: recorded });
        h.clock.advance(30);
        assert.deepEqual(urlsOf(await h.client.discover()), ['http://young']);
        h.clock.advance(0.001);
        assert.deepEqual(await h.client.discover(), []);
      });

      test('TTL of zero keeps an entry of age zero and expires any positive age; a negative one too', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind, entryTtlSeconds: 0 });
        await seed(h, [card('http://z', 'z')]);
        assert.deepEqual(urlsOf(await h.client.discover()), ['http://z']);
        h.clock.advance(0.001);
        assert.deepEqual(await h.client.discover(), []);
        const n = await startRegistry(t, kind, { store: storeKind, entryTtlSeconds: -10 });
        await seed(n, [card('http://n', 'n')]);
        n.clock.advance(0.001);
        assert.deepEqual(await n.client.heartbeat('http://n'), { status: notFound });
      });

      test('a card that fails the AgentCard schema is refused with the bad field, and the store is unchanged', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        const original = card('http://keep', 'keeper', { tags: ['a'] });
        await seed(h, [original]);
        const bad = [
          [{ url: 'http://keep', tags: ['b'] }, '/name', ''],
          [{ name: 'keeper', url: 'http://keep', tags: ['a', 7] }, '/tags/1', ''],
          [{ name: '', url: 'http://keep' }, '/name', ''],
          [{ name: 'keeper', url: 'http://keep', capabilities: 'all' }, '/capabilities', ''],
        ] as const;
        for (const [body, pointer, missing] of bad) {
          const error = await failure(h.ops.register(body as unknown as AgentCard));
          assert.ok(error instanceof TransportRemoteError, `${error.name}: ${error.message}`);
          assert.equal(error.code, 'invalid_request');
          assert.equal(error.statusCode, 400);
          const issue = (error.details as { issues: Array<{ pointer: string; message: string }> }).issues[0]!;
          assert.equal(issue.pointer || '(root)', pointer, JSON.stringify(error.details));
          if (missing) assert.match(issue.message, new RegExp(missing));
          const facade = await h.client.register(body as unknown as AgentCard);
          assert.ok(facade.error instanceof TransportRemoteError);
          assert.equal(facade.status, facade.error.message);
        }
        assert.equal(await h.registry.count(), 1);
        assert.deepEqual(await h.client.discover(), [original]);
      });

      test('an oversize card is refused at the limit; one at the limit is stored', async (t) => {
        const limit = 2048;
        const h = await startRegistry(t, kind, { store: storeKind, maxCardBytes: limit });
        const sized = (bytes: number) => {
          const base = card('http://big', 'big');
          const padding = bytes - Buffer.byteLength(JSON.stringify({ ...base, description: '' }));
          return { ...base, description: 'x'.repeat(padding) };
        };
        const over = sized(limit + 1);
        const error = await failure(h.ops.register(over));
        assert.ok(error instanceof TransportLimitError, `${error.name}: ${error.message}`);
        assert.equal(error.code, 'payload_too_large');
        assert.equal(error.limit, limit);
        assert.equal(error.size, limit + 1);
        assert.equal(await h.registry.count(), 0);
        assert.deepEqual(await h.client.register(sized(limit)), { status: registered });
        assert.equal((await h.client.discover())[0]?.description?.length, sized(limit).description.length);
      });

      test('concurrent register and unregister of one URL end with the table and the indexes in agreement', async (t) => {
        const h = await startRegistry(t, kind, { store: storeKind });
        const url = 'http://raced';
        const calls: Promise<unknown>[] = [];
        for (let i = 0; i < 40; i++) {
          calls.push(h.client.register(card(url, `n${i % 4}`, { role: `r${i % 3}`, tags: [`t${i % 5}`, 'all'] })));
          if (i % 2 === 0) calls.push(h.client.unregister(url));
        }
        const outcomes = (await Promise.all(calls)) as Array<{ status: string; error?: Error }>;
        for (const outcome of outcomes) assert.equal(outcome.error, undefined, outcome.status);
        const entry = await h.registry.getEntry(url);
        const byTag = await h.client.discover({ tags: 'all' });
        if (!entry) {
          assert.deepEqual(byTag, []);
        } else {
          assert.deepEqual(byTag, [entry.card]);
          const { name, role, tags } = entry.card;
          assert.deepEqual(await h.client.discover({ name, role, tags }), [entry.card]);
          for (let i = 0; i < 4; i++) if (`n${i}` !== name) assert.deepEqual(await h.client.discover({ name: `n${i}` }), []);
        }
      });
    });
  }
}
