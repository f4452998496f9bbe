// The A2A HTTP+JSON binding routes by templates (/a2a/rest/tasks/{id}, and again under a
// tenant), so its spans and metric labels must be named by the route, never by the path a
// caller sent: one name per task id would grow without bound. Calls for several task ids and
// tenants make one SERVER span name and one histogram series per operation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { AgentServer } from '../../src/agent/agent-server.js';
import { exporter, useTracingSdk } from '../support/tracing-sdk.js';

useTracingSdk();

test('GetTask and CancelTask over HTTP+JSON: one span name and one metric series per operation, whatever the task id or tenant', async (t) => {
  const agent = new AgentServer({
    name: 'rest',
    description: 'echoes',
    a2a: true,
    tracing: true,
    metrics: true,
    handler: ({ input }) => `echo: ${input}`,
  });
  await agent.start();
  t.after(() => agent.stop());
  const paths = [
    '/a2a/rest/tasks/first-id',
    '/a2a/rest/tasks/second-id',
    '/a2a/rest/acme/tasks/third-id',
    '/a2a/rest/globex/tasks/fourth-id',
  ];
  for (const path of paths) {
    const get = await fetch(`${agent.url}${path}`, { headers: { 'a2a-version': '1.0' } });
    assert.equal(get.status, 404, `${path}: an unknown task`);
    await get.text();
    const cancel = await fetch(`${agent.url}${path}:cancel`, {
      method: 'POST',
      headers: { 'a2a-version': '1.0', 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(cancel.status, 404, `${path}:cancel: an unknown task`);
    await cancel.text();
  }
  const served = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
  const names = [...new Set(served.map((span) => span.name))].sort();
  assert.deepEqual(names, ['parley a2aRestCancelTask', 'parley a2aRestGetTask']);
  assert.equal(served.length, paths.length * 2);
  for (const span of served) {
    for (const value of Object.values(span.attributes)) {
      assert.ok(!String(value).includes('-id'), `${span.name}: no attribute carries the task id (${value})`);
    }
  }

  const text = await (await fetch(`${agent.url}/metrics`)).text();
  const series = text
    .split('\n')
    .filter((line) => line.startsWith('parley_request_duration_seconds_count{'))
    .filter((line) => line.includes('a2aRest'));
  assert.deepEqual(series.map((line) => /operation="([^"]*)"/.exec(line)?.[1]).sort(), ['a2aRestCancelTask', 'a2aRestGetTask']);
  assert.ok(!text.includes('-id'), 'no task id in the exposition');
});
