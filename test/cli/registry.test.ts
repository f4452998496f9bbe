// The registry commands as a newcomer runs them, in child processes: `parley serve registry`,
// then `parley serve agent --registry URL`, then `parley discover URL` shows the agent (as a
// table, and as JSON); `parley register` with a card file (a bad card is refused naming the
// field) and `parley unregister`; the registry's entries survive its restart; usage errors
// exit 2 with one line.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lines, runCli, scratchDir } from './run-cli.js';
import { startRegistryProcess } from '../registry/registry-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/** `parley serve agent ...args`, resolved with its output once it printed `ready`. */
async function serveAgent(t: { after(fn: () => unknown): void }, args: readonly string[]) {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve', 'agent', '--url', 'http://127.0.0.1:0', ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  t.after(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /^ready (\S+)$/m.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`agent exited early:\n${out}`)));
  });
  return {
    url,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// The timeouts only guard against a hang: each step starts a child from source, which takes
// seconds on a loaded machine.
describe('parley registry commands', () => {
  test('serve registry, serve agent --registry, discover: the agent is listed; it leaves at exit', {
    timeout: 300_000,
  }, async (t) => {
    const { dir, cleanup } = scratchDir();
    t.after(cleanup);
    const registry = await startRegistryProcess(['--db', join(dir, 'registry.db')]);
    t.after(() => registry.stop('SIGKILL'));
    assert.match(registry.output(), /^status page: http:\/\/127\.0\.0\.1:\d+\/status$/m);
    // The registry logs at info by default: its listening line is JSON on stdout.
    const listening = registry
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; url?: string });
    assert.deepEqual(
      listening.map((line) => [line.msg, line.url]),
      [['listening', registry.url]],
    );
    const agent = await serveAgent(t, ['--registry', registry.url, '--name', 'newcomer']);
    assert.match(agent.output(), new RegExp(`^registered with ${registry.url}$`, 'm'));

    const table = await runCli(['discover', registry.url], { cwd: dir });
    assert.equal(table.code, 0, table.stderr);
    const rows = lines(table.stdout);
    assert.match(rows[0]!, /^NAME\s+ROLE\s+TAGS\s+URL$/);
    assert.match(rows[1]!, new RegExp(`^newcomer\\s+echo\\s+echo,example\\s+${agent.url}$`));
    assert.equal(rows[2], '1 agent');

    const json = await runCli(['discover', registry.url, '--tag', 'echo', '--tag', 'example', '--name', 'newcomer', '--json'], {
      cwd: dir,
    });
    assert.equal(json.code, 0, json.stderr);
    const cards = JSON.parse(json.stdout) as Array<{ url: string; name: string }>;
    assert.deepEqual(
      cards.map((c) => [c.name, c.url]),
      [['newcomer', agent.url]],
    );
    const comma = await runCli(['discover', registry.url, '--tag', 'echo,example', '--json'], { cwd: dir });
    assert.deepEqual(JSON.parse(comma.stdout), cards);
    const none = await runCli(['discover', registry.url, '--role', 'nobody'], { cwd: dir });
    assert.equal(none.code, 0);
    assert.equal(none.stdout, 'no live agent matches\n');

    await agent.stop();
    const after = await runCli(['discover', registry.url, '--json'], { cwd: dir });
    assert.deepEqual(JSON.parse(after.stdout), [], 'the agent unregistered at exit');
  });

  test('register a card file, refuse a bad one naming the field, unregister; entries survive a restart', {
    timeout: 300_000,
  }, async (t) => {
    const good = { name: 'filed', url: 'http://127.0.0.1:9/filed', role: 'worker', tags: ['from-file'] };
    const { dir, cleanup } = scratchDir({
      'card.json': JSON.stringify(good),
      'bad.json': JSON.stringify({ ...good, tags: ['ok', 3] }),
    });
    t.after(cleanup);
    const db = join(dir, 'registry.db');
    let registry = await startRegistryProcess(['--db', db]);
    t.after(() => registry.stop('SIGKILL'));

    const registered = await runCli(['register', registry.url, '--card', 'card.json'], { cwd: dir });
    assert.equal(registered.code, 0, registered.stderr);
    assert.equal(registered.stdout, `agent registered successfully: filed at ${good.url}\n`);
    const bad = await runCli(['register', registry.url, '--card', 'bad.json'], { cwd: dir });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^parley: the registry at .* did not register .*: .*\/tags\/1/m);
    const piped = await runCli(['register', registry.url, '--card', '-'], {
      cwd: dir,
      stdin: JSON.stringify({ ...good, url: 'http://piped', name: 'piped' }),
    });
    assert.equal(piped.code, 0, piped.stderr);

    assert.equal(await registry.stop('SIGTERM'), 0);
    registry = await startRegistryProcess(['--db', db]);
    assert.match(registry.output(), /\(2 agents\)/);
    const listed = await runCli(['discover', registry.url, '--tag', 'from-file', '--json'], { cwd: dir });
    assert.deepEqual((JSON.parse(listed.stdout) as Array<{ url: string }>).map((c) => c.url).sort(), [
      'http://127.0.0.1:9/filed',
      'http://piped',
    ]);

    const removed = await runCli(['unregister', registry.url, good.url], { cwd: dir });
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(removed.stdout, `agent unregistered successfully: ${good.url}\n`);
    const again = await runCli(['unregister', registry.url, good.url], { cwd: dir });
    assert.equal(again.code, 0, 'unregister is idempotent');
    const left = await runCli(['discover', registry.url, '--json'], { cwd: dir });
    assert.deepEqual(
      (JSON.parse(left.stdout) as Array<{ url: string }>).map((c) => c.url),
      ['http://piped'],
    );
  });

  test('a protected registry: keyed writes (from a file), public discovery; the agent sends its --registry-api-key', {
    timeout: 60_000,
  }, async (t) => {
    const { dir, cleanup } = scratchDir({ 'registry-keys': '# writers\nagents-key-1\n', 'agent-key': 'agents-key-1\n' });
    t.after(cleanup);
    const registry = await startRegistryProcess([
      '--db',
      join(dir, 'registry.db'),
      '--api-key-file',
      join(dir, 'registry-keys'),
      '--public-discovery',
    ]);
    t.after(() => registry.stop('SIGKILL'));

    const keyless = await serveAgent(t, ['--registry', registry.url, '--name', 'keyless']);
    assert.match(keyless.output(), /could not register with .*credentials are required/);
    const keyed = await serveAgent(t, [
      '--registry',
      registry.url,
      '--name',
      'keyed',
      '--registry-api-key-file',
      join(dir, 'agent-key'),
    ]);
    assert.match(keyed.output(), new RegExp(`^registered with ${registry.url}$`, 'm'));

    // Anyone may read; nobody without the key may write.
    const listed = await runCli(['discover', registry.url, '--json'], { cwd: dir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as Array<{ name: string }>).map((c) => c.name),
      ['keyed'],
    );
    const removed = await runCli(['unregister', registry.url, keyed.url], { cwd: dir });
    assert.equal(removed.code, 1, removed.stdout);
    assert.match(removed.stderr, /credentials are required/);
    // The registry commands send PARLEY_REGISTRY_API_KEY.
    const withKey = { ...process.env, PARLEY_REGISTRY_API_KEY: 'agents-key-1' };
    const filed = await runCli(['register', registry.url, '--card', '-'], {
      cwd: dir,
      env: withKey,
      stdin: JSON.stringify({ name: 'filed', url: 'http://127.0.0.1:9/filed' }),
    });
    assert.equal(filed.code, 0, filed.stderr);
    const unfiled = await runCli(['unregister', registry.url, 'http://127.0.0.1:9/filed'], { cwd: dir, env: withKey });
    assert.equal(unfiled.code, 0, unfiled.stderr);
    await keyed.stop();
    const after = await runCli(['discover', registry.url, '--json'], { cwd: dir });
    assert.deepEqual(JSON.parse(after.stdout), [], 'the keyed agent unregistered itself at exit');
  });

  test('serve registry --config: auth and public_discovery from the file; registry.api_key for the agent', {
    timeout: 60_000,
  }, async (t) => {
    const { dir, cleanup } = scratchDir({
      'registry.json': JSON.stringify({ auth: { api_key: { keys: ['file-key-123'] } }, public_discovery: true }),
    });
    t.after(cleanup);
    const registry = await startRegistryProcess(['--db', join(dir, 'registry.db'), '--config', join(dir, 'registry.json')]);
    t.after(() => registry.stop('SIGKILL'));
    const refused = await runCli(['unregister', registry.url, 'http://127.0.0.1:9/x'], { cwd: dir });
    assert.equal(refused.code, 1, 'writes need the key');
    const agentConfig = join(dir, 'agent.json');
    writeFileSync(agentConfig, JSON.stringify({ name: 'configured', registry: { url: registry.url, api_key: 'file-key-123' } }));
    const agent = await serveAgent(t, ['--config', agentConfig]);
    assert.match(agent.output(), new RegExp(`^registered with ${registry.url}$`, 'm'));
    const listed = await runCli(['discover', registry.url, '--json'], { cwd: dir });
    assert.equal(listed.code, 0, `reads are public: ${listed.stderr}`);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as Array<{ name: string }>).map((c) => c.name),
      ['configured'],
    );
  });

  test('discover lists by name in both forms; register and unregister --json fail with the {"error": ...} document', {
    timeout: 120_000,
  }, async (t) => {
    const { dir, cleanup } = scratchDir();
    t.after(cleanup);
    const registry = await startRegistryProcess(['--db', ':memory:']);
    t.after(() => registry.stop('SIGKILL'));
    // Registered in the reverse of their names' order (and of their URLs').
    for (const [name, url] of [
      ['zulu', 'http://127.0.0.1:9/a'],
      ['alpha', 'http://127.0.0.1:9/b'],
      ['mike', 'http://127.0.0.1:9/c'],
    ]) {
      const filed = await runCli(['register', registry.url, '--card', '-'], { cwd: dir, stdin: JSON.stringify({ name, url }) });
      assert.equal(filed.code, 0, filed.stderr);
    }
    const json = await runCli(['discover', registry.url, '--json'], { cwd: dir });
    assert.deepEqual(
      (JSON.parse(json.stdout) as Array<{ name: string }>).map((card) => card.name),
      ['alpha', 'mike', 'zulu'],
    );
    const table = lines((await runCli(['discover', registry.url], { cwd: dir })).stdout);
    assert.deepEqual(
      table.slice(1, 4).map((row) => row.split(/\s+/)[0]),
      ['alpha', 'mike', 'zulu'],
    );

    const refused = await runCli(['register', registry.url, '--card', '-', '--json'], {
      cwd: dir,
      stdin: JSON.stringify({ name: 'bad', url: 'http://127.0.0.1:9/bad', tags: ['ok', 3] }),
    });
    assert.equal(refused.code, 1);
    const refusal = JSON.parse(refused.stdout) as { error: Record<string, unknown> };
    assert.deepEqual(Object.keys(refusal), ['error']);
    assert.equal(refusal.error.command, 'register');
    assert.equal(refusal.error.url, registry.url);
    assert.equal(refusal.error.agent_url, 'http://127.0.0.1:9/bad');
    assert.equal(refusal.error.status_code, 400);
    assert.equal(typeof refusal.error.code, 'string');
    assert.match(String(refusal.error.message), /\/tags\/1/);

    for (const args of [
      ['register', 'http://127.0.0.1:9', '--card', '-', '--json'],
      ['unregister', 'http://127.0.0.1:9', 'http://127.0.0.1:9/a', '--json'],
    ]) {
      const down = await runCli(args, { cwd: dir, stdin: JSON.stringify({ name: 'x', url: 'http://127.0.0.1:9/a' }) });
      assert.equal(down.code, 1, args.join(' '));
      const failure = JSON.parse(down.stdout) as { error: Record<string, unknown> };
      assert.deepEqual(Object.keys(failure), ['error'], args.join(' '));
      assert.equal(failure.error.command, args[0]);
      assert.equal(failure.error.url, 'http://127.0.0.1:9');
      assert.equal(failure.error.agent_url, 'http://127.0.0.1:9/a');
      assert.equal(typeof failure.error.message, 'string');
    }
  });

  test('an unreachable registry exits 1 with one line; usage errors exit 2', async (t) => {
    const { dir, cleanup } = scratchDir();
    t.after(cleanup);
    const down = await runCli(['discover', 'http://127.0.0.1:9'], { cwd: dir });
    assert.equal(down.code, 1);
    assert.equal(lines(down.stderr).length, 1);
    assert.match(down.stderr, /^parley: discover at http:\/\/127\.0\.0\.1:9 failed: /);
    for (const [args, pattern] of [
      [['discover'], /give the registry's URL/],
      [['discover', 'ftp://x'], /cannot tell the transport/],
      [['register', 'http://127.0.0.1:9'], /exactly one of --card FILE and --agent/],
      [['unregister', 'http://127.0.0.1:9'], /give the agent's URL/],
      [['serve', 'registry', '--ttl', 'soon'], /--ttl must be a number/],
      [['serve', 'registry', '--transport', 'runtime'], /in-process only/],
      [
        ['serve', 'registry', '--log-level', 'verbose'],
        /--log-level must be one of fatal, error, warn, info, debug, trace, silent/,
      ],
      [['serve', 'janitor'], /expected agent or registry/],
      [['serve', 'registry', '--public-discovery'], /--public-discovery needs an authenticator/],
      [
        ['serve', 'registry', '--api-key', 'k', '--basic', 'u:p'],
        /^parley: serve registry: .* a server takes one kind at a time/,
      ],
      [['serve', 'agent', '--registry-api-key', 'k'], /needs --registry URL or registry\.url/],
    ] as const) {
      const result = await runCli(args, { cwd: dir });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern);
      assert.equal(lines(result.stderr).length, 1);
    }
    const help = await runCli(['serve', 'registry', '--help'], { cwd: dir });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--db FILE/);
  });
});
