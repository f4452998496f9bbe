// bench/a2a: parley with the A2A 1.0 boundary on against the official SDK's server (@a2a-js/sdk
// on express, its in-memory task store), JSON-RPC binding, in the same run, rounds alternated,
// servers pinned to one core and the load generator to the other (cpu-pinning.ts):
// 1. blocking SendMessage to an echo agent, 32 connections (autocannon): requests/s of each,
//    the server's CPU per request, and the ratio (target >= 3x);
// 2. SendStreamingMessage of an echo that streams the text back as BENCH_STREAM_EVENTS chunks
//    (100 by default: a short model answer), BENCH_STREAMS streams at once (8), each new stream
//    started as one ends: events/s received and the server's CPU per event (the SDK's executor
//    publishes the same events: the task, the chunks of one artifact, completed);
// 3. each echo server's RSS (after a GC) over BENCH_MESSAGES blocking messages (100,000), and
//    parley's as a fraction of the SDK's (target < 0.25; parley < 150 MB and steady once its
//    task index is full).
// Ratios of alternated rounds are read as lib/paired-rounds.ts says. BENCH_ONLY (blocking,
// streaming, rss: a comma list) runs some parts. Settings: BENCH_SECONDS (5), BENCH_ROUNDS (3),
// BENCH_MESSAGES (100000), BENCH_STREAM_EVENTS (100), BENCH_STREAMS (8).
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { pinLoadGenerator, pinningNote, serverCommand } from './lib/cpu-pinning.js';
import { judgeRatio, median, pairedRatios } from './lib/paired-rounds.js';
import { threadUsage } from './lib/thread-usage.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
const STREAM_EVENTS = Number(process.env.BENCH_STREAM_EVENTS ?? 100);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 8);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'blocking,streaming,rss').split(',').map((part) => part.trim()));
const CONNECTIONS = 32;
const TEXT = 'All work and no play makes a dull agent.';

interface Server {
  readonly name: string;
  readonly url: string;
  /** CPU time the server process has used, all threads, in µs (null where /proc is missing). */
  cpu(): number | null;
  rss(): Promise<number>;
  stop(): Promise<void>;
}

function start(name: string, script: string, args: readonly string[] = []): Promise<Server> {
  const [command, argv] = serverCommand(['--expose-gc', script, ...args]);
  const child: ChildProcess = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((rss: number) => void)[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const rss = /^rss (\d+)/.exec(line);
      if (rss) waiting.shift()?.(Number(rss[1]));
      const ready = /^ready (\S+)/.exec(line);
      if (!ready) return;
      resolve({
        name,
        url: ready[1]!,
        // taskset execs node, so the child's pid is the server's.
        cpu: () => {
          const threads = threadUsage(child.pid!);
          return threads ? [...threads.values()].reduce((sum, thread) => sum + thread.cpu, 0) : null;
        },
        rss: () =>
          new Promise((done) => {
            waiting.push(done);
            child.kill('SIGUSR2');
          }),
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

function rpcBody(method: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: TEXT }] } },
  });
}

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

async function load(
  url: string,
  options: { duration?: number; amount?: number },
): Promise<{ rps: number; errors: number; requests: number }> {
  const result = await autocannon({
    url: `${url}/`,
    connections: CONNECTIONS,
    ...options,
    requests: [{ method: 'POST', headers: HEADERS, setupRequest: (req) => ({ ...req, body: rpcBody('SendMessage') }) }],
  });
  return { rps: result.requests.average, errors: result.errors + result.non2xx, requests: result.requests.total };
}

/** One real answer from each server, so a broken server fails the run instead of measuring errors fast. */
async function checkAnswers(url: string): Promise<void> {
  const response = await fetch(`${url}/`, { method: 'POST', headers: HEADERS, body: rpcBody('SendMessage') });
  const answer = (await response.json()) as { result?: { task?: { status?: { state?: string } } } };
  if (answer.result?.task?.status?.state !== 'TASK_STATE_COMPLETED')
    throw new Error(`${url} did not complete a task: ${JSON.stringify(answer)}`);
}

/** One contender's rounds: a rate and the server's CPU per unit (µs) in each. */
interface Rounds {
  readonly rates: number[];
  readonly cpu: number[];
}

/** Runs `round` on each server in turn, ROUNDS times, recording its rate and CPU per unit. */
async function alternate(
  servers: readonly Server[],
  round: (server: Server) => Promise<{ rate: number; units: number; errors: number }>,
): Promise<{ rounds: Map<string, Rounds>; errors: number }> {
  const rounds = new Map<string, Rounds>(servers.map((server) => [server.name, { rates: [], cpu: [] }]));
  let errors = 0;
  for (let i = 0; i < ROUNDS; i++) {
    for (const server of servers) {
      const before = server.cpu();
      const figures = await round(server);
      const after = server.cpu();
      const mine = rounds.get(server.name)!;
      mine.rates.push(figures.rate);
      mine.cpu.push(before !== null && after !== null ? (after - before) / figures.units : Number.NaN);
      errors += figures.errors;
    }
  }
  return { rounds, errors };
}

/** The rows of one comparison: each contender's best round and rounds, then the ratio read both ways. */
function report(
  title: string,
  unit: string,
  servers: readonly Server[],
  rounds: Map<string, Rounds>,
  target: number,
  errors: number,
): void {
  console.log(title);
  for (const server of servers) {
    const mine = rounds.get(server.name)!;
    console.log(
      `  ${server.name.padEnd(24)} ${Math.max(...mine.rates)
        .toFixed(0)
        .padStart(7)} ${unit}/s  (rounds: ${mine.rates.map((rate) => rate.toFixed(0)).join(', ')}); server CPU ${median(
        mine.cpu,
      ).toFixed(1)} µs per ${unit.replace(/s$/, '')} (median; rounds ${mine.cpu.map((cpu) => cpu.toFixed(1)).join(', ')})`,
    );
  }
  const [parley, sdk] = servers.map((server) => rounds.get(server.name)!) as [Rounds, Rounds];
  const best = Math.max(...parley.rates) / Math.max(...sdk.rates);
  console.log(`  ratio parley / sdk, ${unit}/s: ${judgeRatio(pairedRatios(parley.rates, sdk.rates), best, target)}`);
  console.log(
    `  CPU per ${unit.replace(/s$/, '')}, sdk / parley: ${(median(sdk.cpu) / median(parley.cpu)).toFixed(2)}x${
      errors ? `; ${errors} errors or non-2xx answers` : ''
    }`,
  );
}

const streamAgent = new Agent({ keepAlive: true, maxSockets: STREAMS });

/**
 * One SendStreamingMessage read to its end: the count of server-sent events, each parsed as a
 * client must; throws unless the last one is the completed status.
 */
function stream(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = rpcBody('SendStreamingMessage');
    const req = request(
      `${url}/`,
      { method: 'POST', agent: streamAgent, headers: { ...HEADERS, accept: 'text/event-stream' } },
      (response) => {
        if (!response.headers['content-type']?.startsWith('text/event-stream')) {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => reject(new Error(`${url} answered SendStreamingMessage without a stream: ${text}`)));
          return;
        }
        let pending = '';
        let events = 0;
        let last: { result?: { statusUpdate?: { status?: { state?: string } } } } = {};
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          pending += chunk;
          let end: number;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            const event = pending.slice(0, end);
            pending = pending.slice(end + 2);
            for (const line of event.split('\n')) {
              if (!line.startsWith('data:')) continue;
              last = JSON.parse(line.slice(5));
              events++;
            }
          }
        });
        response.on('end', () => {
          const state = last.result?.statusUpdate?.status?.state;
          if (state === 'TASK_STATE_COMPLETED') resolve(events);
          else reject(new Error(`${url}: a stream ended on ${JSON.stringify(last)}`));
        });
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** STREAMS streams at once for `seconds`, each started as another ends: events/s received. */
async function streamLoad(url: string, seconds: number): Promise<{ rate: number; units: number; errors: number }> {
  const started = performance.now();
  const until = started + seconds * 1000;
  let events = 0;
  let errors = 0;
  const worker = async () => {
    while (performance.now() < until) {
      try {
        events += await stream(url);
      } catch (error) {
        if (errors++ === 0) console.error(String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: STREAMS }, worker));
  return { rate: events / ((performance.now() - started) / 1000), units: events, errors };
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

async function blockingAndRss(): Promise<void> {
  const servers = [
    await start('parley --a2a', 'bench/servers/parley-a2a-agent.mjs'),
    await start('@a2a-js/sdk (express)', 'bench/servers/sdk-a2a-agent.mjs'),
  ];
  try {
    for (const server of servers) await checkAnswers(server.url);
    if (ONLY.has('blocking')) {
      let warmup = 0;
      for (const server of servers) warmup += (await load(server.url, { duration: 1 })).errors;
      const { rounds, errors } = await alternate(servers, async (server) => {
        const figures = await load(server.url, { duration: SECONDS });
        return { rate: figures.rps, units: figures.requests, errors: figures.errors };
      });
      report(
        `A2A SendMessage (blocking), ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS}s; ${pinningNote()}`,
        'requests',
        servers,
        rounds,
        3,
        errors + warmup,
      );
    }
    if (!ONLY.has('rss')) return;
    console.log(`RSS after ${MESSAGES} messages each (after a GC):`);
    const last: number[] = [];
    for (const server of servers) {
      const before = await server.rss();
      const half = await load(server.url, { amount: Math.floor(MESSAGES / 2) });
      const middle = await server.rss();
      const rest = await load(server.url, { amount: MESSAGES - Math.floor(MESSAGES / 2) });
      const after = await server.rss();
      last.push(after);
      const failed = half.errors + rest.errors;
      console.log(
        `  ${server.name.padEnd(24)} start ${mb(before)}, after ${Math.floor(MESSAGES / 2)} ${mb(middle)}, after ${MESSAGES} ${mb(after)}${failed ? ` (${failed} errors)` : ''}`,
      );
    }
    const ratio = last[0]! / last[1]!;
    console.log(
      `  ratio parley / sdk after ${MESSAGES}: ${ratio.toFixed(3)} (target < 0.25) ${ratio < 0.25 ? 'OK' : 'ABOVE TARGET'}`,
    );
    console.log('  target: parley < 150 MB, steady once its task index (1,024 tasks) is full');
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function streaming(): Promise<void> {
  const args = [String(STREAM_EVENTS)];
  const servers = [
    await start('parley --a2a', 'bench/servers/parley-a2a-agent.mjs', ['http://127.0.0.1:0', ...args]),
    await start('@a2a-js/sdk (express)', 'bench/servers/sdk-a2a-agent.mjs', args),
  ];
  try {
    const counts = await Promise.all(servers.map((server) => stream(server.url)));
    let warmup = 0;
    for (const server of servers) warmup += (await streamLoad(server.url, 1)).errors;
    const { rounds, errors } = await alternate(servers, (server) => streamLoad(server.url, SECONDS));
    report(
      `A2A SendStreamingMessage, ${STREAMS} streams at once of ${STREAM_EVENTS} chunks (events a stream: ${servers
        .map((server, i) => `${server.name.split(' ')[0]} ${counts[i]}`)
        .join(', ')}), ${ROUNDS} rounds of ${SECONDS}s`,
      'events',
      servers,
      rounds,
      1,
      errors + warmup,
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function main(): Promise<void> {
  pinLoadGenerator();
  if (ONLY.has('blocking') || ONLY.has('rss')) await blockingAndRss();
  if (ONLY.has('streaming')) await streaming();
  streamAgent.destroy();
}

await main();
