// The package as another repository gets it: build, `npm pack`, install the tarball into a
// fresh ESM TypeScript project, type-check and run a consumer that imports through the
// `exports` map, and run the installed `parley` bin. Slow by nature (a build and an
// install), so it is one test; it needs no network when the npm cache holds parley's few
// runtime dependencies, and falls back on the registry otherwise.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function output(result: SpawnSyncReturns<string>): string {
  return `exit ${result.status}${result.error ? ` (${result.error.message})` : ''}\n${result.stdout}\n${result.stderr}`;
}

const CONSUMER_SOURCE = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AgentOperationsClient } from 'parley-agents/clients';
import type { Task } from 'parley-agents/types';
import { validateTask } from 'parley-agents/validators';

// Typed by the generated client: sendTask takes a Task and resolves to a Task.
export async function submit(client: AgentOperationsClient, task: Task): Promise<Task> {
  return client.sendTask(task);
}

const good: Task = {
  id: 'task-1',
  state: 'working',
  messages: [{ role: 'user', parts: [{ type: 'text', content: 'Hello' }] }],
};

// @ts-expect-error 'paused' is not a task state: the Task type must be precise, not any.
export const rejected: Task = { id: 'task-2', state: 'paused' };

const valid = validateTask(good);
const invalid = validateTask({ id: 'task-2', state: 'paused' });

const require = createRequire(import.meta.url);
const nativeSchema = JSON.parse(readFileSync(require.resolve('parley-agents/schemas/native/task.schema.json'), 'utf8'));
const a2aSchema = JSON.parse(readFileSync(require.resolve('parley-agents/schemas/a2a/Task.schema.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(require.resolve('parley/package.json'), 'utf8'));

console.log(JSON.stringify({
  goodValid: valid.valid,
  badValid: invalid.valid,
  badPointers: invalid.valid ? [] : invalid.errors.map((issue) => issue.pointer),
  nativeSchemaId: nativeSchema.$id,
  a2aSchemaId: a2aSchema.$id,
  name: manifest.name,
}));
`;

test('the packed tarball installs into a fresh TypeScript project and works there', { timeout: 300_000 }, (t) => {
  const work = mkdtempSync(join(tmpdir(), 'parley-pack-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));

  // 1. Build. tsc still emits when some other module has a type error; `npm run typecheck`
  //    is the gate for those, so here a failed build is reported but only the files the
  //    package exposes must exist.
  const build = run(NPM, ['run', 'build'], ROOT);
  if (build.status !== 0) t.diagnostic(`npm run build reported errors:\n${build.stdout.slice(-2000)}`);
  for (const file of [
    'dist/src/cli/main.js',
    'dist/generated/validators/index.js',
    'dist/generated/validators/index.d.ts',
    'dist/generated/types/index.d.ts',
    'dist/generated/clients/index.d.ts',
  ]) {
    assert.ok(existsSync(join(ROOT, file)), `${file} missing after the build:\n${output(build)}`);
  }

  // 2. Pack, and check the tarball holds what the exports map and the bin point at.
  const pack = run(NPM, ['pack', '--json', '--pack-destination', work], ROOT);
  assert.equal(pack.status, 0, output(pack));
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const files = new Set(packed!.files.map((file) => file.path));
  for (const file of [
    'dist/src/cli/main.js',
    'dist/generated/validators/index.js',
    'dist/generated/clients/index.js',
    'dist/generated/operations/index.js',
    'dist/generated/handlers/index.js',
    'dist/generated/types/index.js',
    'schemas/native/task.schema.json',
    'generated/schemas/a2a/Task.schema.json',
    'package.json',
  ]) {
    assert.ok(files.has(file), `the tarball lacks ${file}`);
  }
  assert.ok(![...files].some((file) => file.startsWith('src/') || file.startsWith('test/')), 'sources or tests were packed');
  const tarball = join(work, packed!.filename);

  // 3. A consumer project: ESM, strict TypeScript with NodeNext resolution.
  const consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_SOURCE);

  // 4. Install the tarball: from the npm cache alone if it can, from the registry if not.
  const installArgs = ['install', '--no-audit', '--no-fund', '--omit=optional', '--ignore-scripts', tarball];
  let install = run(NPM, [...installArgs, '--offline'], consumer);
  if (install.status !== 0) {
    t.diagnostic('offline install failed; retrying with --prefer-offline');
    install = run(NPM, [...installArgs, '--prefer-offline'], consumer);
  }
  assert.equal(install.status, 0, output(install));

  // 5. Type-check and compile the consumer against the installed declarations, then run it.
  const compile = run(TSC, ['-p', 'tsconfig.json'], consumer);
  assert.equal(compile.status, 0, output(compile));
  const program = run(process.execPath, ['out/consumer.js'], consumer);
  assert.equal(program.status, 0, output(program));
  const report = JSON.parse(program.stdout) as Record<string, unknown>;
  assert.equal(report.goodValid, true);
  assert.equal(report.badValid, false);
  assert.deepEqual(report.badPointers, ['/state']);
  assert.equal(report.nativeSchemaId, 'https://parley.dev/schemas/native/task.schema.json');
  assert.equal(report.a2aSchemaId, 'https://parley.dev/schemas/a2a/Task.schema.json');
  assert.equal(report.name, 'parley-agents');

  // 6. The installed bin.
  const bin = join(consumer, 'node_modules', '.bin', 'parley');
  const schemas = run(bin, ['schemas'], consumer);
  assert.equal(schemas.status, 0, output(schemas));
  const names = schemas.stdout.trim().split('\n');
  assert.ok(names.includes('task'), schemas.stdout);
  assert.ok(names.includes('a2a:Task'), schemas.stdout);

  const version = run(bin, ['--version'], consumer);
  assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);

  writeFileSync(join(consumer, 'task.json'), JSON.stringify({ id: 'task-1', state: 'paused' }));
  const validation = run(bin, ['validate', '--schema', 'task', 'task.json'], consumer);
  assert.equal(validation.status, 1, output(validation));
  assert.match(validation.stdout, /^task\.json\/state: must be one of /m);
});
