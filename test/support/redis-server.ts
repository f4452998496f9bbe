// A real redis-server for the tests: started on a free loopback port with append-only
// persistence in a temporary directory (as docs/replicas.md configures it), known ready by its
// "Ready to accept connections" line, and stoppable, killable and restartable on the same port
// and data directory. Tests that need it skip when redis-server is not installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  readonly dir: string;
  /** Stops it (SIGKILL by default: nothing gets a chance to flush) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and data directory. */
  restart(): Promise<void>;
  /** Stops it and removes its data directory. */
  dispose(): Promise<void>;
}

export const redisInstalled = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** `extraArgs`: more redis-server options (`--maxmemory-policy allkeys-lru`, `--rename-command CONFIG ''`). */
export async function startRedis(extraArgs: readonly string[] = []): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const launch = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes'];
    args.push('--appendfsync', 'always', '--dir', dir, '--daemonize', 'no', '--loglevel', 'notice', ...extraArgs);
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      started.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('Ready to accept connections')) resolve();
      });
      started.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${out}`)));
    });
    started.stdout!.resume();
    child = started;
  };
  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill(signal);
    await exited;
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    stop,
    restart: launch,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
