// RegistryClient as the spec describes the facade: register, heartbeat and unregister answer
// `{status: <error text>}` on failure (with the error kept for matching by class and code)
// while discover raises; register is never retried and the idempotent calls are. And an agent
// that joins a registry: it registers at start, heartbeats, registers again when forgotten,
// unregisters at stop, and keeps serving when the registry is down.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { registryOperations } from '../../generated/operations/registry.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { RegistryClient } from '../../src/client/registry-client.js';
import { MemoryRegistryStore } from '../../src/stores/memory/memory-registry-store.js';
import { RegistryServer } from '../../src/registry/registry-server.js';
import type { RegistryStore } from '../../src/registry/registry-store.js';
import { REGISTRY_STATUS } from '../../generated/operations/registry.js';
import { routeKey, type Endpoint } from '../../src/transport/endpoint.js';
import { EndpointError } from '../../src/transport/endpoint-error.js';
import { TransportConnectionError, TransportRemoteError } from '../../src/transport/errors.js';
import { Fixture, failure, listenUrl, TRANSPORTS } from '../support/cross-transport.js';
import { keyAuthenticator } from '../support/key-authenticator.js';
import { card, startRegistry } from '../support/registry-harness.js';
import { hasOpenssl, makeServerCertificate } from '../support/certificates.js';

const RETRY = { retry: { maxAttempts: 3, initialBackoff: 0, maxBackoff: 0, jitter: 0 } };

const SECURE_URLS: Readonly<Record<string, string>> = {
  http: 'https://127.0.0.1:0',
  sse: 'https://127.0.0.1:0',
  websocket: 'wss://127.0.0.1:0',
  grpc: 'grpcs://127.0.0.1:0',
};

/** Waits, between turns of the event loop, until `condition` holds; the test timeout bounds it. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
}

for (const kind of TRANSPORTS) {
  describe(`RegistryClient over ${kind}`, () => {
    test('register, heartbeat and unregister return the failure as a status; discover raises', async (t) => {
      // Nothing listens here: a freshly stopped registry's address.
      const h = await startRegistry(t, kind);
      const url = h.url;
      await h.close();
      const client = new RegistryClient(url, { transport: kind });
      t.after(() => client.close());
      for (const outcome of [
        await client.register(card('http://a', 'a')),
        await client.heartbeat('http://a'),
        await client.unregister('http://a'),
      ]) {
        assert.ok(outcome.error instanceof TransportConnectionError, `${outcome.error?.name}: ${outcome.status}`);
        assert.equal(outcome.status, outcome.error.message);
        assert.ok(outcome.status.length > 0);
      }
      const error = await failure(client.discover({ name: 'a' }));
      assert.ok(error instanceof TransportConnectionError, `${error.name}: ${error.message}`);
    });

    test('register is never retried; heartbeat, unregister and discover are', async (t) => {
      const f = new Fixture(kind, t.signal);
      t.after(() => f.close());
      const attempts = new Map<string, number>();
      const table = new Map<string, Endpoint>();
      for (const spec of Object.values(registryOperations)) {
        if (spec.responseContentType !== 'application/json') continue;
        table.set(routeKey(spec.method, spec.path), {
          spec,
          unary: async () => {
            const n = (attempts.get(spec.name) ?? 0) + 1;
            attempts.set(spec.name, n);
            // Busy on the first attempt of each call: retryable.
            if (n === 1) throw new EndpointError('unavailable', 'busy, try again');
            return spec.name === 'discover' ? [] : { status: 'ok' };
          },
        });
      }
      const server = await f.raw(table);
      const client = new RegistryClient(server.url, { ...RETRY, transport: kind });
      t.after(() => client.close());
      const refused = await client.register(card('http://a', 'a'));
      assert.ok(refused.error instanceof TransportRemoteError);
      assert.equal(refused.error.statusCode, 503);
      assert.equal(attempts.get('register'), 1);
      assert.deepEqual(await client.heartbeat('http://a'), { status: 'ok' });
      assert.deepEqual(await client.unregister('http://a'), { status: 'ok' });
      assert.deepEqual(await client.discover({ role: 'r' }), []);
      assert.equal(attempts.get('heartbeat'), 2);
      assert.equal(attempts.get('unregister'), 2);
      assert.equal(attempts.get('discover'), 2);
    });

    test('with an authenticator: credentials are needed, /healthz and /readyz stay public', async (t) => {
      const h = await startRegistry(t, kind, { authenticator: keyAuthenticator, clientOptions: {} });
      const anonymous = await h.client.register(card('http://a', 'a'));
      assert.ok(anonymous.error instanceof TransportRemoteError, anonymous.status);
      assert.equal(anonymous.error.statusCode, kind === 'grpc' ? 'UNAUTHENTICATED' : 401);
      assert.equal(await h.registry.count(), 0);
      // WebSocket checks credentials at the handshake, so an anonymous client has no connection at all.
      if (kind !== 'websocket') {
        assert.equal((await h.client.health()).status, 'ready');
        assert.equal((await h.client.readiness()).ready, true);
      }
      const keyed = h.newClient({ authenticator: keyAuthenticator, credentials: 'good' });
      assert.deepEqual(await keyed.register(card('http://a', 'a')), { status: REGISTRY_STATUS.registered });
      assert.deepEqual(
        (await keyed.discover()).map((c) => c.url),
        ['http://a'],
      );
      await failure(h.client.discover());
    });

    test('over TLS: a client trusting the certificate registers and discovers; one that does not is refused', {
      skip: kind === 'runtime' ? 'runtime has no TLS' : !hasOpenssl() && 'openssl is not installed',
    }, async (t) => {
      const certificate = makeServerCertificate();
      t.after(() => certificate.remove());
      const tls = certificate.server;
      const h = await startRegistry(t, kind, {
        url: SECURE_URLS[kind],
        transportOptions: { tls },
        clientOptions: { tls: { cafile: certificate.cafile } },
      });
      assert.match(h.url, /^(https|wss|grpcs):/);
      assert.deepEqual(await h.client.register(card('http://secure', 'secure')), { status: REGISTRY_STATUS.registered });
      assert.deepEqual(
        (await h.client.discover({ name: 'secure' })).map((c) => c.url),
        ['http://secure'],
      );
      const untrusting = h.newClient({});
      const refused = await untrusting.register(card('http://other', 'other'));
      assert.ok(refused.error instanceof TransportConnectionError, `${refused.error?.name}: ${refused.status}`);
      assert.equal(await h.registry.count(), 1);
    });

    test('an agent joins the registry at start, heartbeats, rejoins when forgotten, and leaves at stop', async (t) => {
      const store = new MemoryRegistryStore();
      const registry = new RegistryServer({ transport: kind, url: listenUrl(kind), store });
      await registry.start();
      t.after(() => registry.stop());
      const agent = new AgentServer({
        name: 'joiner',
        role: 'worker',
        tags: ['joins'],
        transport: kind,
        url: listenUrl(kind),
        registry: { url: registry.url, heartbeatIntervalSeconds: 0.02, client: { transport: kind } },
      });
      await agent.start();
      t.after(() => agent.stop());
      assert.deepEqual(await agent.whenRegistered(), { status: REGISTRY_STATUS.registered });
      const listed = await registry.discover({ tags: 'joins' });
      assert.deepEqual(listed, [{ ...agent.getCard() }]);
      // Heartbeats move last_seen.
      const first = (await registry.getEntry(agent.url))!.last_seen;
      await until(async () => ((await registry.getEntry(agent.url))?.last_seen ?? 0) > first);
      // Forgotten (as after a restart on an empty store): the next heartbeat finds out and registers again.
      await registry.unregister({ agent_url: agent.url });
      await until(async () => (await registry.getEntry(agent.url)) !== undefined);
      await agent.stop();
      assert.equal(await registry.getEntry(agent.url), undefined, 'unregistered at stop');
    });

    /**
     * A registry whose store holds every removal until the test opens the gate (so the agent's
     * leave hangs), and an agent registered with it; both stopped after the test.
     */
    async function leavingAgent(t: TestContext, name: string) {
      let openGate = (): void => {};
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      const store: RegistryStore = new MemoryRegistryStore();
      const removeNow = store.remove.bind(store);
      const removals: string[] = [];
      store.remove = (url) => {
        removals.push(url);
        return gate.then(() => removeNow(url));
      };
      const registry = new RegistryServer({ transport: kind, url: listenUrl(kind), store });
      await registry.start();
      t.after(() => registry.stop());
      const agent = new AgentServer({
        name,
        transport: kind,
        url: listenUrl(kind),
        registry: { url: registry.url, client: { transport: kind } },
      });
      await agent.start();
      t.after(() => agent.stop());
      assert.deepEqual(await agent.whenRegistered(), { status: REGISTRY_STATUS.registered });
      return { registry, agent, openGate, removals };
    }

    test('readiness turns off as stop begins, while the agent is still leaving the registry', async (t) => {
      const { registry, agent, openGate } = await leavingAgent(t, 'leaver');
      assert.equal(agent.readyz().ready, true);
      const stopped = agent.stop();
      // In the same turn, and over the wire while the unregister call waits.
      assert.throws(
        () => agent.readyz(),
        (error: unknown) => error instanceof EndpointError && error.code === 'unavailable',
      );
      const client = new AgentClient(agent.url, { transport: kind });
      t.after(() => client.close());
      await assert.rejects(
        client.readiness(),
        (error: unknown) => error instanceof TransportRemoteError && error.code === 'unavailable',
      );
      assert.notEqual(await registry.getEntry(agent.url), undefined, 'still listed: the leave has not finished');
      openGate();
      await stopped;
      assert.equal(await registry.getEntry(agent.url), undefined, 'unregistered at stop');
    });

    test('two stops at once leave the registry once, and both return when the server has stopped', async (t) => {
      const { registry, agent, openGate, removals } = await leavingAgent(t, 'twice');
      const first = agent.stop();
      const second = agent.stop();
      // The second stop waits for the first: it has not returned while the leave hangs.
      const early = await Promise.race([second.then(() => 'returned'), sleep(50).then(() => 'waiting')]);
      assert.equal(early, 'waiting');
      openGate();
      await Promise.all([first, second]);
      assert.deepEqual(removals, [agent.url], 'one unregister call reached the registry');
      assert.equal(await registry.getEntry(agent.url), undefined, 'unregistered at stop');
    });

    test('a registry that is down never stops the agent from serving', async (t) => {
      const h = await startRegistry(t, kind);
      const downUrl = h.url;
      await h.close();
      const agent = new AgentServer({
        name: 'lonely',
        transport: kind,
        url: listenUrl(kind),
        registry: { url: downUrl, heartbeatIntervalSeconds: 0.02, client: { transport: kind } },
      });
      await agent.start();
      t.after(() => agent.stop());
      const joined = await agent.whenRegistered();
      assert.ok(joined?.error instanceof TransportConnectionError, joined?.status);
      const client = new AgentClient(agent.url, { transport: kind });
      t.after(() => client.close());
      const task = await client.sendTask('still here');
      assert.equal(task.state, 'completed');
      await agent.stop();
      assert.equal(agent.isRunning, false);
    });
  });
}
