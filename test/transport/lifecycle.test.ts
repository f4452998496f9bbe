// Spec "States and transitions > Transport lifecycle" and "Health payload": stopped -> start()
// -> ready -> stop() -> stopped; a second start is a no-op; repeated stop is safe; the health
// payload validates and reports the capabilities row of its transport.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { validate } from '../../generated/validators/index.js';
import { TransportConnectionError, TransportProtocolError } from '../../src/transport/errors.js';
import { createTransport, loadBinding } from '../../src/transport/factory.js';
import type { Transport } from '../../src/transport/transport.js';
import { SPEC_CAPABILITIES, type SpecTransport } from '../support/spec-tables.js';
import { client, echoTask, ops, rejection, runtimeUrl, table, unary, waitFor } from '../support/transport-fixtures.js';

for (const name of Object.keys(SPEC_CAPABILITIES) as SpecTransport[]) {
  test(`capabilities of ${name} match the spec table`, async () => {
    const { pages: _pages, ...declared } = (await loadBinding(name)).capabilities;
    assert.deepEqual(declared, SPEC_CAPABILITIES[name]);
    assert.ok(validate('transport-capabilities', declared).valid);
  });
}

function assertHealth(transport: Transport, name: string, ready: boolean): void {
  const health = transport.health();
  const checked = validate('health', health);
  assert.ok(checked.valid, JSON.stringify(checked.valid ? null : checked.errors));
  assert.equal(health.status, ready ? 'ready' : 'stopped');
  assert.equal(health.ready, ready);
  assert.equal(transport.ready, ready);
  assert.equal(health.transport, name);
  assert.equal(health.url, transport.url);
  assert.deepEqual(health.capabilities, SPEC_CAPABILITIES[name as SpecTransport]);
}

/** TCP listeners this process has open (http servers). */
const listeners = () => process.getActiveResourcesInfo().filter((name) => name === 'TCPServerWrap').length;
const BASELINE = listeners();
/** Waits until listeners of earlier tests are gone (libuv releases a closed handle a bit later). */
async function quiet(): Promise<number> {
  await waitFor(() => listeners() === BASELINE, 'listeners of earlier tests released');
  return BASELINE;
}

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

for (const name of ['http', 'runtime'] as const) {
  const initialUrl = () => (name === 'http' ? 'http://127.0.0.1:0' : runtimeUrl('life'));

  test(`${name}: stopped -> start() -> ready -> stop() -> stopped`, async () => {
    const transport = await createTransport(name, initialUrl());
    assertHealth(transport, name, false);
    const before = await quiet();
    await transport.start(table(echoTask()));
    assertHealth(transport, name, true);
    if (name === 'http') {
      assert.match(transport.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(new URL(transport.url).port, '0', 'the URL is the address actually bound');
      assert.equal(listeners(), before + 1);
    }
    await transport.stop();
    assertHealth(transport, name, false);
    if (name === 'http') {
      assert.ok(await refused(transport.url), 'nothing listens after stop');
      // libuv drops the closed handle from the active list a moment after the close callback.
      await waitFor(() => listeners() === before, 'listener handle released');
    }
  });

  test(`${name}: a second start() while running is a no-op (same URL, one listener)`, async (t) => {
    const transport = await createTransport(name, initialUrl());
    t.after(() => transport.stop());
    const before = await quiet();
    await transport.start(table(echoTask()));
    const url = transport.url;
    await transport.start(table(echoTask()));
    assert.equal(transport.url, url);
    assertHealth(transport, name, true);
    if (name === 'http') assert.equal(listeners(), before + 1);
    // Still serving the first table.
    const api = new AgentOperationsClient(await client(t, name, url));
    assert.equal((await api.sendTask({ id: 'x' })).state, 'completed');
  });

  test(`${name}: two start() calls at once still make one listener`, async (t) => {
    const transport = await createTransport(name, initialUrl());
    t.after(() => transport.stop());
    const before = await quiet();
    await Promise.all([transport.start(table(echoTask())), transport.start(table(echoTask()))]);
    assertHealth(transport, name, true);
    if (name === 'http') assert.equal(listeners(), before + 1);
  });

  test(`${name}: repeated stop() is safe, also before any start()`, async () => {
    const never = await createTransport(name, initialUrl());
    await never.stop();
    await never.stop();
    assertHealth(never, name, false);
    const transport = await createTransport(name, initialUrl());
    await transport.start(table(echoTask()));
    await transport.stop();
    await transport.stop();
    await Promise.all([transport.stop(), transport.stop()]);
    assertHealth(transport, name, false);
  });

  test(`${name}: a stopped transport can start again`, async (t) => {
    const transport = await createTransport(name, initialUrl());
    t.after(() => transport.stop());
    await transport.start(table(echoTask()));
    await transport.stop();
    await transport.start(table(echoTask()));
    assertHealth(transport, name, true);
    const api = new AgentOperationsClient(await client(t, name, transport.url));
    assert.equal((await api.sendTask({ id: 'again' })).state, 'completed');
  });

  test(`${name}: after stop() callers get a retryable TransportConnectionError`, async (t) => {
    const transport = await createTransport(name, initialUrl());
    await transport.start(table(echoTask()));
    const caller = await client(t, name, transport.url);
    const api = new AgentOperationsClient(caller);
    await api.sendTask({ id: 'before' });
    await transport.stop();
    // A fresh caller cannot connect at all.
    const fresh = await rejection(new AgentOperationsClient(await client(t, name, transport.url)).sendTask({ id: 'after' }));
    assert.ok(fresh instanceof TransportConnectionError, String(fresh));
    assert.equal(fresh.retryable, true);
    // The caller that already talked to it may first find its pooled keep-alive connection
    // dropped (an HTTP-layer disconnect); either way the failure is retryable.
    const pooled = await rejection(api.sendTask({ id: 'after' }));
    assert.ok(pooled instanceof TransportConnectionError || pooled instanceof TransportProtocolError, String(pooled));
    assert.equal(pooled.retryable, true);
  });

  test(`${name}: the health endpoint serves the transport's own payload, valid against health`, async (t) => {
    let server!: Transport;
    const endpoints = table(
      unary(ops.healthz, () => server.health()),
      unary(ops.readyz, () => server.health()),
    );
    server = await createTransport(name, initialUrl());
    await server.start(endpoints);
    t.after(() => server.stop());
    const api = new AgentOperationsClient(await client(t, name, server.url));
    const health = await api.healthz();
    assert.ok(validate('health', health).valid);
    assert.equal(health.status, 'ready');
    assert.equal(health.ready, true);
    assert.equal(health.transport, name);
    assert.equal(health.url, server.url);
    assert.deepEqual(health.capabilities, SPEC_CAPABILITIES[name as SpecTransport]);
    const ready = await api.readyz();
    assert.ok(validate('health', ready).valid);
    assert.deepEqual(ready.capabilities, health.capabilities);
  });

  test(`${name}: metrics start at zero`, async (t) => {
    const transport = await createTransport(name, initialUrl());
    t.after(() => transport.stop());
    await transport.start(table(echoTask()));
    for (const value of Object.values(transport.health().metrics)) assert.equal(value, 0);
  });
}

test('http: start() on a port already in use fails and leaves the transport stopped', async (t) => {
  const first = await createTransport('http', 'http://127.0.0.1:0');
  await first.start(table(echoTask()));
  t.after(() => first.stop());
  const second = await createTransport('http', first.url);
  const error = await rejection(second.start(table(echoTask())));
  assert.ok(error instanceof TransportConnectionError, String(error));
  assertHealth(second, 'http', false);
  await second.stop();
});

test('runtime: a stopped target no longer answers; a new transport may take its URL', async (t) => {
  const url = runtimeUrl('life-reuse');
  const first = await createTransport('runtime', url);
  await first.start(table(echoTask()));
  await first.stop();
  const second = await createTransport('runtime', url);
  await second.start(table(unary(ops.sendTask, (task) => ({ ...task, state: 'failed' }))));
  t.after(() => second.stop());
  const api = new AgentOperationsClient(await client(t, 'runtime', url));
  assert.equal((await api.sendTask({ id: 'r' })).state, 'failed');
});
