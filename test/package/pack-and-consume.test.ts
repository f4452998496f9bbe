// The package as another repository gets it: build, `npm pack`, install the tarball alone into
// a fresh ESM TypeScript project (the core install: no peer, nothing native), type-check and run
// a program there that touches every public entry and every feature whose peer is absent, run
// the installed `parley` bin (and `npx -p <package> parley` from a folder that has not
// installed it), and serve an agent from the core install with the default logging (no pino:
// the plain line fallback); then add the peers the guide's examples use, compile every example
// of docs/consumers.md and run each against real agents started with the installed bin (the
// protected ones over TLS with the guide's own openssl certificates). Slow by
// nature (a build and two installs), so it is one test; installs prefer the npm cache and fall
// back on the registry.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONSUMER = fileURLToPath(new URL('./consumer/', import.meta.url));
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

/** The packages the guide's examples import besides parley-agents, at the versions our own tests use. */
const EXAMPLE_PACKAGES = ['@grpc/grpc-js', '@connectrpc/connect', '@connectrpc/connect-node', '@a2a-js/sdk'].map(
  (name) => `${name}@${MANIFEST.devDependencies[name]}`,
);

function run(command: string, args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function output(result: { status?: number | null; error?: Error; stdout: string; stderr: string }): string {
  return `exit ${result.status}${result.error ? ` (${result.error.message})` : ''}\n${result.stdout}\n${result.stderr}`;
}

function npmInstall(t: TestContext, cwd: string, specs: readonly string[]): void {
  const install = run(NPM, ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], cwd);
  assert.equal(install.status, 0, output(install));
  t.diagnostic(`installed ${specs.join(' ')}`);
}

function writeProject(dir: string, include: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        // Off, so a declaration of ours that needs a peer's types fails the compile.
        skipLibCheck: false,
        outDir: 'out',
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      include,
    }),
  );
}

/** The packages under node_modules, scoped ones as `@scope/name`. */
function installedPackages(dir: string): string[] {
  const modules = join(dir, 'node_modules');
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]));
}

interface ServedAgent {
  readonly url: string;
  /** Every stdout line so far, the `ready` line included. */
  readonly lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line (past or coming) that `test` accepts. */
  lineMatching(test: (line: string) => boolean): Promise<string>;
}

/** Starts the installed bin's `serve agent` with `args`, resolving once it printed its ready line. */
function startAgent(t: TestContext, cwd: string, args: readonly string[]): Promise<ServedAgent> {
  const child = spawn(join(cwd, 'node_modules', '.bin', 'parley'), ['serve', 'agent', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => {
    child.kill('SIGTERM');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const waiting = new Set<{ test: (line: string) => boolean; resolve: (line: string) => void }>();
  const lineMatching = (test: (line: string) => boolean) =>
    new Promise<string>((resolve) => {
      const seen = lines.find(test);
      if (seen !== undefined) resolve(seen);
      else waiting.add({ test, resolve });
    });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const waiter of waiting) {
        if (!waiter.test(line)) continue;
        waiting.delete(waiter);
        waiter.resolve(line);
      }
      if (line.startsWith('ready '))
        resolve({ url: line.slice('ready '.length).trim(), lines, stderr: () => stderr, lineMatching });
    });
    child.on('exit', (code) => reject(new Error(`parley serve agent ${args.join(' ')} exited ${code}: ${stderr}`)));
  });
}

/** An agent that logs nothing, for the examples: its URL. */
async function serveAgent(t: TestContext, cwd: string, args: readonly string[]): Promise<string> {
  return (await startAgent(t, cwd, ['--log-level', 'silent', ...args])).url;
}

interface ExampleRun {
  readonly status: number;
  readonly lines: string[];
  readonly text: string;
}

/** Runs a compiled example; never rejects, so each caller asserts on its status and lines. */
function runExample(cwd: string, file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ExampleRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join('out', file), ...args],
      { cwd, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ status, lines: stdout.trim().split('\n'), text: `${file}: exit ${status}\n${stdout}\n${stderr}` });
      },
    );
  });
}

test('the packed tarball installs light, and every example of docs/consumers.md compiles and runs from it', {
  timeout: 600_000,
}, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'parley-pack-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));

  // 1. Build, unless `npm test` runs this (its first step is the build). tsc still emits when
  //    some other module has a type error; `npm run typecheck` is the gate for those, so here
  //    a failed build is reported but only the files the package exposes must exist.
  if (process.env.npm_lifecycle_event !== 'test') {
    const build = run(NPM, ['run', 'build'], ROOT);
    if (build.status !== 0) t.diagnostic(`npm run build reported errors:\n${build.stdout.slice(-2000)}`);
  }
  assert.ok(existsSync(join(ROOT, 'dist/src/cli/main.js')), 'no build in dist/');

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
    'dist/generated/proto/svc/transport/v1/transport_pb.js',
    'dist/generated/proto/svc/transport/v1/transport_pb.d.ts',
    'schemas/native/task.schema.json',
    'generated/schemas/native/transport-config.schema.json',
    'generated/schemas/a2a/Task.schema.json',
    'proto/svc/transport/v1/transport.proto',
    'docs/consumers.md',
    'package.json',
  ]) {
    assert.ok(files.has(file), `the tarball lacks ${file}`);
  }
  assert.deepEqual(
    [...files].filter((file) => file.startsWith('src/') || file.startsWith('test/')),
    [],
    'sources or tests were packed',
  );
  // Source maps would point at src/, which is not shipped: none are packed.
  assert.deepEqual(
    [...files].filter((file) => file.endsWith('.map')),
    [],
  );
  const tarball = join(work, packed!.filename);

  // 3. The core install: the tarball alone, into a fresh ESM project with strict TypeScript.
  const project = join(work, 'consumer');
  writeProject(project, ['core-check.ts', 'examples']);
  cpSync(join(CONSUMER, 'core', 'core-check.ts'), join(project, 'core-check.ts'));
  npmInstall(t, project, [tarball]);
  const core = installedPackages(project);
  t.diagnostic(`core install: ${core.join(' ')}`);
  assert.ok(core.includes(MANIFEST.name));
  assert.deepEqual(
    core.filter((name) => name in MANIFEST.peerDependencies),
    [],
    'an optional peer came with the core install',
  );
  for (const name of core) {
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    const scripts = Object.keys(manifest.scripts ?? {}).filter((script) => /^(pre|post)?install$/.test(script));
    assert.deepEqual(scripts, [], `${name} runs an install script`);
    assert.ok(!existsSync(join(project, 'node_modules', name, 'binding.gyp')), `${name} builds native code`);
  }

  // 4. Every public entry type-checks without any peer, and each feature without its peer names it.
  const compileCore = run(TSC, ['-p', 'tsconfig.json'], project);
  assert.equal(compileCore.status, 0, output(compileCore));
  const checked = run(process.execPath, ['out/core-check.js'], project);
  assert.equal(checked.status, 0, output(checked));
  const report = JSON.parse(checked.stdout) as {
    goodValid: boolean;
    badPointers: string[];
    schemaCount: number;
    unresolved: string[];
    configSchemaId: string;
    name: string;
    services: string[];
    invokeRequest: string;
    protoFile: boolean;
    operations: string[];
    features: Record<string, string>;
  };
  assert.equal(report.goodValid, true);
  assert.deepEqual(report.badPointers, ['/state']);
  assert.ok(report.schemaCount > 40, String(report.schemaCount));
  assert.deepEqual(report.unresolved, []);
  assert.equal(report.configSchemaId, 'https://parley.dev/schemas/native/transport-config.schema.json');
  assert.equal(report.name, 'parley-agents');
  assert.deepEqual(report.services, ['svc.transport.v1.SvcTransport', 'lf.a2a.v1.A2AService']);
  assert.equal(report.invokeRequest, 'svc.transport.v1.InvokeRequest');
  assert.equal(report.protoFile, true);
  assert.deepEqual(report.operations, ['/tasks/', '/agents/']);
  const nodeHasSqlite = run(process.execPath, ['-e', "import('node:sqlite').then(() => {}, () => process.exit(1))"], project);
  const expected: Record<string, string> = {
    http: 'ok',
    grpc: '@grpc/grpc-js',
    websocket: 'ws',
    logging: 'pino',
    metrics: 'prom-client',
    tracing: '@opentelemetry/api',
    redis: 'ioredis',
    // Node's own SQLite where it has one; the package only where it has not.
    sqlite: nodeHasSqlite.status === 0 ? 'ok' : 'better-sqlite3',
    jwt: 'jose',
    openai: 'openai',
    anthropic: '@anthropic-ai/sdk',
  };
  for (const [feature, packageName] of Object.entries(expected)) {
    const got = report.features[feature] ?? '(not run)';
    if (packageName === 'ok') assert.equal(got, 'ok', feature);
    else assert.ok(got.startsWith(`missing ${packageName}:`) && got.endsWith(`npm install ${packageName}`), `${feature}: ${got}`);
  }

  // 5. The installed bin, and the npx form for a repo that has not installed the package.
  const bin = join(project, 'node_modules', '.bin', 'parley');
  const schemas = run(bin, ['schemas'], project);
  assert.equal(schemas.status, 0, output(schemas));
  assert.ok(schemas.stdout.trim().split('\n').includes('transport-config'), schemas.stdout);
  assert.equal(run(bin, ['--version'], project).stdout.trim(), MANIFEST.version);
  const bare = join(work, 'not-installed');
  mkdirSync(join(bare, 'fixtures'), { recursive: true });
  writeFileSync(join(bare, 'fixtures', 'bad.task.json'), JSON.stringify({ id: 'task-1', state: 'paused' }));
  // docs/consumers.md's `npx -p parley-agents parley validate ...`, with the tarball for the name.
  const npx = run(
    NPX,
    ['--yes', '--prefer-offline', '-p', tarball, 'parley', 'validate', '--schema', 'task', 'fixtures/bad.task.json'],
    bare,
  );
  assert.equal(npx.status, 1, output(npx));
  assert.match(npx.stdout, /^fixtures\/bad\.task\.json\/state: must be one of /m);

  // 5b. The core install serves from the command line with its default logging: without pino
  //     it writes the same JSON lines itself, after one note on stderr naming the package.
  const coreAgent = await startAgent(t, project, ['--url', 'http://127.0.0.1:0']);
  assert.match(coreAgent.stderr(), /^parley: pino not installed: .*; npm install pino for the faster logger\n$/);
  const coreSend = run(bin, ['send', coreAgent.url, 'hello from the core install', '--json'], project);
  assert.equal(coreSend.status, 0, output(coreSend));
  assert.equal((JSON.parse(coreSend.stdout) as { state: string }).state, 'completed');
  const requestLine = JSON.parse(await coreAgent.lineMatching((line) => line.includes('"operation":"sendTask"'))) as Record<
    string,
    unknown
  >;
  assert.deepEqual(
    { level: requestLine.level, operation: requestLine.operation, status: requestLine.status, msg: requestLine.msg },
    { level: 30, operation: 'sendTask', status: 200, msg: 'request' },
  );
  assert.equal(JSON.parse(coreAgent.lines[0]!).msg, 'listening', coreAgent.lines.join('\n'));

  // 6. The guide's examples: their peers added, compiled together, each run.
  npmInstall(t, project, EXAMPLE_PACKAGES);
  cpSync(join(CONSUMER, 'examples'), join(project, 'examples'), { recursive: true });
  const compile = run(TSC, ['-p', 'tsconfig.json'], project);
  assert.equal(compile.status, 0, output(compile));

  const fixtures = join(project, 'fixtures');
  mkdirSync(fixtures);
  writeFileSync(join(fixtures, 'a.task.json'), JSON.stringify({ id: 'task-1', state: 'working' }));
  writeFileSync(join(fixtures, 'b.task.json'), JSON.stringify({ id: 'task-2', state: 'paused' }));
  writeFileSync(join(fixtures, 'hello.message.json'), JSON.stringify({ role: 'user', parts: [{ type: 'text', content: 'hi' }] }));

  // The protected agents of "Calling a protected agent over TLS": the guide's certificates, and
  // the two `serve agent` commands it shows, on free ports.
  const certificates = run('bash', ['examples/make-certificates.sh'], project);
  assert.equal(certificates.status, 0, output(certificates));
  const tlsFiles = ['--tls-cert', 'server.pem', '--tls-key', 'server.key'];
  const [httpUrl, sseUrl, grpcUrl, keyUrl, mutualUrl] = await Promise.all([
    serveAgent(t, project, ['--url', 'http://127.0.0.1:0', '--a2a']),
    serveAgent(t, project, ['--transport', 'sse', '--url', 'http://127.0.0.1:0']),
    serveAgent(t, project, ['--transport', 'grpc', '--url', 'grpc://127.0.0.1:0']),
    serveAgent(t, project, ['--url', 'https://127.0.0.1:0', ...tlsFiles, '--api-key-file', 'api-key.txt']),
    serveAgent(t, project, ['--url', 'https://127.0.0.1:0', ...tlsFiles, '--tls-ca', 'ca.pem', '--require-client-cert']),
  ]);
  const env = { AGENT_URL: httpUrl, GRPC_AGENT_URL: grpcUrl };
  const examples = (name: string, args: readonly string[] = [], more: NodeJS.ProcessEnv = {}) =>
    runExample(project, `examples/${name}.js`, args, { ...env, ...more });

  const typed = await examples('typed-client', [], { AGENT_URL: sseUrl });
  assert.equal(typed.status, 0, typed.text);
  assert.deepEqual(typed.lines.slice(0, 2), ['health: ready', 'task: completed, answer: hello from another repo'], typed.text);
  assert.equal(typed.lines.at(-1), 'event: task_completed', typed.text);

  const types = await examples('types');
  assert.deepEqual(types.lines, ['t-1: submitted, finished: false'], types.text);

  const validators = await examples('validators');
  assert.equal(validators.status, 0, validators.text);
  assert.match(validators.lines[0]!, /^invalid: \/state must be one of /, validators.text);
  assert.equal(validators.lines.at(-1), 'a2a message valid: true', validators.text);

  const operations = await examples('operations');
  assert.equal(operations.status, 0, operations.text);
  assert.match(operations.lines[0]!, /^public: .*GET \/healthz/, operations.text);
  assert.equal(operations.lines[1], 'card: echo', operations.text);

  const handlers = await examples('handlers');
  assert.deepEqual(handlers.lines, ['stand-in: completed, text'], handlers.text);

  const ciScript = await examples('ci-check-fixtures', ['fixtures']);
  assert.equal(ciScript.status, 1, ciScript.text);
  assert.equal(ciScript.lines[0], 'ok a.task.json', ciScript.text);
  assert.match(ciScript.lines[1]!, /^FAIL b\.task\.json\/state: must be one of /, ciScript.text);
  assert.equal(ciScript.lines.at(-1), 'ok hello.message.json', ciScript.text);

  const ownAjv = await examples('own-ajv');
  assert.deepEqual(ownAjv.lines, ['own ajv: valid', 'own ajv: /id /state'], ownAjv.text);

  const ciShell = run('bash', ['examples/validate-in-ci.sh'], project);
  assert.equal(ciShell.status, 1, output(ciShell));
  assert.match(ciShell.stdout, /^fixtures\/b\.task\.json\/state: must be one of /m);

  const a2a = await examples('a2a-sdk-client');
  assert.deepEqual(a2a.lines, ['a2a task TASK_STATE_COMPLETED: hello over A2A'], a2a.text);

  const connect = await examples('connect-client');
  assert.equal(connect.lines[0], 'connect: completed', connect.text);
  assert.match(connect.lines[1] ?? '', /^connect stream: task_status (\w+ )*task_completed$/, connect.text);

  const tlsEnv = { AGENT_URL: keyUrl, MTLS_AGENT_URL: mutualUrl };
  const protectedAgent = await examples('protected-agent', [], tlsEnv);
  assert.equal(protectedAgent.status, 0, protectedAgent.text);
  assert.deepEqual(
    protectedAgent.lines,
    [
      'api key: completed, hello with a key',
      'bearer: completed, hello with a token',
      'mutual tls: completed, hello with a certificate',
      'no key: refused with 401',
    ],
    protectedAgent.text,
  );

  const protectedCli = run('bash', ['examples/call-protected-agent.sh'], project, tlsEnv);
  assert.equal(protectedCli.status, 0, output(protectedCli));
  const answers = protectedCli.stdout.split('\n').filter((line) => line.startsWith('  '));
  assert.deepEqual(answers, ['  hello from the CLI', '  hello over mutual TLS'], output(protectedCli));

  const grpcJs = await examples('grpc-js-client');
  assert.equal(grpcJs.lines[0], 'grpc-js: completed', grpcJs.text);
  assert.match(grpcJs.lines[1] ?? '', /^grpc-js stream: task_status (\w+ )*task_completed$/, grpcJs.text);
});
