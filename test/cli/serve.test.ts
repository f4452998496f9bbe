// `parley serve agent` as a user runs it: a child process started from source, listening on a
// free port, answering a real call from AgentClient, and stopping cleanly (exit 0, `stopped`)
// on SIGTERM and on SIGINT. A usage error exits 2 with one `parley: ...` line, no stack trace;
// --help anywhere prints the usage and exits 0.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { AgentClient } from '../../src/client/agent-client.js';
import { assertNoStackTrace, runCli } from './run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

type Served = 'http' | 'sse' | 'websocket' | 'grpc';

const LISTEN: Readonly<Record<Served, string>> = {
  http: 'http://127.0.0.1:0',
  sse: 'http://127.0.0.1:0',
  websocket: 'ws://127.0.0.1:0',
  grpc: 'grpc://127.0.0.1:0',
};

interface Server {
  readonly child: ChildProcessWithoutNullStreams;
  /** The address from the `ready <url>` line. */
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
}

/** Starts `parley serve agent` and resolves once it printed `ready <url>`. */
async function serve(transport: Served): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', TSX, MAIN, 'serve', 'agent', '--transport', transport, '--url', LISTEN[transport]],
    {
      cwd: ROOT,
      env: { ...process.env, PARLEY_DEBUG: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /^ready (\S+)$/m.exec(out);
      if (match) {
        child.stdout.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`parley exited (${code}) before it was ready\nstdout: ${out}\nstderr: ${err}`)));
  });
  return { child, url, stdout: () => out, stderr: () => err, exited };
}

/** Sends `signal` and checks the clean shutdown: exit 0, `stopped` printed, nothing on stderr. */
async function stopWith(server: Server, signal: NodeJS.Signals): Promise<void> {
  server.child.kill(signal);
  const code = await server.exited;
  const result = { code, stdout: server.stdout(), stderr: server.stderr() };
  assert.equal(code, 0, `exit code after ${signal}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  assert.deepEqual(result.stdout.split('\n').filter(Boolean), [`ready ${server.url}`, 'stopped']);
  assert.equal(result.stderr, '');
  assertNoStackTrace(result);
}

/**
 * One real call over the wire: the echo agent sends the text back as its `result` artifact.
 * The client is returned still connected, so the signal arrives with a connection open and
 * the server must close it to exit (spec: Transport lifecycle, stop "closes loop-owned connections").
 */
async function echoOnce(transport: Served, url: string): Promise<AgentClient> {
  const client = new AgentClient(url, { transport });
  const task = await client.sendTask('hello from the test');
  assert.equal(task.state, 'completed');
  const artifact = task.artifacts?.[0];
  assert.equal(artifact?.kind, 'result');
  assert.deepEqual(
    artifact!.parts.filter((part) => part.type === 'text').map((part) => part.content),
    ['hello from the test'],
  );
  assert.equal((await client.getCard()).name, 'echo');
  return client;
}

/** Kills a child a failed test left behind (the test is over either way). */
function cleanup(server: Server | undefined): void {
  if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
}

// The timeouts only guard against a hang (a server that never says ready, or never exits).
describe('parley serve agent', { concurrency: 5, timeout: 30_000 }, () => {
  for (const transport of Object.keys(LISTEN) as Served[]) {
    it(`serves ${transport} on a free port, answers a call, stops on SIGTERM`, async (t) => {
      const server = await serve(transport);
      t.after(() => cleanup(server));
      assert.match(
        server.url,
        transport === 'grpc'
          ? /^grpc:\/\/127\.0\.0\.1:\d+$/
          : transport === 'websocket'
            ? /^ws:\/\/127\.0\.0\.1:\d+$/
            : /^http:\/\/127\.0\.0\.1:\d+$/,
      );
      assert.doesNotMatch(server.url, /:0$/, 'the ready line names the port actually bound');
      const client = await echoOnce(transport, server.url);
      t.after(() => client.close());
      await stopWith(server, 'SIGTERM');
    });
  }

  it('stops on SIGINT (Ctrl-C) too', async (t) => {
    const server = await serve('websocket');
    t.after(() => cleanup(server));
    const client = await echoOnce('websocket', server.url);
    t.after(() => client.close());
    await stopWith(server, 'SIGINT');
  });

  it('an unknown transport is a usage error: exit 2, one line, no stack trace', async () => {
    const result = await runCli(['serve', 'agent', '--transport', 'nope'], { cwd: ROOT });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^parley: unknown transport "nope"; expected one of .*\bwebsocket\b.*\n$/);
    assert.equal(result.stderr.split('\n').filter(Boolean).length, 1);
  });

  it('refuses the in-process runtime transport up front: exit 2, one line, nothing served', async () => {
    for (const name of ['runtime', 'Runtime']) {
      const result = await runCli(['serve', 'agent', '--transport', name], { cwd: ROOT });
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, '', 'no ready line');
      assert.match(result.stderr, /^parley: the runtime transport is in-process only\b.*\bAgentServer and AgentClient\b.*\n$/);
      assert.equal(result.stderr.split('\n').filter(Boolean).length, 1);
    }
  });
});

describe('parley serve: usage', { concurrency: 5, timeout: 30_000 }, () => {
  const USAGE_LINE =
    'Usage: parley serve agent [--transport http|sse|websocket|grpc] [--url URL] [--name NAME] [--registry URL] [--a2a]';
  const REGISTRY_USAGE_LINE =
    'Usage: parley serve registry [--transport http|sse|websocket|grpc] [--url URL] [--db FILE] [--ttl SECONDS]';

  for (const args of [
    ['serve', '--help'],
    ['serve', 'agent', '--help'],
    ['serve', 'agent', '-h'],
    ['serve', 'agent', '--transport', 'grpc', '--help'],
    ['serve', 'registry', '--help'],
    ['help', 'serve'],
  ]) {
    it(`${args.join(' ')} prints the usage on stdout and exits 0`, async () => {
      const result = await runCli(args, { cwd: ROOT });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stderr, '');
      const expected = args[1] === 'registry' ? REGISTRY_USAGE_LINE : USAGE_LINE;
      assert.equal(result.stdout.split('\n')[0], expected, 'capital "Usage:", runtime not offered as a choice');
    });
  }

  it('without a role prints the usage on stderr and exits 2, like parley without a command', async () => {
    const result = await runCli(['serve'], { cwd: ROOT });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.split('\n')[0], USAGE_LINE);
  });

  // The same parser as every other parley command (cli/args.ts): both flag spellings, and one
  // usage line for each kind of mistake.
  for (const [args, expected] of [
    [['--bogus'], 'parley: serve agent: unknown option --bogus'],
    [['--url'], 'parley: serve agent: --url needs a value'],
    [['--url='], 'parley: serve agent: --url needs a value'],
    [['extra'], 'parley: serve agent: unexpected argument "extra" (see parley serve --help)'],
    [['--transport=nope'], 'parley: unknown transport "nope"; expected one of http, sse, websocket, grpc'],
  ] as const) {
    it(`serve agent ${args.join(' ')} is a usage error: exit 2, one line`, async () => {
      const result = await runCli(['serve', 'agent', ...args], { cwd: ROOT });
      assert.equal(result.code, 2);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr, `${expected}\n`);
    });
  }

  it('an unknown role names the two that exist: exit 2, one line', async () => {
    const result = await runCli(['serve', 'janitor'], { cwd: ROOT });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^parley: unknown role "janitor" for serve; expected agent or registry\b.*\n$/);
    assert.equal(result.stderr.split('\n').filter(Boolean).length, 1);
  });
});
