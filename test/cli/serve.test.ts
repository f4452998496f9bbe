// `parley serve agent` as a user runs it: a child process started from source, listening on a
// free port, answering a real call from AgentClient, and stopping cleanly (exit 0, `stopped`)
// on SIGTERM and on SIGINT. A usage error exits 2 with one `parley: ...` line, no stack trace;
// --help anywhere prints the usage and exits 0.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { AgentClient } from '../../src/client/agent-client.js';
import { assertNoStackTrace, runCli, untilServing } from './run-cli.js';

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

/** Starts `parley serve agent` (with `extra` flags) and resolves once it printed `ready <url>`. */
async function serve(transport: Served, extra: readonly string[] = []): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', TSX, MAIN, 'serve', 'agent', '--transport', transport, '--url', LISTEN[transport], ...extra],
    {
      cwd: ROOT,
      env: { ...process.env, PARLEY_DEBUG: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  return { child, ...(await untilServing(child)) };
}

/**
 * Sends `signal` and checks the clean shutdown: exit 0, `stopped` printed, nothing on stderr.
 * Resolves with the log lines (stdout's JSON lines, between the plain ones), parsed.
 */
async function stopWith(server: Server, signal: NodeJS.Signals): Promise<Array<Record<string, unknown>>> {
  server.child.kill(signal);
  const code = await server.exited;
  const result = { code, stdout: server.stdout(), stderr: server.stderr() };
  assert.equal(code, 0, `exit code after ${signal}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  const printed = result.stdout.split('\n').filter(Boolean);
  assert.deepEqual(
    printed.filter((line) => !line.startsWith('{')),
    [`ready ${server.url}`, 'stopped'],
  );
  assert.equal(result.stderr, '');
  assertNoStackTrace(result);
  return printed.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
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
describe('parley serve agent', { concurrency: 5, timeout: 120_000 }, () => {
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

describe('parley serve agent: logs', { concurrency: 3, timeout: 120_000 }, () => {
  it('logs JSON lines on stdout at info by default: listening, each request, stopping, stopped', async (t) => {
    const server = await serve('http');
    t.after(() => cleanup(server));
    const client = await echoOnce('http', server.url);
    t.after(() => client.close());
    const logged = await stopWith(server, 'SIGTERM');
    const messages = logged.map((line) => line.msg);
    assert.deepEqual([messages[0], ...messages.slice(-2)], ['listening', 'stopping', 'stopped'], JSON.stringify(logged));
    const requests = logged.slice(1, -2);
    assert.ok(
      requests.every((line) => line.msg === 'request' && line.level === 30),
      JSON.stringify(requests),
    );
    assert.equal(logged[0]!.url, server.url);
    const task = requests.find((line) => line.operation === 'sendTask');
    assert.deepEqual([task?.transport, task?.method, task?.path, task?.status], ['http', 'POST', '/tasks/', 200]);
    assert.equal(typeof task?.request_id, 'string');
    assert.equal(typeof task?.duration_ms, 'number');
    assert.ok(
      requests.some((line) => line.operation === 'getCard'),
      JSON.stringify(requests),
    );
    assert.doesNotMatch(server.stdout(), /hello from the test/, 'no body in the logs');
  });

  it('on a pipe the request lines are batched and none is lost: N requests, SIGTERM, exactly N lines', async (t) => {
    const server = await serve('http');
    t.after(() => cleanup(server));
    // A few batches' worth (a line is about 250 bytes, a batch 8 KiB), sent 20 at a time.
    const ids = Array.from({ length: 300 }, (_, n) => `counted-${n}`);
    for (let at = 0; at < ids.length; at += 20) {
      await Promise.all(
        ids.slice(at, at + 20).map(async (id) => {
          const answer = await fetch(`${server.url}/tasks/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-svc-request-id': id },
            body: JSON.stringify({ id, messages: [] }),
          });
          assert.equal(answer.status, 200);
          await answer.arrayBuffer();
        }),
      );
    }
    const logged = await stopWith(server, 'SIGTERM');
    const requests = logged.filter((line) => line.msg === 'request');
    assert.equal(requests.length, ids.length);
    assert.deepEqual(requests.map((line) => line.request_id).sort(), [...ids].sort());
    assert.deepEqual(logged.map((line) => line.msg).slice(-2), ['stopping', 'stopped']);
  });

  it('--log-level silent prints no log line', async (t) => {
    const server = await serve('websocket', ['--log-level', 'silent']);
    t.after(() => cleanup(server));
    const client = await echoOnce('websocket', server.url);
    t.after(() => client.close());
    assert.deepEqual(await stopWith(server, 'SIGTERM'), []);
  });

  it('--log-level warn logs a failed request and not a served one', async (t) => {
    const server = await serve('http', ['--log-level', 'warn']);
    t.after(() => cleanup(server));
    const client = await echoOnce('http', server.url);
    t.after(() => client.close());
    const missing = await fetch(`${server.url}/nowhere`, { headers: { 'x-svc-request-id': 'lost-1' } });
    assert.equal(missing.status, 404);
    const logged = await stopWith(server, 'SIGTERM');
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.deepEqual(
      [logged[0]!.level, logged[0]!.request_id, logged[0]!.status, logged[0]!.error, logged[0]!.operation],
      [40, 'lost-1', 404, 'not_found', null],
    );
  });
});

/** The escape that starts a terminal's colour codes. */
const ESC = '\u001b';

describe('parley serve agent: logs on a terminal', { timeout: 120_000 }, () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it('are readable lines (pino-pretty, in colour), not JSON', { skip: !hasScript && 'script(1) is not installed' }, async () => {
    // script(1) gives the command a real pseudo-terminal; Ctrl-C typed into it stops the agent.
    // `exec` replaces script's shell: a dash left waiting would die of the same Ctrl-C (exit 130).
    const command = `exec ${process.execPath} --import ${TSX} ${MAIN} serve agent --url http://127.0.0.1:0`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, PARLEY_DEBUG: '' } });
    let out = '';
    let asked = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const ready = /^ready (\S+)\r?$/m.exec(out);
      if (ready && !asked) {
        asked = true;
        void fetch(`${ready[1]}/healthz`).then(() => child.stdin.write('\u0003'));
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, out);
    const shown = out
      .replaceAll(ESC, '')
      .replace(/\[[0-9;]*m/g, '')
      .split(/\r?\n/);
    assert.ok(out.includes(`${ESC}[`), 'coloured');
    assert.ok(
      shown.some((line) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request \{.*"operation":"healthz".*"status":200/.test(line)),
      out,
    );
    assert.ok(shown.some((line) => /^\[[\d:.]+\] INFO: listening \{"transport":"http"/.test(line)));
    assert.ok(!shown.some((line) => line.startsWith('{')), 'no JSON line');
  });
});

describe('parley serve: usage', { concurrency: 5, timeout: 120_000 }, () => {
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
    [
      ['--log-level', 'loud'],
      'parley: serve agent: --log-level must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ],
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
