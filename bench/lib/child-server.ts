// Runs a benchmark server (plain JS, so no TypeScript loader sits on its hot path) in its own
// process, on its own core away from the load generator, and waits for its `ready <url>` line.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildServer {
  readonly url: string;
  stop(): Promise<void>;
}

export function startChildServer(script: string, args: readonly string[] = []): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const match = /^ready (\S+)/.exec(line);
      if (!match) return;
      resolve({
        url: match[1]!,
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
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
