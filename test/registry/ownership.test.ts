// Issue 28 defect 3: a registry with an authenticator. Writes need credentials; a card is owned
// by the principal that registered it, and another principal can neither replace it (403
// forbidden), refresh it (`agent not found`) nor remove it (the unknown card's success, and it
// stays). publicDiscovery opens the reads only. Without an authenticator nothing changes:
// anonymous writes, anyone's entries. Real transports, real API key authenticator.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { REGISTRY_STATUS } from '../../generated/operations/registry.js';
import { failure } from '../support/cross-transport.js';
import { card, startRegistry, type TransportKind } from '../support/registry-harness.js';

// Principals are `api-key-` and a key's first eight characters.
const ALICE = 'alice-01-secret';
const BOB = 'bobbob02-secret';
const keys = () => new ApiKeyAuthenticator({ validKeys: { [ALICE]: [], [BOB]: [] } });

const AGENT = 'http://127.0.0.1:1/agent';

for (const kind of ['http', 'grpc', 'websocket'] as const satisfies readonly TransportKind[]) {
  describe(`${kind}: a registry with an authenticator`, () => {
    test('a card is owned by its registrant: another principal cannot replace, refresh or remove it', async (t) => {
      const h = await startRegistry(t, kind, { authenticator: keys() });
      const alice = h.newClient({ apiKey: ALICE });
      const bob = h.newClient({ apiKey: BOB });

      assert.equal((await alice.register(card(AGENT, 'alices'))).status, REGISTRY_STATUS.registered);
      assert.equal((await h.registry.getEntry(AGENT))?.owner, 'api-key-alice-01');

      const replaced = await bob.register(card(AGENT, 'bobs'));
      assert.equal((replaced.error as { code?: string }).code, 'forbidden');
      assert.equal((replaced.error as { statusCode?: number }).statusCode, 403);
      assert.equal((await h.registry.getEntry(AGENT))?.card.name, 'alices', 'the entry is unchanged');

      h.clock.advance(5);
      assert.equal((await bob.heartbeat(AGENT)).status, REGISTRY_STATUS.notFound);
      assert.equal((await h.registry.getEntry(AGENT))?.last_seen, h.clock.now - 5, 'not refreshed');
      assert.equal((await alice.heartbeat(AGENT)).status, REGISTRY_STATUS.heartbeat);
      assert.equal((await h.registry.getEntry(AGENT))?.last_seen, h.clock.now);

      assert.equal((await bob.unregister(AGENT)).status, REGISTRY_STATUS.unregistered);
      assert.ok(await h.registry.getEntry(AGENT), 'still listed after another principal unregistered it');

      assert.equal((await alice.register(card(AGENT, 'alices-again'))).status, REGISTRY_STATUS.registered);
      assert.deepEqual(
        (await bob.discover({ name: 'alices-again' })).map((c) => c.url),
        [AGENT],
      );
      assert.equal((await alice.unregister(AGENT)).status, REGISTRY_STATUS.unregistered);
      assert.equal(await h.registry.getEntry(AGENT), undefined);
    });

    test("an entry without an owner is anyone's: the next principal to register it owns it", async (t) => {
      const h = await startRegistry(t, kind, { authenticator: keys() });
      // Registered from code in the process (no request, no principal): anonymous.
      await h.registry.register(card(AGENT, 'unowned'));
      assert.equal((await h.registry.getEntry(AGENT))?.owner, undefined);
      const bob = h.newClient({ apiKey: BOB });
      assert.equal((await bob.register(card(AGENT, 'bobs'))).status, REGISTRY_STATUS.registered);
      assert.equal((await h.registry.getEntry(AGENT))?.owner, 'api-key-bobbob02');
      const alice = h.newClient({ apiKey: ALICE });
      assert.equal(((await alice.register(card(AGENT, 'alices'))).error as { code?: string }).code, 'forbidden');
    });

    test('without credentials every call is refused; with publicDiscovery only the reads are open', async (t) => {
      const closed = await startRegistry(t, kind, { authenticator: keys() });
      const anonymous = closed.newClient({});
      assert.equal(((await anonymous.register(card(AGENT, 'x'))).error as { code?: string }).code, 'unauthenticated');
      assert.equal((await failure(anonymous.discover())).code, 'unauthenticated');

      const open = await startRegistry(t, kind, { authenticator: keys(), publicDiscovery: true });
      const writer = open.newClient({ apiKey: ALICE });
      assert.equal((await writer.register(card(AGENT, 'listed'))).status, REGISTRY_STATUS.registered);
      if (kind === 'websocket') {
        // The websocket handshake authenticates the connection before any route is known.
        assert.equal((await failure(open.newClient({}).discover())).code, 'unauthenticated');
        return;
      }
      const reader = open.newClient({});
      assert.deepEqual(
        (await reader.discover()).map((c) => c.name),
        ['listed'],
      );
      assert.equal(((await reader.register(card(AGENT, 'x'))).error as { code?: string }).code, 'unauthenticated');
      assert.equal(((await reader.heartbeat(AGENT)).error as { code?: string }).code, 'unauthenticated');
      assert.equal(((await reader.unregister(AGENT)).error as { code?: string }).code, 'unauthenticated');
      assert.ok(await open.registry.getEntry(AGENT));
    });
  });
}

test('http with publicDiscovery: the status page is open, writes answer 401', async (t) => {
  const h = await startRegistry(t, 'http', { authenticator: keys(), publicDiscovery: true });
  const base = h.url.replace(/\/$/, '');
  assert.equal((await fetch(`${base}/status`)).status, 200);
  assert.equal((await fetch(`${base}/agents/`)).status, 200);
  const posted = await fetch(`${base}/agents/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(card(AGENT, 'x')),
  });
  assert.equal(posted.status, 401);
  await posted.body?.cancel();
});

test('without an authenticator writes are anonymous and anyone may replace or remove any card (as before)', async (t) => {
  const h = await startRegistry(t, 'http');
  const one = h.newClient({});
  const other = h.newClient({});
  assert.equal((await one.register(card(AGENT, 'first'))).status, REGISTRY_STATUS.registered);
  assert.equal((await h.registry.getEntry(AGENT))?.owner, undefined);
  assert.equal((await other.register(card(AGENT, 'second'))).status, REGISTRY_STATUS.registered);
  assert.equal((await h.registry.getEntry(AGENT))?.card.name, 'second');
  assert.equal((await other.unregister(AGENT)).status, REGISTRY_STATUS.unregistered);
  assert.equal(await h.registry.getEntry(AGENT), undefined);
});
