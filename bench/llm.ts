// bench/llm: what parley costs per streamed token between a model's stream and a client of the
// task stream. A local server streams one chat completion of N tokens in the OpenAI wire
// format. Baseline: a process reading that stream with the official `openai` SDK (CPU time per
// token). Parley: an agent process (AgentServer, the OpenAI provider reading the same server,
// the model loop, the engine, the transport) streaming the task to an AgentClient in this
// process, over sse and websocket; CPU time per token of the agent process, measured around
// each stream. Target: the agent at most 10% more CPU per token than the SDK alone. This
// process's CPU per token (the client reading the task stream) is shown beside it.
//
// Servers run the compiled code (dist/, built first) in child processes, pinned to CPU 1 when
// taskset is available, this process to CPU 0. Every side is started first; then each round
// streams once through every side in turn (starting with a different side each round), so a
// change in the shared machine's load hits all sides alike. A side's ratio to the SDK is the
// median of its rounds' ratios (round i against the SDK's round i). The warm-up runs the same
// way, for BENCH_WARMUP rounds or as many as it takes to stream BENCH_WARMUP_TOKENS through
// each side: a process reading one token per read keeps getting cheaper for ~8,000 reads (JIT,
// heap sizing), and a side measured before it settles looks worse than one that has.
//
// Each transport runs with its default `stream_flush_interval` and with the ones listed in
// BENCH_FLUSH (seconds; `0`, writes at the end of each turn, by default), so the table shows
// what the interval saves.
//
// Under the table, on Linux, each side's CPU per token by thread (the main thread; node's
// platform threads, V8's concurrent compiler and GC helpers among them; libuv's pool) and its
// wake-ups per token (voluntary context switches), from /proc around each stream: a side whose
// platform threads still burn CPU is still being compiled, not yet in its steady state.
//
// Environment: BENCH_TOKENS (20000) per burst stream, BENCH_PACED_TOKENS (2000) per paced
// stream, BENCH_MODES (burst,paced), BENCH_ROUNDS (5) measured rounds, BENCH_WARMUP (3)
// warm-up rounds at least, BENCH_WARMUP_TOKENS (10000) streamed through each side in warm-up
// at least, BENCH_TRANSPORTS (sse,websocket), BENCH_FLUSH (0; empty for none), BENCH_PIN (1),
// BENCH_NODE_ARGS (node flags for every child process, for example `--cpu-prof` to profile them).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pinLoadGenerator, pinningNote, serverCommand } from './lib/cpu-pinning.js';
import { median, pairedRatios } from './lib/paired-rounds.js';
import { threadUsage, usageSince, type ThreadUsages } from './lib/thread-usage.js';

const env = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const BURST_TOKENS = env('BENCH_TOKENS', 20_000);
const PACED_TOKENS = env('BENCH_PACED_TOKENS', 2_000);
const MODES = (process.env.BENCH_MODES ?? 'burst,paced').split(',').map((name) => name.trim());
const ROUNDS = env('BENCH_ROUNDS', 5);
const WARMUP = env('BENCH_WARMUP', 3);
/** Warm-up streams a side carry at least this many tokens: a paced side's JIT and heap settle over ~8,000 reads. */
const WARMUP_TOKENS = env('BENCH_WARMUP_TOKENS', 10_000);
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? 'sse,websocket').split(',').map((name) => name.trim());
/** The agent's stream flush intervals: null for the transport's default, then BENCH_FLUSH's. */
const FLUSH: ReadonlyArray<number | null> = [
  null,
  ...(process.env.BENCH_FLUSH ?? '0')
    .split(',')
    .filter((value) => value.trim() !== '')
    .map((value) => {
      const seconds = Number(value);
      if (!Number.isFinite(seconds) || seconds < 0) throw new Error('BENCH_FLUSH must list seconds, 0 or more');
      return seconds;
    }),
];
/** Extra node flags for the child processes (`--cpu-prof --cpu-prof-dir=prof`, say), split on spaces. */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
const TARGET = 1.1;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Tokens of each answer in the mode being measured. */
let TOKENS = BURST_TOKENS;
/** The text of one answer, as openai-stream.mjs sends it: token i is ` tok${i % 100}`. */
const answerLength = (tokens: number): number => Array.from({ length: tokens }, (_, i) => ` tok${i % 100}`).join('').length;

const LISTEN: Readonly<Record<string, string>> = { sse: 'http://127.0.0.1:0', websocket: 'ws://127.0.0.1:0' };

interface Child {
  readonly process: ChildProcess;
  readonly lines: Interface;
  /** The next line starting with `prefix`. */
  next(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function startChild(script: string, args: readonly string[], stdin: 'ignore' | 'pipe' = 'ignore'): Child {
  const [command, argv] = serverCommand([...NODE_ARGS, `bench/servers/${script}`, ...args]);
  const child = spawn(command, argv, { cwd: ROOT, stdio: [stdin, 'pipe', 'inherit'] });
  children.add(child);
  const lines = createInterface({ input: child.stdout! });
  const queue: string[] = [];
  const waiters: Array<{ prefix: string; resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  const deliver = () => {
    for (let i = 0; i < waiters.length; i++) {
      const index = queue.findIndex((line) => line.startsWith(waiters[i]!.prefix));
      if (index < 0) continue;
      const [line] = queue.splice(index, 1);
      waiters.splice(i--, 1)[0]!.resolve(line!);
    }
  };
  lines.on('line', (line) => {
    queue.push(line);
    deliver();
  });
  child.once('exit', (code) => {
    children.delete(child);
    for (const waiter of waiters.splice(0))
      waiter.reject(new Error(`${script} exited (${code}) before it said "${waiter.prefix}"`));
  });
  return {
    process: child,
    lines,
    next: (prefix) =>
      new Promise((resolve, reject) => {
        waiters.push({ prefix, resolve, reject });
        deliver();
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function ready(child: Child): Promise<string> {
  return (await child.next('ready ')).slice('ready '.length);
}

/**
 * One stream through a side: CPU µs of its process, of this process (parley's client), text
 * events, and what each thread of the side's process used (null where /proc is missing).
 */
interface Stream {
  readonly cpu: number;
  readonly client: number | null;
  readonly events: number | null;
  readonly threads: ThreadUsages | null;
}

/** Runs `stream` with the threads of process `pid` sampled before and after. */
async function sampled(pid: number, stream: () => Promise<Omit<Stream, 'threads'>>): Promise<Stream> {
  const before = threadUsage(pid);
  const result = await stream();
  const after = threadUsage(pid);
  return { ...result, threads: before && after ? usageSince(before, after) : null };
}

/** A contender, started once per mode and asked for one stream at a time. */
interface Side {
  readonly name: string;
  /** Its process, for /proc. */
  readonly pid: number;
  stream(): Promise<Stream>;
  stop(): Promise<void>;
}

/** The SDK alone: its process's CPU for each read, as it measures it itself. */
async function sdkSide(modelUrl: string): Promise<Side> {
  const reader = startChild('sdk-reader.mjs', [modelUrl], 'pipe');
  await ready(reader);
  return {
    name: 'openai SDK alone',
    pid: reader.process.pid!,
    stream: () =>
      sampled(reader.process.pid!, async () => {
        const line = reader.next('round ');
        reader.process.stdin!.write('go\n');
        const [, cpu, tokens] = (await line).split(' ');
        if (Number(tokens) !== TOKENS) throw new Error(`the SDK read ${tokens} tokens of ${TOKENS}`);
        return { cpu: Number(cpu), client: null, events: null };
      }),
    stop: () => reader.stop(),
  };
}

/** The SDK passing each chunk on as a websocket frame (no parley). */
async function forwarderSide(modelUrl: string): Promise<Side> {
  const child = startChild('sdk-forwarder.mjs', [modelUrl]);
  const socket = new WebSocket(await ready(child));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const streamOnce = () =>
    new Promise<number>((resolve, reject) => {
      let events = 0;
      let text = '';
      const onMessage = (data: WebSocket.RawData) => {
        const frame = JSON.parse(data.toString()) as { delta?: string; done?: boolean };
        if (frame.delta !== undefined) {
          text += frame.delta;
          events++;
          return;
        }
        socket.off('message', onMessage);
        if (text.length !== answerLength(TOKENS)) reject(new Error(`the forwarder sent ${text.length} characters`));
        else resolve(events);
      };
      socket.on('message', onMessage);
      socket.send('go');
    });
  return {
    name: 'SDK + raw ws forward',
    pid: child.process.pid!,
    stream: () =>
      sampled(child.process.pid!, async () => {
        const before = await childCpu(child);
        const events = await streamOnce();
        return { cpu: (await childCpu(child)) - before, client: null, events };
      }),
    async stop() {
      socket.close();
      await child.stop();
    },
  };
}

async function childCpu(child: Child): Promise<number> {
  const line = child.next('cpu ');
  child.process.kill('SIGUSR2');
  return Number((await line).slice(4));
}

/** An agent process on `transport` (its stream flush interval `flush` seconds, null for the default). */
async function parleySide(transport: string, modelUrl: string, flush: number | null): Promise<Side> {
  const { AgentClient } = await import('../dist/src/client/agent-client.js');
  const args = [transport, LISTEN[transport]!, modelUrl, ...(flush === null ? [] : [String(flush)])];
  const agent = startChild('llm-agent.mjs', args);
  const client = new AgentClient(await ready(agent), { transport });
  /** Streams one answer; returns the number of text events it came in (chunks read together share one). */
  const streamOnce = async (): Promise<number> => {
    let events = 0;
    let text = '';
    for await (const event of client.streamTask('go')) {
      if (event.type === 'task_llm_stream' && !event.final) {
        text += event.delta;
        events++;
      } else if (event.type === 'task_completed' && event.state !== 'completed') {
        throw new Error(`the task ended ${event.state}: ${JSON.stringify(event.task.metadata?.error)}`);
      }
    }
    if (text.length !== answerLength(TOKENS))
      throw new Error(`${transport}: the client read ${text.length} characters of ${answerLength(TOKENS)}`);
    return events;
  };
  return {
    name: `parley ${flush === null ? transport : `${transport}, flush ${flush}`}`,
    pid: agent.process.pid!,
    stream: () =>
      sampled(agent.process.pid!, async () => {
        const before = await childCpu(agent);
        const own = process.cpuUsage();
        const events = await streamOnce();
        const ownUsed = process.cpuUsage(own);
        const cpu = (await childCpu(agent)) - before;
        return { cpu, client: ownUsed.user + ownUsed.system, events };
      }),
    async stop() {
      await client.close();
      await agent.stop();
    },
  };
}

/**
 * Streams `rounds` times through every side, in turn: round i starts with side i (modulo
 * their number), so each side meets the machine's load in every position. Returns each
 * side's streams, round by round.
 */
async function inTurn(sides: readonly Side[], rounds: number): Promise<Stream[][]> {
  const streams = sides.map((): Stream[] => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < sides.length; k++) {
      const index = (round + k) % sides.length;
      streams[index]!.push(await sides[index]!.stream());
    }
  }
  return streams;
}

const fmt = (value: number, width = 8): string => value.toFixed(2).padStart(width);

/**
 * Where each side's CPU went, by thread, and how often its threads woke up: medians of the
 * rounds, per token. A wake-up is a voluntary context switch (the thread slept in epoll_wait or
 * on a lock and was woken); on a loaded two-core machine each costs the process a few µs.
 */
function printThreads(sides: readonly Side[], streams: readonly Stream[][]): void {
  if (streams.some((side) => side.some((stream) => stream.threads === null))) return;
  const groups = ['main', 'V8 platform', 'libuv pool'];
  const perToken = (side: readonly Stream[], pick: (threads: ThreadUsages) => number): number =>
    median(side.map((stream) => pick(stream.threads!) / TOKENS));
  const sum = (threads: ThreadUsages, group: string | null, key: 'cpu' | 'voluntary' | 'involuntary'): number =>
    [...threads].reduce((total, [name, usage]) => (group === null || name === group ? total + usage[key] : total), 0);
  console.log('');
  console.log(
    'threads, per token: CPU µs (wake-ups)      main              V8 platform       libuv pool        all wake-ups   preempted',
  );
  sides.forEach((side, i) => {
    const cells = groups.map((group) => {
      const cpu = perToken(streams[i]!, (threads) => sum(threads, group, 'cpu'));
      const wakeUps = perToken(streams[i]!, (threads) => sum(threads, group, 'voluntary'));
      return `${cpu.toFixed(1).padStart(7)} (${wakeUps.toFixed(2)})`.padEnd(17);
    });
    const wakeUps = perToken(streams[i]!, (threads) => sum(threads, null, 'voluntary'));
    const preempted = perToken(streams[i]!, (threads) => sum(threads, null, 'involuntary'));
    console.log([side.name.padEnd(37), ...cells, wakeUps.toFixed(2).padStart(12), preempted.toFixed(2).padStart(11)].join(' '));
  });
}

/** CPU µs of a process's threads between two samples, idle time between its streams included; NaN without /proc. */
function wholeRunCpu(before: ThreadUsages | null, after: ThreadUsages | null): number {
  if (!before || !after) return Number.NaN;
  return [...usageSince(before, after).values()].reduce((total, usage) => total + usage.cpu, 0);
}

/**
 * Each side's CPU over the whole measured run (all threads, from /proc, the gaps between its
 * streams included) per token streamed. A stream's window closes at different moments for
 * different sides (the SDK's when its loop ends, the agent's after its client saw the task
 * end), and V8's background work (compiling, GC) spills past a stream's end; counted over the
 * whole run, none of it falls between windows.
 */
function printWholeRun(sides: readonly Side[], whole: readonly number[]): void {
  if (whole.some((value) => Number.isNaN(value))) return;
  console.log('');
  console.log('whole measured run, all threads, per token streamed: CPU µs   vs SDK');
  sides.forEach((side, i) => {
    console.log(`${side.name.padEnd(50)} ${fmt(whole[i]!, 12)} ${fmt(whole[i]! / whole[0]!, 8)}`);
  });
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  pinLoadGenerator();
  console.log(
    `bench/llm: ${WARMUP} warm-up rounds (more when they would stream fewer than ${WARMUP_TOKENS} tokens a side), ` +
      `then ${ROUNDS} measured rounds, each streaming once through every side in turn; ${pinningNote()}`,
  );
  const verdicts: string[] = [];
  for (const mode of MODES) {
    TOKENS = mode === 'paced' ? PACED_TOKENS : BURST_TOKENS;
    const model = startChild('openai-stream.mjs', [String(TOKENS), mode]);
    const modelUrl = await ready(model);
    const sides: Side[] = [];
    try {
      sides.push(await sdkSide(modelUrl), await forwarderSide(modelUrl));
      for (const transport of TRANSPORTS) for (const flush of FLUSH) sides.push(await parleySide(transport, modelUrl, flush));
      const warmup = Math.max(WARMUP, Math.ceil(WARMUP_TOKENS / TOKENS));
      await inTurn(sides, warmup);
      const before = sides.map((side) => threadUsage(side.pid));
      const streams = await inTurn(sides, ROUNDS);
      const whole = sides.map((side, i) => wholeRunCpu(before[i]!, threadUsage(side.pid)) / (ROUNDS * TOKENS));
      const cpu = streams.map((side) => side.map((stream) => stream.cpu / TOKENS));
      const [sdk, forward] = cpu as [number[], number[]];
      console.log('');
      console.log(`${mode}: ${TOKENS} tokens a stream, ${warmup} warm-up rounds`);
      console.log('side                       CPU µs/token   vs SDK   vs forward   client µs/token   text events/stream');
      sides.forEach((side, i) => {
        const own = cpu[i]!;
        const vsSdk = median(pairedRatios(own, sdk));
        const vsForward = median(pairedRatios(own, forward));
        const client = streams[i]!.flatMap((stream) => (stream.client === null ? [] : [stream.client / TOKENS]));
        const events = streams[i]!.flatMap((stream) => (stream.events === null ? [] : [stream.events]));
        const columns = [
          side.name.padEnd(26),
          fmt(median(own), 12),
          fmt(vsSdk, 8),
          fmt(vsForward, 12),
          client.length > 0 ? fmt(median(client), 17) : ''.padStart(17),
          events.length > 0 ? String(median(events)).padStart(20) : '',
        ];
        console.log(columns.join(' ').trimEnd());
        if (i < 2) return;
        const more = `${((vsSdk - 1) * 100).toFixed(0)}% more CPU per token than the SDK alone, ${((vsForward - 1) * 100).toFixed(0)}% more than a raw forward`;
        verdicts.push(
          `${mode}, ${side.name}: ${more} (medians of the rounds' ratios; target <= ${((TARGET - 1) * 100).toFixed(0)}%): ${vsSdk <= TARGET ? 'met' : 'NOT met'}`,
        );
      });
      printThreads(sides, streams);
      printWholeRun(sides, whole);
    } finally {
      for (const side of sides) await side.stop();
      await model.stop();
    }
  }
  console.log('');
  for (const verdict of verdicts) console.log(verdict);
}

await main();
