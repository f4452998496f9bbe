// bench/transports: parley's websocket, grpc, sse and runtime transports against the raw
// library each one is built on, measured in the same run.
//
// 1. Unary task round trips (POST /tasks/ to the echo agent), C concurrent callers for a fixed
//    duration, rounds alternated with the baseline, best round kept:
//      websocket  C AgentClients (a parley websocket client serializes its calls on its one
//                 connection), against C plain `ws` clients sending the same request envelope
//                 to a `ws` server that parses it and answers a response envelope;
//      grpc       ONE AgentClient with C calls in flight, multiplexed on its one HTTP/2
//                 connection (parley's grpc client and server, both on @grpc/grpc-js), against
//                 one connect-node client (JSON codec, no response compression, same metadata)
//                 with C calls in flight on a connect-node server (connectNodeAdapter) whose
//                 Invoke echoes the request's data: the baseline parley's client was built on
//                 until issue 21, kept beside the grpc-js one below.
//      grpc vs grpc-js  one @grpc/grpc-js client (pass-through JSON messages) with C calls in
//                 flight, against a plain grpc-js server (grpcjs-echo.mjs) and against parley.
//    Target: parley at least 70% of the raw req/s.
// 2. One stream of N task_llm_stream events with a ~1 KB delta, events/s from the first to the
//    last event at the client (best of R streams), for sse, websocket, grpc and runtime, against
//    the same events serialized and sent by the raw library (node:http writing `data:` lines,
//    a `ws` server pushing frames, a connect-node server streaming messages; for runtime, an
//    async generator consumed in-process); grpc also against a plain grpc-js server, both read
//    by the same grpc-js client. Raw clients parse every event as JSON (grpc: read
//    the google.protobuf.Value into JSON), as any consumer has to.
//
// Servers run the compiled code (dist/, built first) in child processes; when taskset is
// available the servers are pinned to CPU 1 and this process (the load generator) to CPU 0.
//
// Besides rates, the tables give CPU time per request / event of the server process and of this
// process (from /proc and process.cpuUsage()): on a shared machine that is steadier than rates.
//
// Environment: BENCH_SECONDS (4) per unary round, BENCH_ROUNDS (5), BENCH_WARMUP (1 s),
// BENCH_CALLERS (16), BENCH_TASK_BYTES (256), BENCH_EVENTS (20000), BENCH_EVENT_BYTES (1024),
// BENCH_STREAM_ROUNDS (5), BENCH_STREAM_WARMUP (6 streams each), BENCH_ONLY (unary|stream), BENCH_TRANSPORTS (comma list),
// BENCH_PIN (1; 0 turns pinning off), BENCH_CPU_PROF (a directory: servers run with
// --cpu-prof and write their profiles there), BENCH_GRPC_EXPERIMENT (1: also the echo agent
// behind a plain grpc-js server, grpcjs-over-runtime.mjs). The defaults take about three minutes.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import grpcJs from '@grpc/grpc-js';
import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { fromJson, toJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { sampleTask } from './lib/child-server.js';
import { pinLoadGenerator, pinningNote, serverCommand } from './lib/cpu-pinning.js';
import { judgeRatio, pairedRatios } from './lib/paired-rounds.js';
import { deltaText, streamHandler, wireEvent } from './servers/stream-handler.mjs';

const env = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const SECONDS = env('BENCH_SECONDS', 4);
const ROUNDS = env('BENCH_ROUNDS', 5);
const WARMUP = env('BENCH_WARMUP', 1);
const CALLERS = env('BENCH_CALLERS', 16);
const TASK_BYTES = env('BENCH_TASK_BYTES', 256);
const EVENTS = env('BENCH_EVENTS', 20_000);
const EVENT_BYTES = env('BENCH_EVENT_BYTES', 1024);
const STREAM_ROUNDS = env('BENCH_STREAM_ROUNDS', 5);
// Streams each contender runs before measuring, so both sides are compared at steady state:
// parley's server and client take about six 20,000-event streams to get there (its sse rate
// climbs from 55k to 108k ev/s over the first six), the raw ones fewer.
const STREAM_WARMUP = env('BENCH_STREAM_WARMUP', 6);
const ONLY = process.env.BENCH_ONLY ?? '';
const SELECTED = new Set((process.env.BENCH_TRANSPORTS ?? 'websocket,grpc,sse,runtime').split(',').map((name) => name.trim()));
const CPU_PROF = process.env.BENCH_CPU_PROF ?? '';
const GRPC_EXPERIMENT = process.env.BENCH_GRPC_EXPERIMENT === '1';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = new URL('../dist/', import.meta.url).href;

// ------------------------------------------------------------------------- child processes

const children = new Set<ChildProcess>();

interface Server {
  readonly url: string;
  /** CPU time the server process has used so far, in µs (NaN where /proc is not available). */
  cpu(): number;
  stop(): Promise<void>;
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process from /proc/<pid>/stat, in µs. */
function processCpu(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** CPU time of this process (the load generator, and in-process runtime work), in µs. */
function ownCpu(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** Starts a server script (from bench/servers) and waits for its `ready <url>` line. */
function startServer(script: string, args: readonly (string | number)[]): Promise<Server> {
  const nodeArgs = [
    ...(CPU_PROF
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${CPU_PROF}`,
          `--cpu-prof-name=${[script, ...args].join('-').replace(/[^\w.-]+/g, '_')}-${Date.now()}.cpuprofile`,
        ]
      : []),
    // Exits with this process's stdin pipe: no server outlives the benchmark.
    '--import=./bench/servers/exit-with-parent.mjs',
    `bench/servers/${script}`,
    ...args.map(String),
  ];
  const [command, argv] = serverCommand(nodeArgs);
  // stdin is a pipe the servers watch (exit-with-parent.mjs): it closes when this process dies.
  const child = spawn(command as string, argv as string[], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} was not ready within 20 s`));
    }, 20_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} ${args.join(' ')} exited (${code ?? signal}) before it was ready`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^ready (\S+)/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1]!, cpu: () => processCpu(child.pid), stop: () => stopChild(child) });
    });
  });
}

/** SIGTERM, then SIGKILL if the child has not exited in time (longer when it writes a profile). */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), CPU_PROF ? 15_000 : 3_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

// ------------------------------------------------------------------------- parley (from dist)

type AgentClientModule = typeof import('../dist/src/client/agent-client.js');
type AgentServerModule = typeof import('../dist/src/agent/agent-server.js');
type AgentClient = InstanceType<AgentClientModule['AgentClient']>;
type TransportPb = typeof import('../dist/generated/proto/svc/transport/v1/transport_pb.js');

let parley: {
  AgentClient: AgentClientModule['AgentClient'];
  AgentServer: AgentServerModule['AgentServer'];
  SvcTransport: TransportPb['SvcTransport'];
};

async function loadDist(): Promise<void> {
  const [client, server, pb] = await Promise.all([
    import(`${DIST}src/client/agent-client.js`) as Promise<AgentClientModule>,
    import(`${DIST}src/agent/agent-server.js`) as Promise<AgentServerModule>,
    import(`${DIST}generated/proto/svc/transport/v1/transport_pb.js`) as Promise<TransportPb>,
  ]);
  parley = { AgentClient: client.AgentClient, AgentServer: server.AgentServer, SvcTransport: pb.SvcTransport };
}

// ------------------------------------------------------------------------- unary load

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  /** Server and load-generator CPU per completed request, µs. */
  serverCpu: number;
  clientCpu: number;
}

/** One caller does one request per call; C of them loop until the time is up. */
type Caller = () => Promise<void>;

let firstError: unknown = null;

async function drive(callers: readonly Caller[], seconds: number, server: Server): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const serverBefore = server.cpu();
  const clientBefore = ownCpu();
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    callers.map(async (call) => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await call();
          latencies.push(performance.now() - t);
        } catch (error) {
          errors++;
          firstError ??= error;
          if (errors > 1000) throw error;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const serverCpu = (server.cpu() - serverBefore) / latencies.length;
  const clientCpu = (ownCpu() - clientBefore) / latencies.length;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    requests: latencies.length,
    errors,
    serverCpu,
    clientCpu,
  };
}

// The task text is made once (sampleTask sizes it); each request gets a fresh id, so parley's
// idempotency cache never replays, and costs the load generator no more than that.
const TASK_TEXT = (
  sampleTask('00000000-0000-4000-8000-000000000000', TASK_BYTES) as { messages: [{ parts: [{ content: string }] }] }
).messages[0].parts[0].content;

function cpuText(micros: number): string {
  return Number.isFinite(micros) ? micros.toFixed(0) : '-';
}

function nextTask(): Record<string, unknown> {
  return { id: randomUUID(), messages: [{ role: 'user', parts: [{ type: 'text', content: TASK_TEXT }] }] };
}

function checkCompleted(task: { state?: string }): void {
  if (task.state !== 'completed') throw new Error(`task ended ${task.state}`);
}

/** C parley clients, one call at a time each (websocket), or one client with C calls in flight (grpc). */
function parleyCallers(clients: readonly AgentClient[]): Caller[] {
  return Array.from({ length: CALLERS }, (_, i) => {
    const client = clients[i % clients.length]!;
    return async () => checkCompleted(await client.sendTask(nextTask() as never));
  });
}

/** A plain `ws` client: the request envelope out, the response envelope back, one at a time. */
async function rawWsClient(
  url: string,
): Promise<{ call: Caller; stream: (count: number) => Promise<StreamFigures>; close(): void }> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let onFrame: ((frame: { id: string; ok: boolean; result: { type?: string; state?: string }; final: boolean }) => void) | null =
    null;
  socket.on('message', (data: Buffer) => onFrame?.(JSON.parse(data.toString('utf8'))));
  const envelope = (path: string, task: Record<string, unknown>, key: string | null) =>
    JSON.stringify({ id: randomUUID(), method: 'POST', path, data: task, params: {}, idempotency_key: key });
  return {
    call: () =>
      new Promise<void>((resolve, reject) => {
        const task = nextTask();
        onFrame = (frame) => {
          onFrame = null;
          if (frame.ok && frame.final && frame.result.state === 'completed') resolve();
          else reject(new Error('unexpected answer'));
        };
        socket.send(envelope('/tasks/', task, task.id as string));
      }),
    stream: (count) =>
      new Promise<StreamFigures>((resolve, reject) => {
        const timing = new StreamTiming();
        onFrame = (frame) => {
          if (!frame.ok) return reject(new Error('stream failed'));
          if (frame.result.type === 'task_llm_stream') timing.event();
          if (frame.final) {
            onFrame = null;
            resolve(timing.figures(count));
          }
        };
        socket.send(envelope('/tasks/stream', streamTask(), null));
      }),
    close: () => socket.close(),
  };
}

/** A connect-node client configured as parley's grpc client was before it moved to grpc-js: JSON codec, no compression. */
function rawGrpcClient(url: string): Client<TransportPb['SvcTransport']> {
  const transport = createGrpcTransport({
    baseUrl: url,
    useBinaryFormat: false,
    jsonOptions: { ignoreUnknownFields: true },
    acceptCompression: [],
  });
  return createClient(parley.SvcTransport, transport);
}

function rawGrpcCaller(client: Client<TransportPb['SvcTransport']>): Caller {
  return async () => {
    const task = nextTask();
    const id = randomUUID();
    const response = await client.invoke(
      {
        id,
        method: 'POST',
        path: '/tasks/',
        data: fromJson(ValueSchema, task as JsonValue),
        params: {},
        idempotencyKey: task.id as string,
      },
      { headers: { 'x-svc-request-id': id, 'idempotency-key': task.id as string } },
    );
    const result = response.result ? (toJson(ValueSchema, response.result) as JsonObject) : null;
    if (!response.ok || result?.id !== task.id) throw new Error('unexpected answer');
  };
}

/**
 * A plain @grpc/grpc-js client (one channel, one HTTP/2 connection) with pass-through JSON
 * serializers: each message is the envelope's JSON text, the spec's gRPC wire, which a
 * parley server and the grpc-js echo both read. The same client drives both servers.
 */
function grpcJsClient(url: string): { call: Caller; stream: () => Promise<StreamFigures>; close(): void } {
  const client = new grpcJs.Client(url.replace(/^\w+:\/\//, ''), grpcJs.credentials.createInsecure());
  const identity = (bytes: Buffer) => bytes;
  const envelope = (id: string, path: string, task: Record<string, unknown>, key: string | null) =>
    Buffer.from(JSON.stringify({ id, method: 'POST', path, data: task, params: {}, idempotency_key: key }), 'utf8');
  const call: Caller = () =>
    new Promise<void>((resolve, reject) => {
      const task = nextTask();
      const id = randomUUID();
      const metadata = new grpcJs.Metadata();
      metadata.set('x-svc-request-id', id);
      client.makeUnaryRequest(
        '/svc.transport.v1.SvcTransport/Invoke',
        identity,
        identity,
        envelope(id, '/tasks/', task, task.id as string),
        metadata,
        (error, answer) => {
          if (error) return reject(error);
          const frame = JSON.parse(answer!.toString('utf8')) as {
            ok?: boolean;
            final?: boolean;
            result?: { id?: string; state?: string };
          };
          if (frame.ok && frame.final && frame.result?.id === task.id && frame.result?.state === 'completed') resolve();
          else reject(new Error('unexpected answer'));
        },
      );
    });
  const stream = () =>
    new Promise<StreamFigures>((resolve, reject) => {
      const timing = new StreamTiming();
      const id = randomUUID();
      const metadata = new grpcJs.Metadata();
      metadata.set('x-svc-request-id', id);
      const request = envelope(id, '/tasks/stream', streamTask(), null);
      const call = client.makeServerStreamRequest('/svc.transport.v1.SvcTransport/Stream', identity, identity, request, metadata);
      call.on('data', (message: Buffer) => {
        const frame = JSON.parse(message.toString('utf8')) as { ok?: boolean; result?: { type?: string } };
        if (!frame.ok) reject(new Error('stream failed'));
        else if (frame.result?.type === 'task_llm_stream') timing.event();
      });
      call.once('error', reject);
      call.once('end', () => {
        try {
          resolve(timing.figures(EVENTS));
        } catch (error) {
          reject(error);
        }
      });
    });
  return { call, stream, close: () => client.close() };
}

interface Contender {
  readonly name: string;
  readonly callers: Caller[];
  readonly server: Server;
}

interface UnaryPair {
  readonly label: string;
  readonly raw: Contender;
  readonly parley: Contender;
  /** Informational: the raw library doing what parley's echo agent does (same answer bytes). */
  readonly extra?: Contender;
  readonly note: string;
}

async function unaryBench(servers: Map<string, Server>): Promise<string[]> {
  const pairs: UnaryPair[] = [];
  const closers: Array<() => unknown> = [];
  try {
    if (SELECTED.has('websocket')) {
      const rawClients = await Promise.all(Array.from({ length: CALLERS }, () => rawWsClient(servers.get('raw-ws')!.url)));
      closers.push(() => rawClients.forEach((client) => client.close()));
      const fullClients = await Promise.all(Array.from({ length: CALLERS }, () => rawWsClient(servers.get('raw-ws-full')!.url)));
      closers.push(() => fullClients.forEach((client) => client.close()));
      const clients = Array.from(
        { length: CALLERS },
        () => new parley.AgentClient(servers.get('parley-websocket')!.url, { transport: 'websocket' }),
      );
      closers.push(() => Promise.all(clients.map((client) => client.close())));
      pairs.push({
        label: 'websocket',
        raw: { name: 'raw ws', callers: rawClients.map((client) => client.call), server: servers.get('raw-ws')! },
        parley: { name: 'parley websocket', callers: parleyCallers(clients), server: servers.get('parley-websocket')! },
        extra: {
          name: 'raw ws, parley-sized answer',
          callers: fullClients.map((client) => client.call),
          server: servers.get('raw-ws-full')!,
        },
        note: `${CALLERS} connections, one call at a time on each`,
      });
    }
    if (SELECTED.has('grpc')) {
      const raw = rawGrpcClient(servers.get('raw-grpc')!.url);
      const client = new parley.AgentClient(servers.get('parley-grpc')!.url, { transport: 'grpc' });
      closers.push(() => client.close());
      pairs.push({
        label: 'grpc',
        raw: {
          name: 'raw connect-node',
          callers: Array.from({ length: CALLERS }, () => rawGrpcCaller(raw)),
          server: servers.get('raw-grpc')!,
        },
        parley: { name: 'parley grpc', callers: parleyCallers([client]), server: servers.get('parley-grpc')! },
        note: `one client, ${CALLERS} calls in flight on one HTTP/2 connection, JSON codec`,
      });
      // The baseline that counts for teams choosing gRPC: a plain grpc-js server, and the same
      // grpc-js client (its own connection to each server) driving both.
      const rawJs = grpcJsClient(servers.get('grpcjs')!.url);
      const parleyJs = grpcJsClient(servers.get('parley-grpc')!.url);
      closers.push(rawJs.close, parleyJs.close);
      pairs.push({
        label: 'grpc vs grpc-js',
        raw: { name: 'raw grpc-js', callers: Array.from({ length: CALLERS }, () => rawJs.call), server: servers.get('grpcjs')! },
        parley: {
          name: 'parley grpc, grpc-js client',
          callers: Array.from({ length: CALLERS }, () => parleyJs.call),
          server: servers.get('parley-grpc')!,
        },
        note: `one grpc-js client, ${CALLERS} calls in flight on one HTTP/2 connection, pass-through JSON`,
      });
      if (servers.has('grpcjs-over-runtime')) {
        const overRuntime = grpcJsClient(servers.get('grpcjs-over-runtime')!.url);
        closers.push(overRuntime.close);
        pairs.push({
          label: 'experiment: parley echo agent behind a grpc-js server',
          raw: {
            name: 'raw grpc-js (experiment pair)',
            callers: Array.from({ length: CALLERS }, () => rawJs.call),
            server: servers.get('grpcjs')!,
          },
          parley: {
            name: 'grpc-js server, agent in-process',
            callers: Array.from({ length: CALLERS }, () => overRuntime.call),
            server: servers.get('grpcjs-over-runtime')!,
          },
          note: 'grpcjs-over-runtime.mjs: what parley could reach without connect-node',
        });
      }
    }
    const best = new Map<string, Figures>();
    const rounds = new Map<string, number[]>();
    const keep = (name: string, figures: Figures) => {
      const previous = best.get(name);
      if (!previous || figures.rps > previous.rps)
        best.set(name, { ...figures, errors: figures.errors + (previous?.errors ?? 0) });
      else previous.errors += figures.errors;
      rounds.set(name, [...(rounds.get(name) ?? []), figures.rps]);
    };
    let sizes = '';
    const sizeProbe = servers.get('parley-websocket') ?? servers.get('parley-grpc');
    if (sizeProbe) {
      const probe = new parley.AgentClient(sizeProbe.url);
      const task = nextTask();
      const answer = JSON.stringify(await probe.sendTask(task as never)).length;
      await probe.close();
      const echo = JSON.stringify({ ...task, state: 'completed' }).length;
      sizes = `answers: parley's echo agent returns a ${answer}-byte task (its message, a result artifact, state history); the raw echo ${echo} bytes`;
    }
    const contenders = (pair: UnaryPair) => [pair.raw, pair.parley, ...(pair.extra ? [pair.extra] : [])];
    for (const pair of pairs) {
      for (const contender of contenders(pair)) await drive(contender.callers, WARMUP, contender.server);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const pair of pairs) {
        for (const contender of contenders(pair)) keep(contender.name, await drive(contender.callers, SECONDS, contender.server));
      }
    }
    const rows: Record<string, Record<string, string | number>> = {};
    const ratios: string[] = [];
    for (const pair of pairs) {
      const raw = best.get(pair.raw.name)!;
      const ours = best.get(pair.parley.name)!;
      const ratio = ours.rps / raw.rps;
      const paired = pairedRatios(rounds.get(pair.parley.name)!, rounds.get(pair.raw.name)!);
      const extra = pair.extra ? best.get(pair.extra.name)! : null;
      const lines: Array<readonly [string, Figures, string]> = [[pair.raw.name, raw, '']];
      if (pair.extra && extra) lines.push([pair.extra.name, extra, '']);
      lines.push([pair.parley.name, ours, ratio.toFixed(2)]);
      for (const [name, figures, ratioText] of lines) {
        rows[name] = {
          'req/s': Math.round(figures.rps),
          'p50 ms': figures.p50.toFixed(2),
          'p99 ms': figures.p99.toFixed(2),
          errors: figures.errors,
          'server µs/req': cpuText(figures.serverCpu),
          'client µs/req': cpuText(figures.clientCpu),
          'parley/raw': ratioText,
        };
      }
      ratios.push(`${pair.label}: ratio parley/raw ${judgeRatio(paired, ratio)}; ${pair.note}`);
      if (pair.extra && extra) {
        ratios.push(
          `${pair.label}: parley / (${pair.extra.name}) ${(ours.rps / extra.rps).toFixed(2)} (informational: the same answer bytes)`,
        );
      }
    }
    console.log(
      `\nUnary POST /tasks/ round trips (${TASK_BYTES}-byte task, ${CALLERS} concurrent callers, ${SECONDS}s x ${ROUNDS} rounds alternated, best round)`,
    );
    console.table(rows);
    for (const line of ratios) console.log(line);
    console.log(
      'server/client µs/req: CPU time of the server process / of this load generator per completed request (same round)',
    );
    if (sizes) console.log(sizes);
    if (firstError) console.log(`first error: ${firstError instanceof Error ? firstError.message : String(firstError)}`);
    return ratios;
  } finally {
    for (const close of closers) await close();
  }
}

// ------------------------------------------------------------------------- streams

interface StreamFigures {
  events: number;
  seconds: number;
}

interface StreamContender {
  readonly name: string;
  readonly run: () => Promise<StreamFigures>;
  /** The server process; none for in-process runs. */
  readonly server?: Server;
}

/** Time of the first and last task_llm_stream event seen by the client. */
class StreamTiming {
  private count = 0;
  private first = 0;
  private last = 0;

  event(): void {
    const now = performance.now();
    if (this.count++ === 0) this.first = now;
    this.last = now;
  }

  figures(expected: number): StreamFigures {
    if (this.count !== expected) throw new Error(`stream delivered ${this.count} of ${expected} events`);
    // n events span n - 1 gaps between the first and the last.
    return { events: this.count - 1, seconds: (this.last - this.first) / 1000 };
  }
}

function streamTask(): Record<string, unknown> {
  return { id: randomUUID(), messages: [{ role: 'user', parts: [{ type: 'text', content: 'stream' }] }] };
}

async function parleyStream(client: AgentClient): Promise<StreamFigures> {
  const timing = new StreamTiming();
  for await (const event of client.streamTask(streamTask() as never)) {
    if (event.type === 'task_llm_stream') timing.event();
  }
  return timing.figures(EVENTS);
}

function rawGrpcStream(client: Client<TransportPb['SvcTransport']>): () => Promise<StreamFigures> {
  return async () => {
    const timing = new StreamTiming();
    const task = streamTask();
    const id = randomUUID();
    for await (const message of client.stream(
      { id, method: 'POST', path: '/tasks/stream', data: fromJson(ValueSchema, task as JsonValue), params: {} },
      { headers: { 'x-svc-request-id': id } },
    )) {
      const result = message.result ? (toJson(ValueSchema, message.result) as JsonObject) : null;
      if (result?.type === 'task_llm_stream') timing.event();
      if (message.final) break;
    }
    return timing.figures(EVENTS);
  };
}

function rawSseStream(url: string): { run: () => Promise<StreamFigures>; close(): void } {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const run = () =>
    new Promise<StreamFigures>((resolve, reject) => {
      const timing = new StreamTiming();
      const body = JSON.stringify(streamTask());
      const req = httpRequest(
        `${url}/tasks/stream`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'text/event-stream' } },
        (res) => {
          res.setEncoding('utf8');
          let buffer = '';
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let start = 0;
            for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n', start)) {
              const frame = buffer.slice(start, end);
              start = end + 2;
              if (!frame.startsWith('data: ')) continue;
              const envelope = JSON.parse(frame.slice(6)) as { result?: { type?: string } };
              if (envelope.result?.type === 'task_llm_stream') timing.event();
            }
            buffer = buffer.slice(start);
          });
          res.once('end', () => {
            try {
              resolve(timing.figures(EVENTS));
            } catch (error) {
              reject(error);
            }
          });
          res.once('error', reject);
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  return { run, close: () => agent.destroy() };
}

/** The runtime baseline: the same events from an async generator, consumed in this process. */
async function rawGenerator(json: boolean): Promise<StreamFigures> {
  const delta = deltaText(EVENT_BYTES);
  const taskId = randomUUID();
  async function* events() {
    for (let i = 0; i < EVENTS; i++) yield wireEvent(delta, taskId);
  }
  const timing = new StreamTiming();
  for await (const event of events()) {
    const seen = json ? (JSON.parse(JSON.stringify(event)) as typeof event) : event;
    if (seen.type === 'task_llm_stream') timing.event();
  }
  return timing.figures(EVENTS);
}

interface StreamPair {
  readonly label: string;
  readonly raw: StreamContender;
  readonly parley: StreamContender;
  readonly extra?: StreamContender;
}

async function streamBench(servers: Map<string, Server>): Promise<void> {
  const pairs: StreamPair[] = [];
  const closers: Array<() => unknown> = [];
  try {
    if (SELECTED.has('sse')) {
      const raw = rawSseStream(servers.get('raw-sse')!.url);
      closers.push(raw.close);
      const client = new parley.AgentClient(servers.get('stream-sse')!.url, { transport: 'sse' });
      closers.push(() => client.close());
      pairs.push({
        label: 'sse',
        raw: { name: 'raw node:http SSE', run: raw.run, server: servers.get('raw-sse')! },
        parley: { name: 'parley sse', run: () => parleyStream(client), server: servers.get('stream-sse')! },
      });
    }
    if (SELECTED.has('websocket')) {
      const raw = await rawWsClient(servers.get('raw-ws')!.url);
      closers.push(raw.close);
      const client = new parley.AgentClient(servers.get('stream-websocket')!.url, { transport: 'websocket' });
      closers.push(() => client.close());
      pairs.push({
        label: 'websocket',
        raw: { name: 'raw ws', run: () => raw.stream(EVENTS), server: servers.get('raw-ws')! },
        parley: { name: 'parley websocket', run: () => parleyStream(client), server: servers.get('stream-websocket')! },
      });
    }
    if (SELECTED.has('grpc')) {
      const raw = rawGrpcClient(servers.get('raw-grpc')!.url);
      const client = new parley.AgentClient(servers.get('stream-grpc')!.url, { transport: 'grpc' });
      closers.push(() => client.close());
      pairs.push({
        label: 'grpc',
        raw: { name: 'raw connect-node', run: rawGrpcStream(raw), server: servers.get('raw-grpc')! },
        parley: { name: 'parley grpc', run: () => parleyStream(client), server: servers.get('stream-grpc')! },
      });
      const rawJs = grpcJsClient(servers.get('grpcjs')!.url);
      const parleyJs = grpcJsClient(servers.get('stream-grpc')!.url);
      closers.push(rawJs.close, parleyJs.close);
      pairs.push({
        label: 'grpc vs grpc-js',
        raw: { name: 'raw grpc-js', run: rawJs.stream, server: servers.get('grpcjs')! },
        parley: { name: 'parley grpc, grpc-js client', run: parleyJs.stream, server: servers.get('stream-grpc')! },
      });
    }
    if (SELECTED.has('runtime')) {
      const url = 'runtime://bench-stream';
      const agent = new parley.AgentServer({
        name: 'stream',
        transport: 'runtime',
        url,
        handler: streamHandler(EVENTS, EVENT_BYTES) as never,
      });
      await agent.start();
      closers.push(() => agent.stop());
      const client = new parley.AgentClient(url);
      closers.push(() => client.close());
      pairs.push({
        label: 'runtime',
        // The runtime transport hands each event over as a copy, as a wire would: the baseline
        // does the same with JSON text. The bare generator (shared objects) is informational.
        raw: { name: 'async generator + JSON', run: () => rawGenerator(true) },
        parley: { name: 'parley runtime', run: () => parleyStream(client) },
        extra: { name: 'async generator', run: () => rawGenerator(false) },
      });
    }
    // Best rate, and the lowest CPU per event (whole stream, both ends), per contender.
    const best = new Map<string, { rate: number; serverCpu: number; clientCpu: number }>();
    const rates = new Map<string, number[]>();
    const keep = (name: string, figures: StreamFigures, serverCpu: number, clientCpu: number) => {
      rates.set(name, [...(rates.get(name) ?? []), figures.events / figures.seconds]);
      const previous = best.get(name) ?? { rate: 0, serverCpu: Infinity, clientCpu: Infinity };
      best.set(name, {
        rate: Math.max(previous.rate, figures.events / figures.seconds),
        serverCpu: Math.min(previous.serverCpu, serverCpu),
        clientCpu: Math.min(previous.clientCpu, clientCpu),
      });
    };
    // Warm-up streams for each, then rounds alternated.
    for (let round = 1 - STREAM_WARMUP; round <= STREAM_ROUNDS; round++) {
      for (const pair of pairs) {
        for (const contender of [pair.raw, pair.parley, ...(pair.extra ? [pair.extra] : [])]) {
          const serverBefore = contender.server?.cpu() ?? NaN;
          const clientBefore = ownCpu();
          const figures = await contender.run();
          const serverCpu = ((contender.server?.cpu() ?? NaN) - serverBefore) / EVENTS;
          const clientCpu = (ownCpu() - clientBefore) / EVENTS;
          if (round > 0) keep(contender.name, figures, serverCpu, clientCpu);
        }
      }
    }
    const rows: Record<string, Record<string, string | number>> = {};
    const row = (name: string, ratio: string) => {
      const { rate, serverCpu, clientCpu } = best.get(name)!;
      rows[name] = {
        'events/s': Math.round(rate),
        'MB/s': ((rate * EVENT_BYTES) / 1e6).toFixed(1),
        'server µs/event': cpuText(serverCpu),
        'client µs/event': cpuText(clientCpu),
        'parley/raw': ratio,
      };
    };
    const verdicts: string[] = [];
    for (const pair of pairs) {
      const ratio = best.get(pair.parley.name)!.rate / best.get(pair.raw.name)!.rate;
      const paired = pairedRatios(rates.get(pair.parley.name)!, rates.get(pair.raw.name)!);
      row(pair.raw.name, '');
      if (pair.extra) row(pair.extra.name, '');
      row(pair.parley.name, ratio.toFixed(2));
      verdicts.push(`${pair.label}: ratio parley/raw ${judgeRatio(paired, ratio)}`);
    }
    console.log(
      `\nOne stream of ${EVENTS} task_llm_stream events, ${EVENT_BYTES}-byte delta, first to last event at the client ` +
        `(best of ${STREAM_ROUNDS} after ${STREAM_WARMUP} warm-up streams; MB/s counts the deltas only)`,
    );
    console.table(rows);
    for (const line of verdicts) console.log(line);
    if (best.has('async generator')) {
      const ours = best.get('parley runtime')!.rate;
      console.log(
        `runtime: parley / (async generator, events shared, no copy) = ${(ours / best.get('async generator')!.rate).toFixed(2)} (informational)`,
      );
    }
    console.log(
      'server/client µs per event: CPU time of the server process / this process over a whole stream, lowest round (runtime: all in this process)',
    );
  } finally {
    for (const close of closers) await close();
  }
}

// ------------------------------------------------------------------------- main

async function main(): Promise<void> {
  // The servers run the compiled code; build it first.
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
  pinLoadGenerator();
  await loadDist();
  console.log(pinningNote());
  const servers = new Map<string, Server>();
  const start = async (key: string, script: string, args: readonly (string | number)[]) => {
    servers.set(key, await startServer(script, args));
  };
  try {
    const unary = ONLY !== 'stream';
    const streams = ONLY !== 'unary';
    const wants = (name: string) => SELECTED.has(name);
    const starts: Array<Promise<void>> = [];
    if (wants('websocket')) starts.push(start('raw-ws', 'raw-ws.mjs', [EVENTS, EVENT_BYTES]));
    if (wants('grpc')) {
      starts.push(start('raw-grpc', 'raw-grpc.mjs', [EVENTS, EVENT_BYTES]));
      starts.push(start('grpcjs', 'grpcjs-echo.mjs', [EVENTS, EVENT_BYTES]));
      if (unary && GRPC_EXPERIMENT) starts.push(start('grpcjs-over-runtime', 'grpcjs-over-runtime.mjs', []));
    }
    if (unary && wants('websocket')) {
      starts.push(start('raw-ws-full', 'raw-ws.mjs', [EVENTS, EVENT_BYTES, 'full']));
      starts.push(start('parley-websocket', 'parley-agent.mjs', ['websocket', 'ws://127.0.0.1:0']));
    }
    if (unary && wants('grpc')) starts.push(start('parley-grpc', 'parley-agent.mjs', ['grpc', 'grpc://127.0.0.1:0']));
    if (streams && wants('sse')) {
      starts.push(start('raw-sse', 'raw-sse.mjs', [EVENTS, EVENT_BYTES]));
      starts.push(start('stream-sse', 'parley-stream-agent.mjs', ['sse', 'http://127.0.0.1:0', EVENTS, EVENT_BYTES]));
    }
    if (streams && wants('websocket'))
      starts.push(start('stream-websocket', 'parley-stream-agent.mjs', ['websocket', 'ws://127.0.0.1:0', EVENTS, EVENT_BYTES]));
    if (streams && wants('grpc'))
      starts.push(start('stream-grpc', 'parley-stream-agent.mjs', ['grpc', 'grpc://127.0.0.1:0', EVENTS, EVENT_BYTES]));
    const started = await Promise.allSettled(starts);
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    if (unary && (wants('websocket') || wants('grpc'))) await unaryBench(servers);
    if (streams) await streamBench(servers);
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
    killAll();
  }
}

const began = performance.now();
try {
  await main();
  console.log(`\ntotal ${((performance.now() - began) / 1000).toFixed(0)} s`);
  // Anything a library left open (keep-alive sockets, timers) must not hold the process.
  process.exit(0);
} catch (error) {
  console.error(error);
  process.exit(1);
}
