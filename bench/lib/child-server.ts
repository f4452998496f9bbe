// Runs a benchmark server (plain JS, so no TypeScript loader sits on its hot path) in its own
// process, on the servers' core when pinning is possible (cpu-pinning.ts), and waits for its
// `ready <url>` line.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { serverCommand } from './cpu-pinning.js';

export interface ChildServer {
  readonly url: string;
  /** Stops the server; resolves with the CPU time it used, in microseconds, if it reported one. */
  stop(): Promise<number | null>;
}

export function startChildServer(script: string, args: readonly string[] = []): Promise<ChildServer> {
  const [command, argv] = serverCommand([script, ...args]);
  const child: ChildProcess = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  let cpu: number | null = null;
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const used = /^cpu (\d+)/.exec(line);
      if (used) cpu = Number(used[1]);
      const match = /^ready (\S+)/.exec(line);
      if (!match) return;
      resolve({
        url: match[1]!,
        stop: () =>
          new Promise<number | null>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done(cpu));
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** A task of about `bytes` bytes of JSON, with a fresh id. */
export function sampleTask(id: string, bytes = 1024): Record<string, unknown> {
  const text = 'All work and no play makes a dull agent. ';
  const base = { id, messages: [{ role: 'user', parts: [{ type: 'text', content: '' }] }] };
  const room = Math.max(0, bytes - JSON.stringify(base).length);
  base.messages[0]!.parts[0]!.content = text.repeat(Math.ceil(room / text.length)).slice(0, room);
  return base;
}
