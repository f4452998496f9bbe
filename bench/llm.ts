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
// taskset is available, this process to CPU 0.
//
// Each transport runs with its default `stream_flush_interval` and with the ones listed in
// BENCH_FLUSH (seconds; `0`, writes at the end of each turn, by default), so the table shows
// what the interval saves.
//
// Environment: BENCH_TOKENS (20000) per burst stream, BENCH_PACED_TOKENS (2000) per paced
// stream, BENCH_MODES (burst,paced), BENCH_ROUNDS (5) measured streams per side,
// BENCH_WARMUP (3) streams first, BENCH_TRANSPORTS (sse,websocket), BENCH_FLUSH (0; empty for
// none), BENCH_PIN (1).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pinLoadGenerator, pinningNote, serverCommand } from './lib/cpu-pinning.js';
import { median } from './lib/paired-rounds.js';

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

function startChild(script: string, args: readonly string[]): Child {
  const [command, argv] = serverCommand([`bench/servers/${script}`, ...args]);
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
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

/** The SDK alone: µs of CPU per token, one value per measured stream. */
async function baseline(modelUrl: string): Promise<number[]> {
  const reader = startChild('sdk-reader.mjs', [modelUrl, String(WARMUP), String(ROUNDS)]);
  const perToken: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const [, cpu, tokens] = (await reader.next('round ')).split(' ');
    if (Number(tokens) !== TOKENS) throw new Error(`the SDK read ${tokens} tokens of ${TOKENS}`);
    perToken.push(Number(cpu) / TOKENS);
  }
  await ready(reader);
  await reader.stop();
  return perToken;
}

/** The SDK passing each chunk on as a websocket frame (no parley): µs of CPU per token, per stream. */
async function forwarder(modelUrl: string): Promise<{ agent: number[]; events: number[] }> {
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
  try {
    for (let i = 0; i < WARMUP; i++) await streamOnce();
    const result = { agent: [] as number[], events: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      const before = await agentCpu(child);
      result.events.push(await streamOnce());
      result.agent.push(((await agentCpu(child)) - before) / TOKENS);
    }
    return result;
  } finally {
    socket.close();
    await child.stop();
  }
}

async function agentCpu(agent: Child): Promise<number> {
  const line = agent.next('cpu ');
  agent.process.kill('SIGUSR2');
  return Number((await line).slice(4));
}

/**
 * One agent process on `transport` (its stream flush interval `flush` seconds, null for the
 * default): µs of CPU per token of the agent and of this process, per stream.
 */
async function parley(
  transport: string,
  modelUrl: string,
  flush: number | null,
): Promise<{ agent: number[]; client: number[]; events: number[] }> {
  const { AgentClient } = await import('../dist/src/client/agent-client.js');
  const args = [transport, LISTEN[transport]!, modelUrl, ...(flush === null ? [] : [String(flush)])];
  const agent = startChild('llm-agent.mjs', args);
  const url = await ready(agent);
  const client = new AgentClient(url, { transport });
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
  try {
    for (let i = 0; i < WARMUP; i++) await streamOnce();
    const result = { agent: [] as number[], client: [] as number[], events: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      const before = await agentCpu(agent);
      const own = process.cpuUsage();
      result.events.push(await streamOnce());
      const ownUsed = process.cpuUsage(own);
      const after = await agentCpu(agent);
      result.agent.push((after - before) / TOKENS);
      result.client.push((ownUsed.user + ownUsed.system) / TOKENS);
    }
    return result;
  } finally {
    await client.close();
    await agent.stop();
  }
}

const fmt = (value: number): string => value.toFixed(2).padStart(8);

async function main(): Promise<void> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  pinLoadGenerator();
  console.log(`bench/llm: ${WARMUP} warm-up and ${ROUNDS} measured streams a side; ${pinningNote()}`);
  const verdicts: string[] = [];
  for (const mode of MODES) {
    TOKENS = mode === 'paced' ? PACED_TOKENS : BURST_TOKENS;
    const model = startChild('openai-stream.mjs', [String(TOKENS), mode]);
    const modelUrl = await ready(model);
    try {
      const sdk = median(await baseline(modelUrl));
      console.log('');
      console.log(`${mode}: ${TOKENS} tokens a stream`);
      console.log('side                    CPU µs/token (median)   vs SDK   vs forward   client µs/token   text events/stream');
      console.log(`openai SDK alone        ${fmt(sdk)}                  1.00`);
      const raw = await forwarder(modelUrl);
      const forward = median(raw.agent);
      const rawLine = `SDK + raw ws forward    ${fmt(forward)}               ${(forward / sdk).toFixed(2).padStart(5)}        1.00`;
      console.log(`${rawLine}                               ${String(median(raw.events)).padStart(8)}`);
      for (const transport of TRANSPORTS) {
        for (const flush of FLUSH) {
          const { agent, client, events } = await parley(transport, modelUrl, flush);
          const ratio = median(agent) / sdk;
          const vsForward = (median(agent) / forward).toFixed(2).padStart(5);
          const side = flush === null ? transport : `${transport}, flush ${flush}`;
          const line = `parley ${side.padEnd(16)} ${fmt(median(agent))}               ${ratio.toFixed(2).padStart(5)}       ${vsForward}   ${fmt(median(client))}`;
          console.log(`${line}          ${String(median(events)).padStart(8)}`);
          const more = `${((ratio - 1) * 100).toFixed(0)}% more CPU per token than the SDK alone, ${((median(agent) / forward - 1) * 100).toFixed(0)}% more than a raw forward`;
          verdicts.push(
            `${mode}, ${side}: ${more} (target <= ${((TARGET - 1) * 100).toFixed(0)}%): ${ratio <= TARGET ? 'met' : 'NOT met'}`,
          );
        }
      }
    } finally {
      await model.stop();
    }
  }
  console.log('');
  for (const verdict of verdicts) console.log(verdict);
}

await main();
