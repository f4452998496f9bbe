// AgentServer lifecycle (spec: States and transitions > Transport lifecycle, and the agent
// server paragraph under it): start builds the endpoint table, hands it to the transport and
// starts it, and only then is the server running; repeated start is a no-op; stop stops the
// transport then goes idle; repeated stop is safe; a failing step leaves the running flag.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { routeKey } from '../../src/transport/endpoint.js';
import type { Dispatcher } from '../../src/transport/dispatcher.js';
import { createTransport } from '../../src/transport/factory.js';
import { TRANSPORTS, Transport, deferred, hookedBinding, listenUrl, startAgent, userTask } from '../support/agent-harness.js';

for (const kind of TRANSPORTS) {
  describe(`AgentServer lifecycle over ${kind}`, () => {
    test('is not running and has no transport before start', () => {
      const agent = new AgentServer({ name: 'idle', transport: kind, url: listenUrl(kind) });
      assert.equal(agent.isRunning, false);
      assert.throws(() => agent.transport, /not been started/);
    });

    test('start builds the endpoint table, hands it to the transport, and only then is running', async (t) => {
      const gate = deferred();
      const listening = deferred<Dispatcher>();
      const binding = await hookedBinding(kind, {
        async beforeListen(dispatcher) {
          listening.resolve(dispatcher);
          await gate.promise;
        },
      });
      const agent = new AgentServer({ name: 'gated', transport: new Transport(binding, listenUrl(kind)) });
      t.after(() => agent.stop());
      const starting = agent.start();
      const dispatcher = await listening.promise;
      // The transport is starting with the full table, but the server is not running yet.
      assert.equal(agent.isRunning, false);
      assert.equal(agent.transport.ready, false);
      for (const route of [
        'POST /tasks/',
        'POST /tasks/cancel',
        'POST /llm/history/compact',
        'POST /state/describe',
        'POST /state/reset',
        'POST /state/compact',
        'GET /.well-known/agent.json',
        'GET /healthz',
        'GET /readyz',
      ]) {
        const [method, path] = route.split(' ') as [string, string];
        assert.ok(dispatcher.endpoints.has(routeKey(method, path)), `${route} is in the table`);
      }
      gate.resolve();
      await starting;
      assert.equal(agent.isRunning, true);
      assert.equal(agent.transport.ready, true);
      assert.equal(agent.healthz().status, 'ready');
    });

    test('the endpoint table has exactly the routes available on this transport', async (t) => {
      const listening = deferred<Dispatcher>();
      const binding = await hookedBinding(kind, { beforeListen: (dispatcher) => listening.resolve(dispatcher) });
      const agent = new AgentServer({ name: 'routes', transport: new Transport(binding, listenUrl(kind)) });
      t.after(() => agent.stop());
      await agent.start();
      const routes = [...(await listening.promise).endpoints.keys()].sort();
      const expected = [
        'GET /.well-known/agent.json',
        'GET /healthz',
        'GET /readyz',
        'POST /llm/history/compact',
        'POST /state/compact',
        'POST /state/describe',
        'POST /state/reset',
        'POST /tasks/',
        'POST /tasks/cancel',
        // Pages and the OpenAPI document on http only; the task stream only where the transport
        // streams; no POST /chat without a model, no GET /metrics unless metrics are on.
        ...(kind === 'http' ? ['GET /chat', 'GET /openapi.json', 'GET /status'] : ['POST /tasks/stream']),
      ].sort();
      assert.deepEqual(routes, expected);
    });

    test('a repeated start while running is a no-op', async (t) => {
      const binding = await hookedBinding(kind, {});
      const agent = new AgentServer({ name: 'twice', transport: new Transport(binding, listenUrl(kind)) });
      t.after(() => agent.stop());
      await agent.start();
      const url = agent.url;
      await agent.start();
      assert.equal(agent.isRunning, true);
      assert.equal(agent.url, url);
      assert.equal(binding.listens, 1);
    });

    test('concurrent starts start one transport', async (t) => {
      // Built from a transport name, so start() creates the transport itself.
      const agent = new AgentServer({ name: 'racing', transport: kind, url: listenUrl(kind) });
      t.after(() => agent.stop());
      await Promise.all([agent.start(), agent.start()]);
      assert.equal(agent.isRunning, true);
      const client = await createTransport(kind, agent.url);
      t.after(() => client.stop());
      const task = await new AgentOperationsClient(client).sendTask(userTask('race-1', 'hi'));
      assert.equal(task.state, 'completed');
      await agent.stop();
      assert.equal(agent.isRunning, false);
    });

    test('stop stops the transport and marks the server idle; repeated stop is safe', async () => {
      const h = await startAgent(kind, { name: 'stopper' });
      assert.equal((await h.client.healthz()).status, 'ready');
      await h.agent.stop();
      assert.equal(h.agent.isRunning, false);
      assert.equal(h.agent.healthz().status, 'stopped');
      assert.equal(h.agent.healthz().ready, false);
      // Nobody answers at the address any more (a fresh caller: no pooled connection to reuse).
      const late = await h.newClient();
      await assert.rejects(late.healthz(), { name: 'TransportConnectionError' });
      await h.agent.stop();
      await h.agent.stop();
      assert.equal(h.agent.isRunning, false);
      await h.close();
    });

    test('a stopped server can be started again at the same address', async () => {
      const h = await startAgent(kind, { name: 'phoenix' });
      const url = h.agent.url;
      await h.agent.stop();
      await h.agent.start();
      assert.equal(h.agent.isRunning, true);
      assert.equal(h.agent.url, url);
      const late = await h.newClient();
      assert.equal((await late.sendTask(userTask('again-1', 'back'))).state, 'completed');
      await h.close();
    });

    test('a transport that fails to start leaves the server not running and throws', async (t) => {
      const first = await startAgent(kind, { name: 'first' });
      t.after(() => first.close());
      // Same port (http) or same runtime name: the second listen fails.
      const second = new AgentServer({ name: 'second', transport: kind, url: first.url });
      await assert.rejects(second.start(), kind === 'http' ? { name: 'TransportConnectionError' } : /already started/);
      assert.equal(second.isRunning, false);
      assert.equal(second.healthz().status, 'stopped');
      await second.stop(); // safe on a server that never ran
      // The first one is untouched.
      assert.equal((await first.client.sendTask(userTask('still-1', 'here'))).state, 'completed');
      // Once the address is free, the failed server can start.
      await first.agent.stop();
      await second.start();
      t.after(() => second.stop());
      assert.equal(second.isRunning, true);
      const card = await (await first.newClient()).getCard();
      assert.equal(card.name, 'second');
    });

    test('a failing transport stop keeps the running flag', async (t) => {
      let failClose = true;
      const binding = await hookedBinding(kind, {
        afterClose() {
          if (failClose) throw new Error('close failed on purpose');
        },
      });
      const agent = new AgentServer({ name: 'sticky', transport: new Transport(binding, listenUrl(kind)) });
      await agent.start();
      t.after(() => agent.stop());
      await assert.rejects(agent.stop(), /close failed on purpose/);
      assert.equal(agent.isRunning, true, 'the running flag is not cleared when stop fails');
      failClose = false;
      await agent.stop();
      assert.equal(agent.isRunning, false);
    });
  });
}
