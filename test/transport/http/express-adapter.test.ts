// An agent mounted inside a real express app: its routes answer under the mount path, the
// app's own routes keep working, and the card and health report the public URL.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from 'express';
import { AgentServer } from '../../../src/agent/agent-server.js';
import { AgentClient } from '../../../src/client/agent-client.js';
import { createMountedTransport } from '../../../src/transport/http/express-adapter.js';

async function startApp(t: { after(fn: () => unknown): void }, withJsonParser: boolean) {
  const app = express();
  if (withJsonParser) app.use(express.json());
  app.get('/own', (_req, res) => res.json({ mine: true }));
  const listening = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => listening.once('listening', resolve));
  t.after(() => new Promise<void>((resolve) => listening.close(() => resolve())));
  const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  return { app, base };
}

for (const withJsonParser of [false, true]) {
  test(`an agent mounted at /agent in express${withJsonParser ? ' behind express.json()' : ''}`, async (t) => {
    const { app, base } = await startApp(t, withJsonParser);
    const { transport, handler } = createMountedTransport(`${base}/agent`);
    // Before the agent starts, the mount answers 503.
    app.use('/agent', handler);
    const early = await fetch(`${base}/agent/healthz`, { headers: { 'x-svc-request-id': 'too-early' } });
    assert.equal(early.status, 503);
    assert.deepEqual(await early.json(), {
      error: { code: 'unavailable', message: 'the agent is not started', status: 503, request_id: 'too-early' },
    });

    const agent = new AgentServer({ name: 'mounted', transport });
    await agent.start();
    t.after(() => agent.stop());

    const client = new AgentClient(`${base}/agent`);
    t.after(() => client.close());
    const task = await client.sendTask('through express');
    assert.equal(task.state, 'completed');
    assert.equal(task.artifacts?.[0]?.parts[0]?.content, 'through express');
    const card = await client.getCard();
    assert.equal(card.url, `${base}/agent`);
    assert.equal((await client.health()).status, 'ready');

    const own = await fetch(`${base}/own`);
    assert.deepEqual(await own.json(), { mine: true });

    const bad = await fetch(`${base}/agent/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 7 }),
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'invalid_request');
  });
}
