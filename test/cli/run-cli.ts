// Runs the `parley` command in a child process, the way a user's shell or CI would, and checks
// that nothing it prints is a stack trace: from source through tsx (no build needed), or with
// `built` the compiled dist/src/cli/main.js that the package's bin points at (npm run build first).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
/** The compiled command, as installed. */
export const BUILT_MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** Working directory; file names in the output are relative to it. */
  readonly cwd: string;
  /** Written to the command's standard input, which is then closed. */
  readonly stdin?: string;
  /** The command's whole environment. Default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** Run the compiled dist/src/cli/main.js instead of the source. */
  readonly built?: boolean;
}

export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    if (options.built && !existsSync(BUILT_MAIN)) {
      reject(new Error(`${BUILT_MAIN} is missing: run npm run build first`));
      return;
    }
    const command = options.built ? [BUILT_MAIN, ...args] : ['--import', TSX, MAIN, ...args];
    const child = spawn(process.execPath, command, {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), PARLEY_DEBUG: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const result = {
        code,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      };
      try {
        assertNoStackTrace(result);
        resolve(result);
      } catch (error) {
        reject(error);
      }
    });
    child.stdin.on('error', () => {
      // The command may exit before reading its input (a usage error); that is fine.
    });
    child.stdin.end(options.stdin ?? '');
  });
}

export function assertNoStackTrace(result: CliResult): void {
  for (const [stream, text] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    assert.doesNotMatch(text, /^ {4}at /m, `stack trace on ${stream}:\n${text}`);
  }
}

/** A scratch directory holding the given files (name -> contents), removed by `cleanup`. */
export function scratchDir(files: Readonly<Record<string, string>> = {}): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cli-'));
  for (const [name, contents] of Object.entries(files)) writeFileSync(join(dir, name), contents);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/** A `parley serve` child once it printed `ready <url>`: what it printed so far, and its exit. */
export interface ServingChild {
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** The exit code (null after a signal), once everything the child printed has been read. */
  readonly exited: Promise<number | null>;
}

/**
 * Collects a serving child's output and resolves once it prints its `ready <url>` line;
 * rejects, with everything it printed, if it exits first.
 */
export function untilServing(child: ChildProcess): Promise<ServingChild> {
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  // 'close', not 'exit': a child may have exited before its last lines (`stopped`) were read
  // from the pipe; 'close' comes once its output has ended too.
  const exited = once(child, 'close').then(([code]) => code as number | null);
  return new Promise((resolve, reject) => {
    const onData = () => {
      const match = /^ready (\S+)$/m.exec(out);
      if (!match) return;
      child.stdout!.off('data', onData);
      resolve({ url: match[1]!, stdout: () => out, stderr: () => err, exited });
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`parley exited (${code}) before it was ready\nstdout: ${out}\nstderr: ${err}`)));
  });
}
