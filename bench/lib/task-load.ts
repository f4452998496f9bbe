// The HTTP load every POST /tasks/ benchmark drives (bench:http, bench:auth,
// bench:observability): autocannon posting a fresh 256-byte task per request, and the
// contender loop those benchmarks share (start each server, warm it up, alternate rounds,
// read each server's CPU at the end).
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { sampleTask, startChildServer, type ChildServer } from './child-server.js';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const CONNECTIONS = 32;

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

/** One load of POST /tasks/ at `url` for SECONDS, with `headers` on every request. */
export async function postTasks(url: string, headers: Record<string, string> = {}): Promise<Figures> {
  const result = await autocannon({
    url: `${url}/tasks/`,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
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

/** A server process under load: how to start it, what to send, and what it measured. */
export interface Contender {
  readonly name: string;
  readonly script: string;
  readonly args: readonly string[];
  readonly headers: Record<string, string>;
  server?: ChildServer;
  readonly runs: Figures[];
  /** CPU µs the server spent in all, read when it stops. */
  cpu: number | null;
  /** Requests served outside the measured rounds (the warm-up). */
  served: number;
}

export function contender(
  name: string,
  script: string,
  args: readonly string[],
  headers: Record<string, string> = {},
): Contender {
  return { name, script, args, headers, runs: [], cpu: null, served: 0 };
}

/** Starts and warms every contender, runs ROUNDS alternated rounds, then stops them all. */
export async function runContenders(contenders: readonly Contender[]): Promise<void> {
  try {
    for (const one of contenders) {
      one.server = await startChildServer(one.script, [...one.args]);
      // Warm-up; a refused request here means the contender is misconfigured, not slow.
      const warmup = await postTasks(one.server.url, one.headers);
      if (warmup.errors > 0) throw new Error(`${one.name}: ${warmup.errors} of ${warmup.requests} warm-up requests failed`);
      one.served += warmup.requests;
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const one of contenders) one.runs.push(await postTasks(one.server!.url, one.headers));
    }
  } finally {
    for (const one of contenders) one.cpu = one.server ? await one.server.stop() : null;
  }
}

/** Server CPU µs per request served, warm-up included; null when the CPU could not be read. */
export function cpuPerRequest(one: Contender): number | null {
  const served = one.runs.reduce((sum, run) => sum + run.requests, one.served);
  return one.cpu === null ? null : one.cpu / served;
}

/** The table row of each contender: its best round and its CPU per request. */
export function contenderRows(contenders: readonly Contender[]): Record<string, Record<string, number | string>> {
  const rows: Record<string, Record<string, number | string>> = {};
  for (const one of contenders) {
    const top = one.runs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const cpu = cpuPerRequest(one);
    rows[one.name] = {
      'req/s': Math.round(top.rps),
      'p50 ms': top.p50,
      'p99 ms': top.p99,
      errors: one.runs.reduce((sum, run) => sum + run.errors, 0),
      'server CPU µs/req': cpu === null ? 'n/a' : cpu.toFixed(1),
    };
  }
  return rows;
}
