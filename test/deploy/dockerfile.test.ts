// What can be checked of the Dockerfile without docker: the file its ENTRYPOINT (and compose's
// health checks) run is the package's bin, shipped by npm pack; its CMD starts an agent on the
// port the image exposes; and the build stage gets, through its COPY lines and past
// .dockerignore, every file that npm ci, the build and npm pack read. Needs npm run build first
// (npm pack lists dist/ only once it exists).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BUILT_MAIN, runCli, untilServing } from '../cli/run-cli.js';
import { freePort } from '../support/redis-server.js';
import { readCompose } from './compose-file.js';
import { contextCopies, DOCKERIGNORE, envOf, execForm, ignoredBy, readStages } from './dockerfile.js';
import { INSTALLED_PACKAGE } from './local-deployment.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  files: string[];
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

interface PackReport {
  /** The tarball's name. */
  readonly filename: string;
  /** The paths it would hold, relative to the package root. */
  readonly files: readonly string[];
}

function pack(): PackReport {
  const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(packed.status, 0, packed.stderr);
  const [report] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  return { filename: report!.filename, files: report!.files.map((file) => file.path) };
}

/** `*` in a shell word as a regular expression (the RUN line's tarball glob). */
function shellGlob(word: string): RegExp {
  return new RegExp(`^${word.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
}

function runtimeStage() {
  return readStages().at(-1)!;
}

test('Dockerfile: the ENTRYPOINT and every compose health check run the package bin that npm pack ships', () => {
  assert.ok(existsSync(BUILT_MAIN), `${BUILT_MAIN} is missing: run npm run build first`);
  const entrypoint = execForm(runtimeStage(), 'ENTRYPOINT');
  assert.equal(entrypoint[0], 'node');
  assert.ok(entrypoint[1]!.startsWith(INSTALLED_PACKAGE), `ENTRYPOINT runs ${entrypoint[1]}, outside ${INSTALLED_PACKAGE}`);
  const file = entrypoint[1]!.slice(INSTALLED_PACKAGE.length);
  assert.equal(file, MANIFEST.bin.parley!.replace(/^\.\//, ''), 'the ENTRYPOINT is the parley bin');
  const packed = pack();
  assert.ok(packed.files.includes(file), `npm pack leaves out ${file}`);
  // The build stage installs the tarball npm pack wrote, by a glob over its name.
  const installs = readStages()[0]!.instructions.flatMap((i) =>
    i.keyword === 'RUN' ? [...i.args.matchAll(/\/tmp\/(\S+\.tgz)/g)] : [],
  );
  assert.equal(installs.length, 1, 'the build stage installs one tarball from /tmp');
  assert.match(packed.filename, shellGlob(installs[0]![1]!), 'the tarball the build stage installs');
  // Relative to the image's WORKDIR, where the runtime stage copies node_modules.
  assert.ok(
    runtimeStage().instructions.some((i) => i.keyword === 'WORKDIR' && i.args === '/app'),
    'the runtime stage works in /app',
  );
  const checks = readCompose().filter((service) => service.healthcheck?.[0] === 'node');
  assert.ok(checks.length > 0, 'compose.yaml has health checks through node');
  for (const service of checks) assert.equal(service.healthcheck![1], entrypoint[1], `${service.name}'s health check`);
});

test('Dockerfile: the CMD serves an agent on a port the image exposes', { timeout: 120_000 }, async (t) => {
  assert.ok(existsSync(BUILT_MAIN), `${BUILT_MAIN} is missing: run npm run build first`);
  const stage = runtimeStage();
  const [node, main] = execForm(stage, 'ENTRYPOINT');
  const cmd = execForm(stage, 'CMD');
  assert.equal(node, 'node');
  assert.deepEqual(cmd.slice(0, 2), ['serve', 'agent']);
  const url = new URL(cmd[cmd.indexOf('--url') + 1]!);
  const exposed = stage.instructions.filter((i) => i.keyword === 'EXPOSE').flatMap((i) => i.args.split(/\s+/));
  assert.ok(exposed.includes(url.port), `EXPOSE ${exposed.join(' ')} leaves out the CMD's port ${url.port}`);
  // The container's wildcard address and fixed port become a free loopback port here.
  const local = `http://127.0.0.1:${await freePort()}`;
  const args = cmd.map((arg) => (arg === url.href || arg === url.origin ? local : arg));
  const cwd = mkdtempSync(join(tmpdir(), 'parley-docker-cmd-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const child = spawn(process.execPath, [join(ROOT, main!.slice(INSTALLED_PACKAGE.length)), ...args], {
    cwd,
    env: { ...process.env, PARLEY_DEBUG: '', ...envOf(stage) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  await untilServing(child);
  const health = await runCli(['health', '--ready', local], { cwd, built: true });
  assert.equal(health.code, 0, `${health.stdout}\n${health.stderr}`);
});

test('Dockerfile: the build stage copies, past .dockerignore, every file npm ci, the build and npm pack read', () => {
  const build = readStages()[0]!;
  const copied = contextCopies(build);
  const ignored = ignoredBy(readFileSync(DOCKERIGNORE, 'utf8'));
  const tracked = spawnSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  const under = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
  for (const source of copied) {
    const files = tracked.filter((path) => under(path, source));
    assert.ok(files.length > 0, `COPY ${source}: nothing in the repository`);
    assert.deepEqual(files.filter(ignored), [], `.dockerignore drops files the build stage copies from ${source}`);
  }
  const buildConfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
    extends?: string;
    include: string[];
  };
  const buildScript = /^node (\S+)$/.exec(MANIFEST.scripts.build!);
  assert.ok(buildScript, `npm run build is ${MANIFEST.scripts.build}, not one node script`);
  assert.doesNotMatch(
    readFileSync(join(ROOT, buildScript[1]!), 'utf8'),
    /from '\.\.?\//,
    'the build script imports no other file',
  );
  const needed = [
    'package.json',
    'package-lock.json',
    'tsconfig.build.json',
    ...(buildConfig.extends ? [buildConfig.extends.replace(/^\.\//, '')] : []),
    ...buildConfig.include,
    buildScript[1]!,
    // What npm pack puts in the tarball, but the build's output.
    ...pack().files.filter((path) => !under(path, 'dist')),
  ];
  const missing = needed.filter((path) => !copied.some((source) => under(path, source)));
  assert.deepEqual(missing, [], 'the build stage copies none of these');
  // npm ci refuses a lockfile whose root entry disagrees with package.json.
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Record<string, unknown>>;
  };
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies'] as const) {
    assert.deepEqual(lock.packages['']![field] ?? {}, MANIFEST[field] ?? {}, `package-lock.json's ${field}`);
  }
});
