// The latency histogram counts requests itself and hands prom-client's registry the samples at
// scrape time. Its exposition must say what a prom-client Histogram fed the same observations
// says: prom-client's own class is the oracle here, rendered by the same registry code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry, type Metric } from 'prom-client';
import { LatencyHistogram } from '../../src/observability/latency-histogram.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];
const NAME = 'parley_request_duration_seconds';

/** Sample lines with their labels sorted, so label order (which Prometheus ignores) does not count. */
function samples(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([^{ ]+)(?:\{(.*)\})? (.+)$/.exec(line);
      assert.ok(match, `not a sample line: ${line}`);
      const labels = (match[2] ?? '').split(',').filter(Boolean).sort().join(',');
      return `${match[1]}{${labels}} ${Number(match[3])}`;
    })
    .sort();
}

async function exposition(feed: (observe: (operation: string, ok: boolean, seconds: number) => void) => void) {
  const ours = new Registry();
  const histogram = new LatencyHistogram(NAME, 'help', BOUNDS, 'http');
  ours.registerMetric(histogram as unknown as Metric);
  const theirs = new Registry();
  const reference = new Histogram({
    name: NAME,
    help: 'help',
    labelNames: ['transport', 'operation', 'outcome'],
    buckets: BOUNDS,
    registers: [theirs],
  });
  feed((operation, ok, seconds) => {
    histogram.observe(operation, ok, seconds);
    reference.observe({ transport: 'http', operation, outcome: ok ? 'success' : 'error' }, seconds);
  });
  return { ours: await ours.metrics(), theirs: await theirs.metrics(), histogram, registry: ours };
}

test('the exposition matches a prom-client Histogram fed the same observations, bucket by bucket', async () => {
  const { ours, theirs } = await exposition((observe) => {
    // Below the first bound, exactly on bounds (le is inclusive), between them, above the last.
    for (const seconds of [0.0002, 0.001, 0.005, 0.01, 0.5, 1, 3]) observe('sendTask', true, seconds);
    observe('sendTask', false, 0.02);
    observe('getTask', true, 0.0007);
    observe('getTask', true, 120);
  });
  assert.deepEqual(samples(ours), samples(theirs));
  assert.ok(ours.includes(`# TYPE ${NAME} histogram`), ours);
  // The buckets are cumulative and +Inf holds the count.
  assert.ok(samples(ours).includes(`${NAME}_bucket{le="0.01",operation="sendTask",outcome="success",transport="http"} 4`), ours);
  assert.ok(samples(ours).includes(`${NAME}_bucket{le="+Inf",operation="sendTask",outcome="success",transport="http"} 7`), ours);
  assert.ok(samples(ours).includes(`${NAME}_count{operation="sendTask",outcome="error",transport="http"} 1`), ours);
});

test('no observation, no series; resetMetrics forgets them', async () => {
  const { ours, theirs } = await exposition(() => {});
  assert.deepEqual(samples(ours), samples(theirs));
  assert.deepEqual(samples(ours), []);
  const { histogram, registry: filled } = await exposition((observe) => observe('sendTask', true, 0.003));
  assert.equal(samples(await filled.metrics()).length, BOUNDS.length + 3);
  filled.resetMetrics();
  assert.deepEqual(samples(await filled.metrics()), []);
  histogram.observe('sendTask', true, 0.003);
  assert.equal(samples(await filled.metrics()).length, BOUNDS.length + 3);
});
