// A registry in a child process, as `parley serve registry` runs it (from source, through
// tsx): started on a free port with a SQLite file, known by the address of its `ready <url>`
// line, and stopped with a signal, SIGKILL included.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

export interface RegistryProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<number | string | null>;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string | null>;
}

/** Runs `parley serve registry ...args` and resolves once it is ready; rejects if it exits first. */
export async function startRegistryProcess(args: readonly string[]): Promise<RegistryProcess> {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve', 'registry', '--url', 'http://127.0.0.1:0', ...args], {
    cwd: ROOT,
    env: { ...process.env, PARLEY_DEBUG: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string | null);
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /^ready (\S+)$/m.exec(out);
      if (match) {
        child.stdout.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    void exited.then((code) =>
      reject(Object.assign(new Error(`registry exited (${code}) before it was ready:\n${out}`), { output: out, code })),
    );
  });
  return {
    child,
    url,
    output: () => out,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs `parley serve registry ...args` expecting it to fail at start: its exit code and output. */
export async function failedStart(args: readonly string[]): Promise<{ code: unknown; output: string }> {
  try {
    const started = await startRegistryProcess(args);
    await started.stop();
  } catch (error) {
    const { code, output } = error as { code?: unknown; output?: string };
    if (output !== undefined) return { code, output };
    throw error;
  }
  throw new Error('the registry started, but it should have refused');
}
