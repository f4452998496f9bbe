// GET /metrics scraped for real: traffic goes to an agent or registry over its own wire, the
// exposition is read with an independent Prometheus text-format parser, and the numbers must be
// the traffic's. Covers the route on http and sse, the separate listener for websocket and grpc,
// the route's absence without the option, and its authentication.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { RegistryOperationsClient } from '../../generated/clients/registry.js';
import type { Task } from '../../generated/types/index.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { RegistryServer } from '../../src/registry/registry-server.js';
import { createTransport } from '../../src/transport/factory.js';
import { keyAuthenticator } from '../support/key-authenticator.js';

type Families = ReturnType<typeof parsePrometheusTextFormat>;

function task(id: string): Task {
  return { id, messages: [{ role: 'user', parts: [{ type: 'text', content: `hello ${id}` }] }] };
}

interface Scrape {
  readonly families: Families;
  readonly text: string;
  readonly type: string;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return { families: parsePrometheusTextFormat(text), text, type: res.headers.get('content-type') ?? '' };
}

/**
 * How many requests the latency histogram holds for one operation and outcome. Read from the
 * `_count` line: the parser folds a histogram's label sets into one, so it cannot tell them apart.
 */
function histogramCount(text: string, transport: string, operation: string, outcome: string): number {
  const line = `parley_request_duration_seconds_count{transport="${transport}",operation="${operation}",outcome="${outcome}"} `;
  const found = text.split('\n').find((entry) => entry.startsWith(line));
  assert.ok(found, `no histogram for ${operation} ${outcome} on ${transport}`);
  return Number(found.slice(line.length));
}

/** The value of one sample of a family, found by its labels. */
function sample(families: Families, name: string, labels: Record<string, string>): number {
  const family = families.find((entry) => entry.name === name);
  assert.ok(family, `no ${name} in the exposition`);
  const found = family.metrics.find((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));
  assert.ok(found, `no ${name} sample with ${JSON.stringify(labels)}`);
  return Number(found.value ?? found.count);
}

for (const transport of ['http', 'sse'] as const) {
  test(`${transport} agent: GET /metrics counts the traffic sent, per operation`, async (t) => {
    const agent = new AgentServer({ name: 'metered', transport, url: 'http://127.0.0.1:0', metrics: true });
    await agent.start();
    t.after(() => agent.stop());
    const client = await createTransport(transport, agent.url);
    t.after(() => client.stop());
    const agents = new AgentOperationsClient(client);
    for (const id of ['a', 'b', 'c']) assert.equal((await agents.sendTask(task(id))).state, 'completed');
    // A body that fails its schema: a failed sendTask.
    const refused = await fetch(`${agent.url}/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"messages": 5}',
    });
    assert.equal(refused.status, 400);
    const { families, text, type } = await scrape(`${agent.url}/metrics`);
    assert.match(type, /^text\/plain; version=0\.0\.4/);
    const labels = { transport };
    // The scrape itself is in flight while the numbers are read: started and active count it.
    assert.equal(sample(families, 'parley_requests_started_total', labels), 5);
    assert.equal(sample(families, 'parley_requests_succeeded_total', labels), 3);
    assert.equal(sample(families, 'parley_requests_failed_total', labels), 1);
    assert.equal(sample(families, 'parley_active_requests', labels), 1);
    assert.ok(sample(families, 'parley_bytes_received_total', labels) > 0);
    assert.equal(histogramCount(text, transport, 'sendTask', 'success'), 3);
    assert.equal(histogramCount(text, transport, 'sendTask', 'error'), 1);
    assert.equal(sample(families, 'parley_tasks', { state: 'completed' }), 3);
    assert.ok(
      families.some((family) => family.name === 'process_cpu_user_seconds_total'),
      'process metrics are collected',
    );
    assert.equal(families.find((family) => family.name === 'parley_requests_started_total')?.type, 'COUNTER');
  });
}

test('without the metrics option there is no /metrics route', async (t) => {
  const agent = new AgentServer({ name: 'plain', transport: 'http', url: 'http://127.0.0.1:0' });
  await agent.start();
  t.after(() => agent.stop());
  const res = await fetch(`${agent.url}/metrics`);
  assert.equal(res.status, 404);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'not_found');
});

test('GET /metrics follows the authenticator unless made public', async (t) => {
  const guarded = new AgentServer({ name: 'guarded', url: 'http://127.0.0.1:0', metrics: true, authenticator: keyAuthenticator });
  const open = new AgentServer({
    name: 'open',
    url: 'http://127.0.0.1:0',
    metrics: { public: true, processMetrics: false },
    authenticator: keyAuthenticator,
  });
  await Promise.all([guarded.start(), open.start()]);
  t.after(() => Promise.all([guarded.stop(), open.stop()]));
  const denied = await fetch(`${guarded.url}/metrics`);
  assert.equal(denied.status, 401);
  assert.equal(((await denied.json()) as { error: { code: string } }).error.code, 'unauthenticated');
  await scrape(`${guarded.url}/metrics`, { 'x-api-key': 'good' });
  const { families } = await scrape(`${open.url}/metrics`);
  assert.ok(!families.some((family) => family.name.startsWith('process_')), 'processMetrics: false leaves them out');
  // Tasks still need the key on the public-metrics agent.
  const body = JSON.stringify(task('x'));
  const tasks = await fetch(`${open.url}/tasks/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  assert.equal(tasks.status, 401);
});

for (const [transport, url] of [
  ['websocket', 'ws://127.0.0.1:0'],
  ['grpc', 'grpc://127.0.0.1:0'],
] as const) {
  test(`${transport} agent: metrics on a listener of its own count requests and streams`, async (t) => {
    const agent = new AgentServer({ name: 'metered', transport, url, metrics: { url: 'http://127.0.0.1:0' } });
    await agent.start();
    t.after(() => agent.stop());
    assert.ok(agent.metricsUrl);
    const client = await createTransport(transport, agent.url);
    t.after(() => client.stop());
    const agents = new AgentOperationsClient(client);
    await agents.sendTask(task('one'));
    await agents.sendTask(task('two'));
    const events = [];
    for await (const event of agents.streamTask(task('three'))) events.push(event);
    assert.ok(events.length > 0);
    const { families, text } = await scrape(agent.metricsUrl);
    const labels = { transport };
    // The scrape went to the side listener: it is not the agent's traffic.
    assert.equal(sample(families, 'parley_requests_started_total', labels), 2);
    assert.equal(sample(families, 'parley_requests_succeeded_total', labels), 2);
    assert.equal(sample(families, 'parley_streams_started_total', labels), 1);
    assert.equal(sample(families, 'parley_streams_completed_total', labels), 1);
    assert.equal(sample(families, 'parley_active_requests', labels), 0);
    assert.equal(histogramCount(text, transport, 'sendTask', 'success'), 2);
    assert.equal(sample(families, 'parley_tasks', { state: 'completed' }), 3);
    // Only /metrics lives there.
    assert.equal((await fetch(agent.metricsUrl.replace(/\/metrics$/, '/tasks/'), { method: 'POST', body: '{}' })).status, 404);
  });
}

test('registry: GET /metrics counts registrations', async (t) => {
  const registry = new RegistryServer({ url: 'http://127.0.0.1:0', metrics: true });
  await registry.start();
  t.after(() => registry.stop());
  const client = await createTransport('http', registry.url);
  t.after(() => client.stop());
  const registries = new RegistryOperationsClient(client);
  await registries.register({
    name: 'a',
    description: 'an agent',
    url: 'http://127.0.0.1:1',
    transport: 'http',
    version: '1.0.0',
  } as never);
  const { families, text } = await scrape(`${registry.url}/metrics`);
  assert.equal(sample(families, 'parley_requests_succeeded_total', { transport: 'http' }), 1);
  assert.equal(histogramCount(text, 'http', 'register', 'success'), 1);
});
