// bench/replicas: the cost of sharing state through Redis. The same load against one replica
// with the in-process stores and against three replicas on one Redis (requests spread evenly,
// one autocannon per replica): `POST /tasks/` with a fresh idempotency key per request (a claim
// and a store in Redis each), blocking A2A SendMessage (the task index in Redis), and registry
// discover by tag among BENCH_CARDS cards (a Lua lookup per call). Prints requests/s for each
// and the ratio (the headline), and beside it where the CPU went per request: the replica
// processes summed, redis-server and the load generator (this process), read from /proc and
// process.cpuUsage() around the measured seconds, with the ratio of the machine's CPU per
// request (in-process over Redis, so it reads like the req/s ratio). On a machine shared with
// other work, CPU per request is much steadier than req/s. This machine has two cores, shared
// by the replicas, Redis and the load generator: read the ratio as cost per request, not as
// scaling. Each load first runs
// BENCH_WARMUP seconds unmeasured against each setup: three fresh processes each compile and
// optimise the same code, and in a few seconds of load that warm-up, paid three times over,
// would be counted as the cost of Redis.
// Settings: BENCH_SECONDS (5), BENCH_WARMUP (2), BENCH_CONNECTIONS (30), BENCH_CARDS (1000),
// BENCH_FSYNC (everysec), BENCH_REPLICAS (3: replicas on Redis; 1 shows Redis's cost per request
// without the three processes' share of two cores), BENCH_RATE (0: as fast as the setup goes; N:
// N requests/s offered to each setup, so both are measured at the same load and the CPU per
// request compares like with like on a busy machine; the req/s ratio is then meaningless).
//
//   npm run build && npx tsx bench/replicas.ts
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 30);
const CARDS = Number(process.env.BENCH_CARDS ?? 1000);
const FSYNC = process.env.BENCH_FSYNC ?? 'everysec';
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? 3);
const RATE = Number(process.env.BENCH_RATE ?? 0);

interface Child {
  readonly url: string;
  /** The process, for its CPU time. */
  readonly pid: number;
  stop(): Promise<void>;
}

/** Clock ticks per second of /proc/PID/stat's times: 100 on every Linux this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) the process has used so far, in microseconds. */
function processCpuMicros(pid: number): number {
  // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name and state.
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

/** This process's CPU time so far (the load generator), in microseconds. */
function ownCpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

interface CpuSample {
  readonly replicas: number;
  readonly redis: number;
  readonly load: number;
}

function sampleCpu(replicas: readonly Child[], redis: Child | null): CpuSample {
  return {
    replicas: replicas.reduce((sum, child) => sum + processCpuMicros(child.pid), 0),
    redis: redis ? processCpuMicros(redis.pid) : 0,
    load: ownCpuMicros(),
  };
}

function started(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const match = pattern.exec(line);
      if (match) resolve(match[1] ?? line);
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(dir: string): Promise<Child> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes'];
  const child = spawn('redis-server', [...args, '--appendfsync', FSYNC, '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  await started(child, /(Ready to accept connections)/, 'redis-server');
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid!, stop: stopper(child) };
}

async function startServer(role: 'agent' | 'registry', store: string): Promise<Child> {
  const child = spawn(process.execPath, ['bench/servers/replica.mjs', role, store], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await started(child, /^ready (\S+)/, `${role} (${store})`);
  return { url, pid: child.pid!, stop: stopper(child) };
}

type Load = 'POST /tasks/ (idempotency key)' | 'A2A SendMessage' | 'registry discover (one tag)';

function request(load: Load): autocannon.Request {
  switch (load) {
    case 'POST /tasks/ (idempotency key)':
      return {
        method: 'POST',
        path: '/tasks/',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => {
          const id = randomUUID();
          const task = { id, messages: [{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }] };
          return { ...req, headers: { ...req.headers, 'idempotency-key': id }, body: JSON.stringify(task) };
        },
      };
    case 'A2A SendMessage':
      return {
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SendMessage',
            params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
          }),
        }),
      };
    case 'registry discover (one tag)':
      return { method: 'GET', path: '/agents/?tags=tag-7' };
  }
}

/** Requests/s over all the given servers, the connections split evenly among them, and the requests sent. */
async function measure(
  urls: readonly string[],
  load: Load,
  seconds = SECONDS,
): Promise<{ rps: number; requests: number; errors: number }> {
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url,
        connections: Math.max(1, Math.round(CONNECTIONS / urls.length)),
        duration: seconds,
        ...(RATE > 0 ? { overallRate: RATE / urls.length } : {}),
        requests: [request(load)],
      }),
    ),
  );
  return {
    rps: results.reduce((sum, result) => sum + result.requests.average, 0),
    requests: results.reduce((sum, result) => sum + result.requests.total, 0),
    errors: results.reduce((sum, result) => sum + result.errors + result.non2xx, 0),
  };
}

async function fillRegistry(url: string): Promise<void> {
  for (let i = 0; i < CARDS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, CARDS - i) }, (_, j) => {
        const n = i + j;
        const card = { name: `agent-${n}`, url: `http://127.0.0.1:1/agent-${n}`, tags: [`tag-${n % 100}`, 'fleet'] };
        return fetch(`${url}/agents/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(card),
        });
      }),
    );
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-redis-'));
  const redis = await startRedis(dir);
  const children: Child[] = [redis];
  try {
    const replicas = Array.from({ length: REPLICAS }, (_, i) => i);
    const setups: Record<string, { agents: Child[]; registries: Child[]; onRedis: boolean }> = {
      'one replica, in-process stores': {
        agents: [await startServer('agent', 'memory')],
        registries: [await startServer('registry', 'memory')],
        onRedis: false,
      },
      [`${REPLICAS === 3 ? 'three' : REPLICAS} replica${REPLICAS === 1 ? '' : 's'} on Redis`]: {
        agents: await Promise.all(replicas.map(() => startServer('agent', redis.url))),
        registries: await Promise.all(replicas.map(() => startServer('registry', redis.url))),
        onRedis: true,
      },
    };
    for (const setup of Object.values(setups)) {
      children.push(...setup.agents, ...setup.registries);
      await fillRegistry(setup.registries[0]!.url);
    }
    console.log(
      `${SECONDS} s per load after ${WARMUP} s of warm-up, ${CONNECTIONS} connections, ${CARDS} cards, Redis appendfsync ${FSYNC}` +
        (RATE > 0 ? `, ${RATE} requests/s offered` : ''),
    );
    const loads: Load[] = ['POST /tasks/ (idempotency key)', 'A2A SendMessage', 'registry discover (one tag)'];
    for (const load of loads) {
      const rates: number[] = [];
      const machine: number[] = [];
      for (const [name, setup] of Object.entries(setups)) {
        const onRedis = setup.onRedis;
        const targets = load.startsWith('registry') ? setup.registries : setup.agents;
        if (WARMUP > 0)
          await measure(
            targets.map((target) => target.url),
            load,
            WARMUP,
          );
        const before = sampleCpu(targets, onRedis ? redis : null);
        const { rps, requests, errors } = await measure(
          targets.map((target) => target.url),
          load,
        );
        const after = sampleCpu(targets, onRedis ? redis : null);
        const per = (field: keyof CpuSample) => (after[field] - before[field]) / Math.max(1, requests);
        const total = per('replicas') + per('redis') + per('load');
        rates.push(rps);
        machine.push(total);
        const cpu =
          `CPU µs/request: replicas ${per('replicas').toFixed(1)}, redis ${per('redis').toFixed(1)}, ` +
          `load ${per('load').toFixed(1)}, machine ${total.toFixed(1)}`;
        console.log(
          `${load.padEnd(32)} ${name.padEnd(32)} ${Math.round(rps).toString().padStart(7)} req/s  ${cpu}${errors ? `  (${errors} errors)` : ''}`,
        );
      }
      console.log(
        `${load.padEnd(32)} ${'ratio (Redis / in-process)'.padEnd(32)} ${(rates[1]! / rates[0]!).toFixed(2).padStart(7)}` +
          `        machine CPU per request, in-process / Redis: ${(machine[0]! / machine[1]!).toFixed(2)}`,
      );
    }
  } finally {
    // The replicas first: Redis gone under them would only print their failures.
    await Promise.all(children.slice(1).map((child) => child.stop()));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
