// compose.yaml's deployment run as local processes, for a machine without docker: every service
// runs the command the file gives it, with each `service:port` moved to a free loopback port
// (AddressTable), in compose's start order, and a service counts as started once its own health
// check command, rewritten the same way, exits 0. What a container supplies is supplied here:
// - an image built from the Dockerfile runs its ENTRYPOINT with the service's command; `node` is
//   this Node, and the installed package's files (node_modules/parley-agents/...) are this
//   checkout's (the build, dist/, is what npm pack ships); the stage's ENV is set and the working
//   directory (the image's WORKDIR) is a fresh temporary one;
// - the redis image's server listens on its default port 6379 under the service's name and keeps
//   its data in /data: here the port given to `redis:6379`, bound to 127.0.0.1, and a temporary
//   --dir; its check, `redis-cli ping`, asks the server in its own container, so it is pointed at
//   that same port.
// stop() ends the processes in the reverse of the start order (dependants first, as `docker
// compose down` does, so no replica outlives its Redis) and removes their directories; it runs
// when the test ends whatever happened (a start that failed or hung included), and a test may
// call it sooner.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { AddressTable, type ComposeService, readCompose, startOrder } from './compose-file.js';
import { envOf, execForm, readStages } from './dockerfile.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE_NAME = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;
/** Where the Dockerfile's runtime stage installs the package, relative to its WORKDIR. */
export const INSTALLED_PACKAGE = `node_modules/${PACKAGE_NAME}/`;
/** The port redis-server listens on when given none, as in the redis image. */
const REDIS_DEFAULT_PORT = 6379;

interface Hooks {
  after(fn: () => unknown): void;
  diagnostic(message: string): void;
}

export interface RunningService {
  readonly name: string;
  readonly child: ChildProcess;
  /** The exact argument list it was started with. */
  readonly argv: readonly string[];
  output(): string;
}

export interface LocalDeployment {
  readonly services: ReadonlyMap<string, RunningService>;
  readonly table: AddressTable;
  readonly compose: readonly ComposeService[];
  /** The service's address as a loopback URL: `http://agent-1:8080` -> http://127.0.0.1:PORT. */
  url(composeUrl: string): string;
  /** Stops every process, dependants first, and removes their directories. */
  stop(): Promise<void>;
}

/** An argument as the image would run it: `node` and the installed package's files made local. */
function fromImage(arg: string, index: number): string {
  if (index === 0 && arg === 'node') return process.execPath;
  return arg.startsWith(INSTALLED_PACKAGE) ? join(ROOT, arg.slice(INSTALLED_PACKAGE.length)) : arg;
}

function redisArgs(service: ComposeService, table: AddressTable, dir: string): string[] {
  if (service.command[0] !== 'redis-server') throw new Error(`${service.name}: a redis image running ${service.command[0]}`);
  const port = table.port(`${service.name}:${REDIS_DEFAULT_PORT}`);
  return [...service.command.map((arg) => table.rewrite(arg)), '--port', String(port), '--bind', '127.0.0.1', '--dir', dir];
}

function redisProbe(service: ComposeService, table: AddressTable): string[] {
  const probe = service.healthcheck!.map((arg) => table.rewrite(arg));
  if (probe[0] !== 'redis-cli') throw new Error(`${service.name}: unexpected health check ${probe.join(' ')}`);
  return [
    ...probe.slice(0, 1),
    '-h',
    '127.0.0.1',
    '-p',
    String(table.port(`${service.name}:${REDIS_DEFAULT_PORT}`)),
    ...probe.slice(1),
  ];
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  // A process that ignores SIGTERM must not outlive the test: kill it after a grace period.
  const grace = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(grace);
}

function launch(name: string, argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): RunningService {
  const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.on('error', (error) => (out += `\nspawn failed: ${error.message}`));
  return { name, child, argv, output: () => out };
}

/** Exit code of one run of the probe (a spawn failure counts as unhealthy). */
async function probeOnce(argv: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<number | null> {
  const probe = spawn(argv[0]!, argv.slice(1), { ...options, stdio: 'ignore' });
  const [code] = (await Promise.race([once(probe, 'exit'), once(probe, 'error').then(() => [-1])])) as [number | null];
  return code;
}

/** Runs the health check until it passes, as compose does before starting dependants; fails if the service exits first. */
async function untilHealthy(service: RunningService, probe: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  let tries = 0;
  for (;;) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw new Error(
        `${service.name} exited (${service.child.exitCode ?? service.child.signalCode}) before it was healthy:\n${service.output()}`,
      );
    }
    tries++;
    if ((await probeOnce(probe, options)) === 0) return tries;
    // Compose waits `interval` between checks; a shorter pause only makes the test quicker.
    await sleep(100);
  }
}

export async function startDeployment(t: Hooks): Promise<LocalDeployment> {
  const compose = readCompose();
  const table = await AddressTable.of(compose);
  const runtime = readStages().at(-1)!;
  const entrypoint = execForm(runtime, 'ENTRYPOINT');
  const imageEnv = { ...process.env, PARLEY_DEBUG: '', ...envOf(runtime) };
  const services = new Map<string, RunningService>();
  const waves: RunningService[][] = [];
  const dirs: string[] = [];
  const stop = async () => {
    for (const wave of waves.reverse()) await Promise.all(wave.map((service) => stopChild(service.child)));
    waves.length = 0;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  };
  t.after(stop);
  const start = async (service: ComposeService, wave: RunningService[]) => {
    const dir = mkdtempSync(join(tmpdir(), `parley-compose-${service.name}-`));
    dirs.push(dir);
    let argv: string[];
    let probe: string[] | null;
    let env: NodeJS.ProcessEnv;
    if (service.image === null) {
      argv = [...entrypoint, ...service.command].map((arg, i) => fromImage(table.rewrite(arg), i));
      probe = service.healthcheck?.map((arg, i) => fromImage(table.rewrite(arg), i)) ?? null;
      env = imageEnv;
    } else if (service.image.startsWith('redis:')) {
      argv = redisArgs(service, table, dir);
      probe = service.healthcheck ? redisProbe(service, table) : null;
      env = process.env;
    } else {
      throw new Error(`${service.name}: no local stand-in for the image ${service.image}`);
    }
    if (probe === null) throw new Error(`${service.name} has no health check, so nothing tells when it is up`);
    const running = launch(service.name, argv, { cwd: dir, env });
    wave.push(running);
    services.set(service.name, running);
    const tries = await untilHealthy(running, probe, { cwd: dir, env });
    t.diagnostic(`${service.name} healthy after ${tries} check(s): ${argv.join(' ')}`);
  };
  for (const group of startOrder(compose)) {
    const wave: RunningService[] = [];
    waves.push(wave);
    await Promise.all(group.map((service) => start(service, wave)));
  }
  return { services, table, compose, url: (composeUrl) => table.rewrite(composeUrl), stop };
}
