// bench/soak: sustained load for a fixed count of tasks on every transport, and what it leaves
// behind. For each of http, sse, websocket, grpc (the echo agent, compiled, in a child process
// started with --expose-gc) and runtime (in this process), in order:
//   warm-up  SOAK_WARMUP small tasks, enough to fill the bounded stores (the idempotency cache
//            keeps 1,024 answers, the recent-task list 100), so "start" is the steady state;
//   small    SOAK_SMALL tasks of SOAK_SMALL_BYTES from SOAK_CALLERS callers at once;
//   large    SOAK_LARGE tasks of SOAK_LARGE_BYTES (several MB, at most max_request_bytes),
//            SOAK_LARGE_CALLERS at a time (1: every delay is one request's);
//   small    SOAK_SMALL small tasks again, which also turn the bounded stores over, so the
//            large answers must be gone by the end.
// Every task has a fresh id (so a fresh idempotency key) and must come back completed. The server
// reports, after each phase (soak-monitor.mjs): RSS and heap used right after a forced full GC,
// the highest RSS and heap sampled during the phase, and the largest event-loop delay.
//
// Printed per transport: RSS and heap at start, peak and end, the largest delay in the small
// and the large phases, and tasks/s. Then the targets of issue 14: heap after GC at the end
// within 10% of the start; no event-loop delay over 100 ms in the large phase (one request of at
// most max_request_bytes at a time); grpc's figures within 2x of http's.
//
// Then, on every network transport, the crowd case (issue 28): SOAK_CROWD_TASKS tasks of
// SOAK_CROWD_BYTES (just under max_request_bytes) sent at once, SOAK_CROWD_ROUNDS times, to an
// agent that answers them briefly (so the answer, which carries the task, stays under
// max_response_bytes), while another client, on its own thread, calls the health operation
// one call after another. Printed: the slowest health call (the target: under 250 ms) and the
// server's largest event-loop delay meanwhile.
//
// Run with --expose-gc (npm run bench:soak does). Environment: SOAK_WARMUP (1500), SOAK_SMALL
// (3000), SOAK_SMALL_BYTES (1024), SOAK_CALLERS (16), SOAK_LARGE (32), SOAK_LARGE_BYTES
// (4194304), SOAK_LARGE_CALLERS (1), SOAK_CROWD_TASKS (4), SOAK_CROWD_BYTES (16711680),
// SOAK_CROWD_ROUNDS (2), SOAK_CASES (soak,crowd), SOAK_TRANSPORTS (comma list), BENCH_PIN (1;
// 0 turns CPU pinning off). The defaults take a minute or two.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { pinLoadGenerator, pinningNote, serverCommand } from './lib/cpu-pinning.js';
import { SoakMonitor, type SoakFigures } from './servers/soak-monitor.mjs';

const env = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};
const WARMUP = env('SOAK_WARMUP', 1500);
const SMALL = env('SOAK_SMALL', 3000);
const SMALL_BYTES = env('SOAK_SMALL_BYTES', 1024);
const CALLERS = env('SOAK_CALLERS', 16);
const LARGE = env('SOAK_LARGE', 32);
const LARGE_BYTES = env('SOAK_LARGE_BYTES', 4 * 1024 * 1024);
const LARGE_CALLERS = env('SOAK_LARGE_CALLERS', 1);
const CROWD_TASKS = env('SOAK_CROWD_TASKS', 4);
const CROWD_BYTES = env('SOAK_CROWD_BYTES', 16 * 1024 * 1024 - 64 * 1024);
const CROWD_ROUNDS = env('SOAK_CROWD_ROUNDS', 2);
const CASES = (process.env.SOAK_CASES ?? 'soak,crowd').split(',').map((name) => name.trim());
const TRANSPORTS = (process.env.SOAK_TRANSPORTS ?? 'http,sse,websocket,grpc,runtime').split(',').map((name) => name.trim());

/** The server's default limits: the echo answer holds the text three times (task, message, artifact). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
if (LARGE_BYTES > MAX_REQUEST_BYTES || 3 * LARGE_BYTES + 4096 > MAX_REQUEST_BYTES) {
  throw new Error(`SOAK_LARGE_BYTES must keep the request and its echoed answer (about 3x) under ${MAX_REQUEST_BYTES} bytes`);
}
if (CROWD_BYTES > MAX_REQUEST_BYTES - 16 * 1024) {
  throw new Error(`SOAK_CROWD_BYTES must leave room for the task's other fields under ${MAX_REQUEST_BYTES} bytes`);
}
if (typeof globalThis.gc !== 'function') throw new Error('run bench/soak with node --expose-gc (npm run bench:soak)');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = new URL('../dist/', import.meta.url).href;

type AgentClientModule = typeof import('../dist/src/client/agent-client.js');
type AgentServerModule = typeof import('../dist/src/agent/agent-server.js');
type AgentClient = InstanceType<AgentClientModule['AgentClient']>;

const { AgentClient } = (await import(`${DIST}src/client/agent-client.js`)) as AgentClientModule;
const { AgentServer } = (await import(`${DIST}src/agent/agent-server.js`)) as AgentServerModule;

// ------------------------------------------------------------------------- servers

/** A server under load that can be asked for its figures. */
interface Probe {
  readonly url: string;
  /** The figures since the previous call (see soak-monitor.mjs). */
  measure(): Promise<SoakFigures>;
  /** Starts the delay figure afresh after a measurement's forced GC (see soak-monitor.mjs). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

const LISTEN: Readonly<Record<string, string>> = {
  http: 'http://127.0.0.1:0',
  sse: 'http://127.0.0.1:0',
  websocket: 'ws://127.0.0.1:0',
  grpc: 'grpc://127.0.0.1:0',
};

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** The echo agent in a child process (on the servers' core), measured over its IPC channel. */
function childProbe(transport: string, answer: 'echo' | 'brief' = 'echo'): Promise<Probe> {
  const [command, argv] = serverCommand([
    '--expose-gc',
    // Exits with this process's stdin pipe: no server outlives the benchmark.
    '--import=./bench/servers/exit-with-parent.mjs',
    'bench/servers/soak-agent.mjs',
    transport,
    LISTEN[transport]!,
    answer,
  ]);
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit', 'ipc'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const measure = () =>
    new Promise<SoakFigures>((resolve, reject) => {
      const onExit = () => reject(new Error(`the ${transport} server exited during the soak`));
      child.once('exit', onExit);
      child.once('message', (message: { type: string; figures: SoakFigures }) => {
        child.off('exit', onExit);
        resolve(message.figures);
      });
      child.send({ type: 'measure' });
    });
  const settle = () =>
    new Promise<void>((resolve) => {
      child.once('message', () => resolve());
      child.send({ type: 'settle' });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`the ${transport} server exited (${code ?? signal}) before it was ready`)),
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^ready (\S+)/.exec(line);
      if (match) resolve({ url: match[1]!, measure, settle, stop });
    });
  });
}

/** The echo agent on the runtime transport, in this process: its figures include the clients'. */
async function runtimeProbe(): Promise<Probe> {
  const agent = new AgentServer({ name: 'soak', transport: 'runtime', url: `runtime://soak-${process.pid}` });
  await agent.start();
  const monitor = new SoakMonitor();
  return {
    url: agent.url,
    // The load runs as promise chains that need not yield to timers, so the delay monitor's timer
    // gets its turn (and records how late it is) before the figures are read.
    measure: async () => {
      await new Promise((resolve) => setTimeout(resolve, 25));
      return monitor.measure();
    },
    settle: () => monitor.settle(),
    stop: async () => {
      monitor.stop();
      await agent.stop();
    },
  };
}

// ------------------------------------------------------------------------- load

const textOf = (bytes: number) =>
  'All work and no play makes a dull agent. '.repeat(Math.ceil(bytes / 41)).slice(0, Math.max(1, bytes - 120));
const SMALL_TEXT = textOf(SMALL_BYTES);
const LARGE_TEXT = textOf(LARGE_BYTES);

/** Runs `count` tasks of `text` from `callers` clients at once; resolves with tasks/s. */
async function phase(clients: readonly AgentClient[], callers: number, count: number, text: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(callers, count) }, async (_, i) => {
      const client = clients[i % clients.length]!;
      while (next < count) {
        next++;
        const task = await client.sendTask({
          id: randomUUID(),
          messages: [{ role: 'user', parts: [{ type: 'text', content: text }] }],
        });
        if (task.state !== 'completed') throw new Error(`a task ended ${task.state}`);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

interface Soak {
  readonly transport: string;
  readonly start: SoakFigures;
  readonly end: SoakFigures;
  readonly peakRss: number;
  readonly peakHeap: number;
  readonly smallDelayMs: number;
  readonly largeDelayMs: number;
  readonly smallRate: number;
  readonly largeRate: number;
}

async function soak(transport: string): Promise<Soak> {
  const probe = transport === 'runtime' ? await runtimeProbe() : await childProbe(transport);
  // One client per caller: a websocket client serializes its calls on its one connection.
  const clients = Array.from({ length: Math.max(CALLERS, LARGE_CALLERS) }, () => new AgentClient(probe.url, { transport }));
  try {
    await phase(clients, CALLERS, WARMUP, SMALL_TEXT);
    const start = await probe.measure();
    const firstRate = await phase(clients, CALLERS, SMALL, SMALL_TEXT);
    const afterSmall = await probe.measure();
    const largeRate = await phase(clients, LARGE_CALLERS, LARGE, LARGE_TEXT);
    const afterLarge = await probe.measure();
    const secondRate = await phase(clients, CALLERS, SMALL, SMALL_TEXT);
    const end = await probe.measure();
    const phases = [afterSmall, afterLarge, end];
    return {
      transport,
      start,
      end,
      peakRss: Math.max(...phases.map((figures) => figures.peakRss)),
      peakHeap: Math.max(...phases.map((figures) => figures.peakHeap)),
      smallDelayMs: Math.max(afterSmall.maxDelayMs, end.maxDelayMs),
      largeDelayMs: afterLarge.maxDelayMs,
      smallRate: (firstRate + secondRate) / 2,
      largeRate,
    };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await probe.stop();
  }
}

// ------------------------------------------------------------------------- crowd

interface Crowd {
  readonly transport: string;
  /** The slowest health call of the other client while the large tasks were served, ms. */
  readonly slowestHealthMs: number;
  readonly healthCalls: number;
  /** The server's largest event-loop delay over the same time, ms. */
  readonly serverDelayMs: number;
  /** Wall time of one round of CROWD_TASKS tasks, ms (the mean of the rounds). */
  readonly roundMs: number;
}

/** Starts the health watcher (servers/health-watcher.mjs) once its connection is open. */
async function startWatcher(url: string, transport: string): Promise<Worker> {
  const worker = new Worker(new URL('./servers/health-watcher.mjs', import.meta.url), { workerData: { url, transport } });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => resolve());
  });
  return worker;
}

async function crowd(transport: string): Promise<Crowd> {
  const probe = await childProbe(transport, 'brief');
  const clients = Array.from({ length: CROWD_TASKS }, () => new AgentClient(probe.url, { transport }));
  const text = textOf(CROWD_BYTES);
  try {
    // One small task per client first: connections open, code warm.
    await phase(clients, CROWD_TASKS, CROWD_TASKS, SMALL_TEXT);
    // The measurement's forced GC goes before the other client starts and is not counted.
    await probe.measure();
    await probe.settle();
    const watcher = await startWatcher(probe.url, transport);
    const started = performance.now();
    for (let round = 0; round < CROWD_ROUNDS; round++) await phase(clients, CROWD_TASKS, CROWD_TASKS, text);
    const roundMs = (performance.now() - started) / CROWD_ROUNDS;
    const server = await probe.measure();
    const done = new Promise<{ slowestMs: number; calls: number }>((resolve) => watcher.once('message', resolve));
    watcher.postMessage('stop');
    const { slowestMs, calls } = await done;
    await watcher.terminate();
    return { transport, slowestHealthMs: slowestMs, healthCalls: calls, serverDelayMs: server.maxDelayMs, roundMs };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await probe.stop();
  }
}

function printCrowd(results: readonly Crowd[]): void {
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
  console.log(
    `\ncrowd: ${CROWD_TASKS} tasks of ${mib(CROWD_BYTES)} MiB at once, ${CROWD_ROUNDS} round(s), ` +
      'while another client calls the health operation',
  );
  for (const r of results) {
    console.log(
      `  ${pad(r.transport, 9)}  slowest health call ${r.slowestHealthMs.toFixed(1)} ms of ${r.healthCalls} ` +
        `(< 250: ${verdict(r.slowestHealthMs < 250)}); server loop delay ${r.serverDelayMs.toFixed(1)} ms; ` +
        `a round ${(r.roundMs / 1000).toFixed(2)} s`,
    );
  }
}

// ------------------------------------------------------------------------- report

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const pad = (text: string, width: number) => text.padStart(width);

function printTable(results: readonly Soak[]): void {
  const header = [
    'transport',
    'small/s',
    'large/s',
    'rss MiB start/peak/end',
    'heap MiB start/peak/end',
    'end/start heap',
    'max delay ms small/large',
  ];
  const widths = [10, 8, 8, 24, 24, 15, 25];
  console.log(header.map((cell, i) => pad(cell, widths[i]!)).join(' '));
  for (const r of results) {
    const row = [
      r.transport,
      r.smallRate.toFixed(0),
      r.largeRate.toFixed(1),
      `${mib(r.start.rss)} / ${mib(r.peakRss)} / ${mib(r.end.rss)}`,
      `${mib(r.start.heapUsed)} / ${mib(r.peakHeap)} / ${mib(r.end.heapUsed)}`,
      (r.end.heapUsed / r.start.heapUsed).toFixed(3),
      `${r.smallDelayMs.toFixed(1)} / ${r.largeDelayMs.toFixed(1)}`,
    ];
    console.log(row.map((cell, i) => pad(cell, widths[i]!)).join(' '));
  }
}

function printTargets(results: readonly Soak[]): void {
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
  console.log('\ntargets');
  for (const r of results) {
    const ratio = r.end.heapUsed / r.start.heapUsed;
    console.log(
      `  ${pad(r.transport, 9)}  heap after GC end/start ${ratio.toFixed(3)} (<= 1.10: ${verdict(ratio <= 1.1)}); ` +
        `largest delay with one ${mib(LARGE_BYTES)} MiB request at a time ${r.largeDelayMs.toFixed(1)} ms (<= 100: ${verdict(r.largeDelayMs <= 100)})`,
    );
  }
  const http = results.find((r) => r.transport === 'http');
  const grpc = results.find((r) => r.transport === 'grpc');
  if (!http || !grpc) return;
  // Rates: grpc at least half of http's; costs (memory, delay): at most twice http's.
  const pairs: Array<[string, number, number, 'rate' | 'cost']> = [
    ['small tasks/s', grpc.smallRate, http.smallRate, 'rate'],
    ['large tasks/s', grpc.largeRate, http.largeRate, 'rate'],
    ['peak rss', grpc.peakRss, http.peakRss, 'cost'],
    ['peak heap', grpc.peakHeap, http.peakHeap, 'cost'],
    ['end heap after GC', grpc.end.heapUsed, http.end.heapUsed, 'cost'],
    ['largest delay, large phase', grpc.largeDelayMs, http.largeDelayMs, 'cost'],
  ];
  console.log('  grpc / http (within 2x: rates >= 0.5, costs <= 2.0)');
  for (const [label, ours, theirs, kind] of pairs) {
    const ratio = ours / theirs;
    const met = kind === 'rate' ? ratio >= 0.5 : ratio <= 2;
    console.log(`    ${label.padEnd(28)} ${ratio.toFixed(3)}  ${verdict(met)}`);
  }
}

pinLoadGenerator();
console.log(`bench/soak: ${pinningNote()}`);
console.log(
  `warm-up ${WARMUP}, small ${SMALL} x ${SMALL_BYTES} B from ${CALLERS} callers (twice), ` +
    `large ${LARGE} x ${mib(LARGE_BYTES)} MiB from ${LARGE_CALLERS} caller(s)\n`,
);
for (const transport of TRANSPORTS) {
  if (transport !== 'runtime' && !LISTEN[transport]) throw new Error(`unknown transport in SOAK_TRANSPORTS: ${transport}`);
}
if (CASES.includes('soak')) {
  const results: Soak[] = [];
  for (const transport of TRANSPORTS) results.push(await soak(transport));
  printTable(results);
  printTargets(results);
}
if (CASES.includes('crowd')) {
  // The in-process runtime has no other client on another loop: its callers share the server's.
  const crowds: Crowd[] = [];
  for (const transport of TRANSPORTS.filter((name) => name !== 'runtime')) crowds.push(await crowd(transport));
  printCrowd(crowds);
}
