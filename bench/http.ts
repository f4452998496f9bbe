// bench/http: native POST /tasks/ to the echo agent on the http transport against a raw
// node:http JSON server, same load generator (autocannon, 32 connections), same run, rounds
// alternated; servers on one core, the load generator on the other (cpu-pinning.ts). Target:
// parley at least 70% of the raw baseline. Also: runtime transport round trip per 1 KB task (the
// compiled code, in this process) against serializing the same task in and out; target: a
// median round trip under 20 µs.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { sampleTask, startChildServer } from './lib/child-server.js';
import { pinLoadGenerator, pinningNote } from './lib/cpu-pinning.js';
import { judgeRatio, median, pairedRatios } from './lib/paired-rounds.js';

const DIST = new URL('../dist/', import.meta.url).href;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
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

const NO_FIGURES: Figures = { rps: 0, p50: 0, p99: 0, errors: 0, requests: 0 };
const RAW_ANSWER_NOTE = 'the task back with its state (about 300 bytes), parley the filled-in task (about 1.2 KB)';

function best(runs: Figures[]): Figures {
  return runs.reduce((a, b) => (b.rps > a.rps ? b : a));
}

interface Contender {
  readonly name: string;
  readonly server: Awaited<ReturnType<typeof startChildServer>>;
  readonly runs: Figures[];
  warmup: Figures;
  cpu: number | null;
}

async function httpComparison(): Promise<void> {
  const contenders: Contender[] = [];
  const add = async (name: string, script: string, args: string[]) =>
    contenders.push({ name, server: await startChildServer(script, args), runs: [], warmup: NO_FIGURES, cpu: null });
  try {
    await add('raw node:http', 'bench/servers/raw-http.mjs', []);
    await add('parley http', 'bench/servers/parley-agent.mjs', ['http', 'http://127.0.0.1:0']);
    // Informational: a raw server sending parley's answer, built by hand (the same bytes).
    await add('raw, parley-sized answer', 'bench/servers/raw-http.mjs', ['full']);
    for (const contender of contenders) contender.warmup = await load(contender.server.url);
    for (let round = 0; round < ROUNDS; round++) {
      for (const contender of contenders) contender.runs.push(await load(contender.server.url));
    }
  } finally {
    for (const contender of contenders) contender.cpu = await contender.server.stop();
  }
  // CPU per request counts every request served, warm-up included; it does not depend on how
  // busy the rest of the machine is, which the throughput figures do.
  const rows: Record<string, Record<string, number | string>> = {};
  const bestOf = new Map<string, Figures>();
  const costOf = new Map<string, number>();
  for (const { name, runs, warmup, cpu } of contenders) {
    const top = best(runs);
    const served = runs.reduce((sum, run) => sum + run.requests, warmup.requests);
    const cost = cpu === null ? NaN : cpu / served;
    bestOf.set(name, top);
    costOf.set(name, cost);
    rows[name] = {
      'req/s': Math.round(top.rps),
      'p50 ms': top.p50,
      'p99 ms': top.p99,
      errors: top.errors,
      'server CPU µs/req': cost.toFixed(1),
    };
  }
  const ratio = (a: string, b: string) => bestOf.get(a)!.rps / bestOf.get(b)!.rps;
  const rounds = (name: string) => contenders.find((contender) => contender.name === name)!.runs.map((run) => run.rps);
  const paired = pairedRatios(rounds('parley http'), rounds('raw node:http'));
  console.log(`\nHTTP POST /tasks/ (${CONNECTIONS} connections, ${SECONDS}s x ${ROUNDS} rounds alternated, best round)`);
  console.table(rows);
  console.log(`throughput ratio parley/raw: ${judgeRatio(paired, ratio('parley http', 'raw node:http'))}`);
  console.log(
    `CPU cost ratio raw/parley:   ${(costOf.get('raw node:http')! / costOf.get('parley http')!).toFixed(2)} (the same ratio, measured in CPU time)`,
  );
  console.log(
    `parley / (raw, parley-sized answer): ${ratio('parley http', 'raw, parley-sized answer').toFixed(2)} ` +
      `(informational: the raw echo answers ${RAW_ANSWER_NOTE})`,
  );
}

async function runtimeRoundTrip(): Promise<void> {
  // The compiled code, as users run it (and as the servers of the other benchmarks run): the
  // TypeScript loader's output for class fields is slower than tsc's.
  const [{ AgentServer }, { AgentClient }] = await Promise.all([
    import(`${DIST}src/agent/agent-server.js`) as Promise<typeof import('../dist/src/agent/agent-server.js')>,
    import(`${DIST}src/client/agent-client.js`) as Promise<typeof import('../dist/src/client/agent-client.js')>,
  ]);
  const agent = new AgentServer({ name: 'echo', transport: 'runtime', url: 'runtime://bench' });
  await agent.start();
  const client = new AgentClient('runtime://bench');
  // Measured at steady state: the first few thousand round trips run code the JIT has not
  // finished optimizing.
  const warmup = 10_000;
  const iterations = 10_000;
  const tasks = Array.from({ length: iterations + warmup }, () => sampleTask(randomUUID(), 1024));
  for (let i = 0; i < warmup; i++) await client.sendTask(tasks[i] as never);
  // Each call timed on its own: the median (the target, under 20 µs) is the cost of a call;
  // the mean adds the garbage collections and whatever else ran on the machine meanwhile.
  const calls: number[] = [];
  let started = performance.now();
  for (let i = warmup; i < tasks.length; i++) {
    const t = performance.now();
    await client.sendTask(tasks[i] as never);
    calls.push(performance.now() - t);
  }
  const perTask = ((performance.now() - started) * 1000) / iterations;
  // Baseline: the serialization alone (task out and back, answer out and back).
  const baselines: number[] = [];
  started = performance.now();
  for (let i = warmup; i < tasks.length; i++) {
    const t = performance.now();
    JSON.parse(JSON.stringify(JSON.parse(JSON.stringify(tasks[i]))));
    baselines.push(performance.now() - t);
  }
  const baseline = ((performance.now() - started) * 1000) / iterations;
  await client.close();
  await agent.stop();
  const callMedian = median(calls) * 1000;
  const baselineMedian = median(baselines) * 1000;
  console.log(`\nruntime transport, 1 KB task, sequential round trips`);
  console.table({
    'runtime sendTask': { 'median µs': callMedian.toFixed(1), 'mean µs': perTask.toFixed(1) },
    'JSON in+out only': { 'median µs': baselineMedian.toFixed(1), 'mean µs': baseline.toFixed(1) },
  });
  const verdict = callMedian < 20 ? 'OK' : 'ABOVE TARGET';
  console.log(`runtime round trip, median: ${callMedian.toFixed(2)} µs (target < 20 µs) ${verdict}`);
  console.log(`ratio runtime/JSON-only (medians): ${(callMedian / baselineMedian).toFixed(1)}x`);
}

// The servers run the compiled code; build it first.
execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
pinLoadGenerator();
console.log(pinningNote());
await httpComparison();
await runtimeRoundTrip();
