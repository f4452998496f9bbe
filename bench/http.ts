// bench/http: native POST /tasks/ to the echo agent on the http transport against a raw
// node:http JSON server, same load generator (autocannon, 32 connections), same run, rounds
// alternated; servers on one core, the load generator on the other (cpu-pinning.ts). Target:
// parley at least 70% of the raw baseline. Then `parley serve agent` as users start it, with its
// default logging (a JSON line per request) against --log-level silent, stdout a pipe read line
// by line as a log collector reads it; target: at least 0.90. Also: runtime transport round trip per 1 KB task (the
// compiled code, in this process) against serializing the same task in and out; target: a
// median round trip under 20 µs.
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { sampleTask } from './lib/child-server.js';
import { pinLoadGenerator, pinningNote } from './lib/cpu-pinning.js';
import { judgeRatio, median, pairedRatios } from './lib/paired-rounds.js';
import { CONNECTIONS, ROUNDS, SECONDS, contender, contenderRows, cpuPerRequest, runContenders } from './lib/task-load.js';

const DIST = new URL('../dist/', import.meta.url).href;

const RAW_ANSWER_NOTE = 'the task back with its state (about 300 bytes), parley the filled-in task (about 1.2 KB)';

async function httpComparison(): Promise<void> {
  const contenders = [
    contender('raw node:http', 'bench/servers/raw-http.mjs', []),
    contender('parley http', 'bench/servers/parley-agent.mjs', ['http', 'http://127.0.0.1:0']),
    // Informational: a raw server sending parley's answer, built by hand (the same bytes).
    contender('raw, parley-sized answer', 'bench/servers/raw-http.mjs', ['full']),
  ];
  await runContenders(contenders);
  // CPU per request counts every request served, warm-up included; it does not depend on how
  // busy the rest of the machine is, which the throughput figures do.
  const byName = (name: string) => contenders.find((one) => one.name === name)!;
  const rounds = (name: string) => byName(name).runs.map((run) => run.rps);
  const ratio = (a: string, b: string) => Math.max(...rounds(a)) / Math.max(...rounds(b));
  const paired = pairedRatios(rounds('parley http'), rounds('raw node:http'));
  console.log(`\nHTTP POST /tasks/ (${CONNECTIONS} connections, ${SECONDS}s x ${ROUNDS} rounds alternated, best round)`);
  console.table(contenderRows(contenders));
  console.log(`throughput ratio parley/raw: ${judgeRatio(paired, ratio('parley http', 'raw node:http'))}`);
  const cost = (name: string) => cpuPerRequest(byName(name)) ?? Number.NaN;
  console.log(
    `CPU cost ratio raw/parley:   ${(cost('raw node:http') / cost('parley http')).toFixed(2)} (the same ratio, measured in CPU time)`,
  );
  console.log(
    `parley / (raw, parley-sized answer): ${ratio('parley http', 'raw, parley-sized answer').toFixed(2)} ` +
      `(informational: the raw echo answers ${RAW_ANSWER_NOTE})`,
  );
}

/** The compiled `parley` command, reporting its CPU at exit. */
const CLI = 'bench/servers/cli-serve.mjs';
const CLI_SERVE = ['serve', 'agent', '--url', 'http://127.0.0.1:0'];

async function cliLogging(): Promise<void> {
  const contenders = [
    contender('serve agent, default logging', CLI, CLI_SERVE),
    contender('serve agent, --log-level silent', CLI, [...CLI_SERVE, '--log-level', 'silent']),
    // Informational: a line per write, as the command logged before its lines were batched.
    contender('a write per line (before)', 'bench/servers/parley-agent.mjs', ['http', 'http://127.0.0.1:0', 'log-each-line']),
  ];
  // child-server.ts reads each server's stdout line by line: the log collector.
  await runContenders(contenders);
  const rounds = (name: string) => contenders.find((one) => one.name === name)!.runs.map((run) => run.rps);
  const best = (name: string) => Math.max(...rounds(name));
  console.log(
    `\nparley serve agent's logging, POST /tasks/ (${CONNECTIONS} connections, ${SECONDS}s x ${ROUNDS} rounds alternated)`,
  );
  console.table(contenderRows(contenders));
  const [logged, silent, before] = contenders.map((one) => one.name) as [string, string, string];
  const paired = pairedRatios(rounds(logged), rounds(silent));
  console.log(`default logging / silent: ${judgeRatio(paired, best(logged) / best(silent), 0.9)}`);
  const cost = (name: string) => cpuPerRequest(contenders.find((one) => one.name === name)!) ?? Number.NaN;
  console.log(
    `CPU cost ratio silent/default logging: ${(cost(silent) / cost(logged)).toFixed(3)}; a write per line: ${(cost(silent) / cost(before)).toFixed(3)} (the same ratios in CPU time, steadier on a busy machine)`,
  );
  console.log(
    `a write per line / silent: median ${median(pairedRatios(rounds(before), rounds(silent))).toFixed(3)} (informational)`,
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
await cliLogging();
await runtimeRoundTrip();
