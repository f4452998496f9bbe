// Starting and stopping agent replicas (test/store/replica-process.ts) in child processes: each
// known by the address on its `ready <url>` line, stopped with a signal at the end of the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { FeedReaderCounts } from '../../../src/stores/redis/redis-feed-reader.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REPLICA = fileURLToPath(new URL('./replica-process.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

export interface Replica {
  readonly url: string;
  readonly child: ChildProcess;
  readonly name: string;
  output(): string;
  /** Whether the process is still running (a replica must survive Redis going away). */
  alive(): boolean;
  /** What the replica's task feed reader holds for its followers now. */
  feedCounts(): Promise<FeedReaderCounts>;
  stop(): Promise<void>;
}

/** `env`: more environment for the replica (replica-process.ts reads its queue settings there). */
export async function startReplica(store: string, name: string, env: Record<string, string> = {}): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', TSX, REPLICA, store, name], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    // The IPC channel carries the test's questions about the replica's insides (feedCounts).
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.channel?.unref();
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /^ready (\S+)$/m.exec(out);
      if (match) {
        child.stdout!.off('data', onData);
        resolve(match[1]!.replace(/\/$/, ''));
      }
    };
    child.stdout!.on('data', onData);
    void exited.then(([code]) => reject(new Error(`replica ${name} exited (${code}) before it was ready:\n${out}`)));
  });
  return {
    url,
    name,
    child,
    output: () => out,
    alive: () => child.exitCode === null && child.signalCode === null,
    async feedCounts() {
      const answer = once(child, 'message') as Promise<[{ feedCounts: FeedReaderCounts | null }]>;
      // Held open while the answer is awaited; otherwise the channel keeps no test alive.
      child.channel?.ref();
      child.send('feed-counts');
      const [{ feedCounts }] = await answer.finally(() => child.channel?.unref());
      if (!feedCounts) throw new Error(`replica ${name} has no task feed`);
      return feedCounts;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The replica's outcome for one command, and its exit code, when it is expected to fail at start. */
export async function replicaStartFailure(store: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', TSX, REPLICA, store, 'failing'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  // 'close': the exit may come before its last lines were read from the pipes.
  const [code] = await once(child, 'close');
  return { code: code as number | null, output: out };
}

/**
 * Asks until `check` holds (or `tries` looks have failed it), 25 ms apart, and answers the last
 * look; each look is a real request, so this waits on the system, not on a clock.
 */
export async function eventually<T>(look: () => Promise<T>, check: (value: T) => boolean, tries = 1200): Promise<T> {
  let value = await look();
  for (let i = 0; i < tries && !check(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await look();
  }
  return value;
}

/** A JSON POST to a replica: its status and its JSON body. */
export async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}
