// What installing parley-agents costs another project: `npm pack` this checkout (build it
// first), then install the tarball into a fresh empty project, alone (the core) and with each
// feature's optional peers, one fresh project per row. Prints, per row, the packages added,
// the size of node_modules and the wall time of `npm install`. The baseline in the same run is
// the core row. Installs prefer the npm cache (--prefer-offline), as a second install on a CI
// machine would; a cold cache adds the download time. Usage: npm run bench:install [-- FEATURE...]
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const peers = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> })
  .peerDependencies;

/** Each feature of the README's table and the peers it adds. */
const FEATURES: Record<string, readonly string[]> = {
  core: [],
  sqlite: ['better-sqlite3'],
  redis: ['ioredis'],
  'llm providers': ['openai', '@anthropic-ai/sdk', 'js-tiktoken'],
  grpc: ['@grpc/grpc-js'],
  websocket: ['ws'],
  logging: ['pino', 'pino-pretty'],
  metrics: ['prom-client'],
  tracing: ['@opentelemetry/api'],
  jwt: ['jose'],
};

/** Bytes under `dir`, counting each file once (symlinks as themselves). */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? sizeOf(path) : lstatSync(path).size;
  }
  return total;
}

/** Every package directory under node_modules, nested ones included. */
function countPackages(modules: string): number {
  let count = 0;
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const path = join(modules, entry.name);
    if (entry.name.startsWith('@')) {
      count += countPackages(path);
      continue;
    }
    count++;
    try {
      count += countPackages(join(path, 'node_modules'));
    } catch {
      // No nested node_modules.
    }
  }
  return count;
}

const work = mkdtempSync(join(tmpdir(), 'parley-install-'));
try {
  const pack = spawnSync(NPM, ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; size: number }>;
  const tarball = join(work, packed!.filename);
  console.log(`tarball ${packed!.filename}: ${(packed!.size / 1e6).toFixed(2)} MB packed`);
  console.log('| install | packages | node_modules | npm install time |');
  console.log('|---|---|---|---|');
  const wanted = process.argv.slice(2);
  for (const [feature, names] of Object.entries(FEATURES)) {
    if (wanted.length > 0 && !wanted.includes(feature)) continue;
    const project = join(work, feature.replace(/\W+/g, '-'));
    rmSync(project, { recursive: true, force: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'measure', private: true, type: 'module' }));
    const specs = names.map((name) => `${name}@${peers[name]}`);
    const started = performance.now();
    const install = spawnSync(NPM, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...specs], {
      cwd: project,
      encoding: 'utf8',
    });
    const seconds = (performance.now() - started) / 1000;
    if (install.status !== 0) {
      console.log(`| ${feature} | failed: ${install.stderr.trim().split('\n').at(-1)} | | |`);
      continue;
    }
    const modules = join(project, 'node_modules');
    const label = names.length === 0 ? 'parley-agents alone' : `+ ${names.join(', ')}`;
    console.log(
      `| ${feature}: ${label} | ${countPackages(modules)} | ${(sizeOf(modules) / 1e6).toFixed(1)} MB | ${seconds.toFixed(1)} s |`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
