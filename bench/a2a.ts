// bench/a2a: blocking A2A 1.0 SendMessage to an echo agent, 32 connections (autocannon), against
// parley with the A2A boundary on and against the official SDK's server (@a2a-js/sdk on
// express, its in-memory task store) in the same run, rounds alternated, servers pinned to one
// core and the load generator to the other (cpu-pinning.ts). Prints the requests/s of each and
// the ratio (target >= 3x), then each server's RSS after BENCH_MESSAGES messages (100,000 by
// default; target for parley < 150 MB, and steady once its task index is full).
// Settings: BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_MESSAGES (100000).
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pinLoadGenerator, pinningNote, serverCommand } from './lib/cpu-pinning.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
const CONNECTIONS = 32;

interface Server {
  readonly name: string;
  readonly url: string;
  rss(): Promise<number>;
  stop(): Promise<void>;
}

function start(name: string, script: string): Promise<Server> {
  const [command, argv] = serverCommand(['--expose-gc', script]);
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

function sendMessageBody(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'All work and no play makes a dull agent.' }] },
    },
  });
}

async function load(
  url: string,
  options: { duration?: number; amount?: number },
): Promise<{ rps: number; errors: number; requests: number }> {
  const result = await autocannon({
    url: `${url}/`,
    connections: CONNECTIONS,
    ...options,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        setupRequest: (request) => ({ ...request, body: sendMessageBody() }),
      },
    ],
  });
  return { rps: result.requests.average, errors: result.errors + result.non2xx, requests: result.requests.total };
}

/** One real answer from each server, so a broken server fails the run instead of measuring errors fast. */
async function checkAnswers(url: string): Promise<void> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: sendMessageBody(),
  });
  const answer = (await response.json()) as { result?: { task?: { status?: { state?: string } } } };
  if (answer.result?.task?.status?.state !== 'TASK_STATE_COMPLETED')
    throw new Error(`${url} did not complete a task: ${JSON.stringify(answer)}`);
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

async function main(): Promise<void> {
  pinLoadGenerator();
  const servers = [
    await start('parley --a2a', 'bench/servers/parley-a2a-agent.mjs'),
    await start('@a2a-js/sdk (express)', 'bench/servers/sdk-a2a-agent.mjs'),
  ];
  try {
    for (const server of servers) await checkAnswers(server.url);
    const runs = new Map<string, number[]>(servers.map((server) => [server.name, []]));
    let errors = 0;
    for (const server of servers) errors += (await load(server.url, { duration: 1 })).errors;
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of servers) {
        const figures = await load(server.url, { duration: SECONDS });
        runs.get(server.name)!.push(figures.rps);
        errors += figures.errors;
      }
    }
    const best = (name: string) => Math.max(...runs.get(name)!);
    const [parley, sdk] = servers.map((server) => best(server.name)) as [number, number];
    console.log(
      `A2A SendMessage (blocking), ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS}s, best round; ${pinningNote()}`,
    );
    for (const server of servers)
      console.log(
        `  ${server.name.padEnd(24)} ${best(server.name).toFixed(0).padStart(7)} requests/s  (rounds: ${runs
          .get(server.name)!
          .map((rps) => rps.toFixed(0))
          .join(', ')})`,
      );
    console.log(
      `  ratio parley / sdk       ${(parley / sdk).toFixed(2)}x (target >= 3x)${errors ? `; ${errors} errors or non-2xx answers` : ''}`,
    );
    console.log(`RSS after ${MESSAGES} messages each (after a GC):`);
    for (const server of servers) {
      const before = await server.rss();
      const half = await load(server.url, { amount: Math.floor(MESSAGES / 2) });
      const middle = await server.rss();
      const rest = await load(server.url, { amount: MESSAGES - Math.floor(MESSAGES / 2) });
      const after = await server.rss();
      const failed = half.errors + rest.errors;
      console.log(
        `  ${server.name.padEnd(24)} start ${mb(before)}, after ${Math.floor(MESSAGES / 2)} ${mb(middle)}, after ${MESSAGES} ${mb(after)}${failed ? ` (${failed} errors)` : ''}`,
      );
    }
    console.log('  target: parley < 150 MB, steady once its task index (1,024 tasks) is full');
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

await main();
