// bench/http: native POST /tasks/ to the echo agent on the http transport against a raw
// node:http JSON server, same load generator (autocannon, 32 connections), same run, rounds
// alternated. Target: parley at least 70% of the raw baseline. Also: runtime transport round
// trip per 1 KB task, against serializing the same task in and out.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { AgentServer } from '../src/agent/agent-server.js';
import { AgentClient } from '../src/client/agent-client.js';
import { sampleTask, startChildServer } from './lib/child-server.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 32;

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

async function load(url: string): Promise<Figures> {
  const result = await autocannon({
    url: `${url}/tasks/`,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // A fresh task id per request, so parley's idempotency cache never replays.
        setupRequest: (request) => ({ ...request, body: JSON.stringify(sampleTask(randomUUID(), 256)) }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    requests: result.requests.total,
  };
}

function best(runs: Figures[]): Figures {
  return runs.reduce((a, b) => (b.rps > a.rps ? b : a));
}

async function httpComparison(): Promise<void> {
  const raw = await startChildServer('bench/servers/raw-http.mjs');
  const parley = await startChildServer('bench/servers/parley-agent.mjs', ['http', 'http://127.0.0.1:0']);
  const rawRuns: Figures[] = [];
  const parleyRuns: Figures[] = [];
  let rawWarm: Figures = { rps: 0, p50: 0, p99: 0, errors: 0, requests: 0 };
  let parleyWarm = rawWarm;
  let rawCpu: number | null = null;
  let parleyCpu: number | null = null;
  try {
    rawWarm = await load(raw.url); // warm-up both
    parleyWarm = await load(parley.url);
    for (let round = 0; round < ROUNDS; round++) {
      rawRuns.push(await load(raw.url));
      parleyRuns.push(await load(parley.url));
    }
  } finally {
    rawCpu = await raw.stop();
    parleyCpu = await parley.stop();
  }
  const a = best(rawRuns);
  const b = best(parleyRuns);
  // CPU per request counts every request served, warm-up included; it does not depend on how
  // busy the rest of the machine is, which the throughput figures do.
  const served = (runs: Figures[], warmup: number) => runs.reduce((sum, run) => sum + run.requests, warmup);
  const rawCost = rawCpu === null ? NaN : rawCpu / served(rawRuns, rawWarm.requests);
  const parleyCost = parleyCpu === null ? NaN : parleyCpu / served(parleyRuns, parleyWarm.requests);
  console.log(`\nHTTP POST /tasks/ (${CONNECTIONS} connections, ${SECONDS}s x ${ROUNDS} rounds, best round)`);
  console.table({
    'raw node:http': { 'req/s': Math.round(a.rps), 'p50 ms': a.p50, 'p99 ms': a.p99, errors: a.errors, 'server CPU µs/req': rawCost.toFixed(1) },
    'parley http': { 'req/s': Math.round(b.rps), 'p50 ms': b.p50, 'p99 ms': b.p99, errors: b.errors, 'server CPU µs/req': parleyCost.toFixed(1) },
  });
  console.log(`throughput ratio parley/raw: ${(b.rps / a.rps).toFixed(2)} (target >= 0.70)`);
  console.log(`CPU cost ratio raw/parley:   ${(rawCost / parleyCost).toFixed(2)} (the same ratio, measured in CPU time)`);
}

async function runtimeRoundTrip(): Promise<void> {
  const agent = new AgentServer({ name: 'echo', transport: 'runtime', url: 'runtime://bench' });
  await agent.start();
  const client = new AgentClient('runtime://bench');
  const iterations = 5000;
  const tasks = Array.from({ length: iterations + 500 }, () => sampleTask(randomUUID(), 1024));
  for (let i = 0; i < 500; i++) await client.sendTask(tasks[i] as never);
  let started = performance.now();
  for (let i = 500; i < tasks.length; i++) await client.sendTask(tasks[i] as never);
  const perTask = ((performance.now() - started) * 1000) / iterations;
  // Baseline: the serialization alone (task out and back, answer out and back).
  started = performance.now();
  for (let i = 500; i < tasks.length; i++) JSON.parse(JSON.stringify(JSON.parse(JSON.stringify(tasks[i]))));
  const baseline = ((performance.now() - started) * 1000) / iterations;
  await client.close();
  await agent.stop();
  console.log(`\nruntime transport, 1 KB task, sequential round trips`);
  console.table({
    'runtime sendTask': { 'µs/task': perTask.toFixed(1) },
    'JSON in+out only': { 'µs/task': baseline.toFixed(1) },
  });
  console.log(`ratio runtime/JSON-only: ${(perTask / baseline).toFixed(1)}x`);
}

// The servers run the compiled code; build it first.
execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
await httpComparison();
await runtimeRoundTrip();
