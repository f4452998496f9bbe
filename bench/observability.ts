// bench/observability: what metrics and tracing cost on the http transport. POST /tasks/ to the
// echo agent (a) with metrics and tracing off, the default; (b) with Prometheus metrics on;
// (c) with tracing on and no OpenTelemetry SDK registered; and, for information, (d) with
// tracing on and an SDK registered (spans recorded, batched and dropped; each request carries
// a traceparent, as a traced caller's would). Same load generator (autocannon, 32
// connections), same run, rounds alternated, servers on one core and the generator on the
// other (cpu-pinning.ts), as in bench/auth.ts. Targets: (b) and (c) >= 0.95 of (a), in
// requests per second and in server CPU per request; (d) has none. Rates on a shared machine
// swing more than the effect, so a steadier reading follows: runtime transport round trips in
// this process (no network, no other process), tracing off against tracing on without an SDK
// on both client and server (two spans per call), in alternated batches; target 0.95.
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { sampleTask } from './lib/child-server.js';
import { pinLoadGenerator, pinningNote } from './lib/cpu-pinning.js';
import { judgeRatio, median, pairedRatios } from './lib/paired-rounds.js';
import {
  CONNECTIONS,
  ROUNDS,
  SECONDS,
  contender,
  contenderRows,
  cpuPerRequest,
  runContenders,
  type Contender,
} from './lib/task-load.js';

const DIST = new URL('../dist/', import.meta.url).href;

const TARGET = 0.95;

const BASELINE = '(a) metrics and tracing off';

async function main(): Promise<void> {
  const agent = 'bench/servers/parley-observability-agent.mjs';
  const contenders = [
    contender(BASELINE, agent, ['off']),
    contender('(b) Prometheus metrics on', agent, ['metrics']),
    contender('(c) tracing on, no SDK', agent, ['tracing']),
    contender('(d) tracing on, SDK registered', agent, ['tracing-sdk'], {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    }),
  ];
  await runContenders(contenders);
  const byName = (name: string) => contenders.find((one) => one.name === name)!;
  const rates = (one: Contender) => one.runs.map((run) => run.rps);
  const best = (one: Contender) => Math.max(...rates(one));
  const baseline = byName(BASELINE);
  const baselineCpu = cpuPerRequest(baseline);
  console.log(`\nHTTP POST /tasks/ (${CONNECTIONS} connections, ${SECONDS}s x ${ROUNDS} rounds alternated, best round)`);
  console.table(contenderRows(contenders));
  for (const one of contenders.slice(1)) {
    const target = one.args[0] === 'tracing-sdk' ? 0 : TARGET;
    const cpu = cpuPerRequest(one);
    // CPU per request as a throughput ratio: baseline cost over this one's (1.0 = free).
    const cpuRatio = cpu === null || baselineCpu === null ? 'n/a' : (baselineCpu / cpu).toFixed(3);
    const verdict = target > 0 ? judgeRatio(pairedRatios(rates(one), rates(baseline)), best(one) / best(baseline), target) : '';
    console.log(`${one.name} / (a): req/s ${verdict || (best(one) / best(baseline)).toFixed(3)}; CPU per request ${cpuRatio}`);
  }
}

/** Median µs of sequential runtime sendTask round trips, tracing off and on, batches alternated. */
async function runtimeRoundTrips(): Promise<void> {
  // The compiled code, as users run it (the TypeScript loader's class fields are slower).
  const [{ AgentServer }, { AgentClient }] = await Promise.all([
    import(`${DIST}src/agent/agent-server.js`) as Promise<typeof import('../dist/src/agent/agent-server.js')>,
    import(`${DIST}src/client/agent-client.js`) as Promise<typeof import('../dist/src/client/agent-client.js')>,
  ]);
  const setups = [false, true].map((tracing) => {
    const url = `runtime://observability-${tracing ? 'traced' : 'plain'}`;
    return {
      tracing,
      agent: new AgentServer({ name: 'echo', transport: 'runtime', url, tracing }),
      client: new AgentClient(url, { tracing }),
      medians: [] as number[],
    };
  });
  for (const setup of setups) await setup.agent.start();
  const batch = 5000;
  const batches = Math.max(3, ROUNDS) * 2;
  const tasks = Array.from({ length: batch }, () => sampleTask(randomUUID(), 1024));
  try {
    // Warm-up: the JIT settles in the first few thousand calls.
    for (const setup of setups) for (const task of tasks) await setup.client.sendTask({ ...task, id: randomUUID() } as never);
    for (let round = 0; round < batches; round++) {
      // Each side goes first in half the rounds: what one batch leaves behind (the collector's
      // debt, a warmer cache) falls on both sides alike.
      for (const setup of round % 2 === 0 ? setups : [...setups].reverse()) {
        const calls: number[] = [];
        for (const task of tasks) {
          const fresh = { ...task, id: randomUUID() };
          const started = performance.now();
          await setup.client.sendTask(fresh as never);
          calls.push(performance.now() - started);
        }
        setup.medians.push(median(calls) * 1000);
      }
    }
  } finally {
    for (const setup of setups) {
      await setup.client.close();
      await setup.agent.stop();
    }
  }
  const [plain, traced] = setups as [(typeof setups)[0], (typeof setups)[0]];
  console.log(`\nruntime transport, 1 KB task, sequential round trips (${batches} batches of ${batch}, alternated)`);
  console.table({
    'tracing off': { 'median µs': median(plain.medians).toFixed(2) },
    'tracing on, no SDK (client and server)': { 'median µs': median(traced.medians).toFixed(2) },
  });
  // Time per call as a rate ratio: off over on (1.0 = free).
  const ratios = pairedRatios(plain.medians, traced.medians);
  const fastest = Math.min(...plain.medians) / Math.min(...traced.medians);
  console.log(`tracing on, no SDK / off (runtime round trip): ${judgeRatio(ratios, fastest, TARGET)}`);
}

// The servers run the compiled code; build it first.
execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
pinLoadGenerator();
console.log(pinningNote());
await main();
await runtimeRoundTrips();
