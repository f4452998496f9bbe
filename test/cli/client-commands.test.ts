// The client commands as a user runs them, through the built `parley` (npm run build first),
// against real agents and registries on 127.0.0.1: card, health, send and stream in text and
// JSON, a stream under a real pseudo-terminal (script(1)) with its spinner and piped without
// one, register/unregister --json, and the exit statuses: 0 done, 1 the server said no or
// could not be reached, 2 the command was wrong.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AgentServer } from '../../src/agent/agent-server.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import { RegistryServer } from '../../src/registry/registry-server.js';
import { BUILT_MAIN, lines, runCli, scratchDir, type CliResult } from './run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Nothing listens on the discard port. */
const DOWN = 'http://127.0.0.1:9';

function parley(args: readonly string[], cwd = ROOT): Promise<CliResult> {
  return runCli(args, { cwd, built: true });
}

/** Thinks aloud in two tokens, then answers with the text, or fails when the text is "fail". */
const thinking: AgentHandler = async function* ({ input }) {
  yield { type: 'task_llm_stream', delta: 'thin', final: false };
  yield { type: 'task_llm_stream', delta: 'king', final: true };
  if (input === 'fail') throw new Error('asked to fail');
  return { text: input };
};

async function agentOn(t: TestContext, transport: string, options: { handler?: AgentHandler; name?: string } = {}) {
  const scheme = transport === 'websocket' ? 'ws' : transport === 'grpc' ? 'grpc' : 'http';
  const agent = new AgentServer({
    name: options.name ?? `cli-${transport}`,
    transport,
    url: `${scheme}://127.0.0.1:0`,
    ...options,
  });
  await agent.start();
  t.after(() => agent.stop());
  return agent;
}

describe('parley card', () => {
  test('prints the card, or it as JSON, over http and websocket', async (t) => {
    for (const transport of ['http', 'websocket']) {
      const agent = await agentOn(t, transport, { name: `carded-${transport}` });
      const text = await parley(['card', agent.url]);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, new RegExp(`^name: +carded-${transport}$`, 'm'));
      assert.match(text.stdout, new RegExp(`^url: +${agent.url.replace(/[/.]/g, '\\$&')}$`, 'm'));
      assert.match(text.stdout, /^auth: +none$/m);
      const json = await parley(['card', agent.url, '--json']);
      assert.equal(json.code, 0, json.stderr);
      assert.equal(JSON.parse(json.stdout).name, `carded-${transport}`);
    }
  });

  test('an unreachable agent exits 1: one line, or with --json an error document on stdout', async () => {
    const text = await parley(['card', DOWN]);
    assert.equal(text.code, 1);
    assert.equal(text.stdout, '');
    assert.deepEqual(lines(text.stderr).length, 1);
    assert.match(text.stderr, /^parley: card at http:\/\/127\.0\.0\.1:9 failed: /);
    const json = await parley(['card', DOWN, '--json']);
    assert.equal(json.code, 1);
    const { error } = JSON.parse(json.stdout);
    assert.equal(error.code, 'connection_failed');
    assert.equal(error.url, DOWN);
  });
});

describe('parley health', () => {
  test('an agent and a registry that are up exit 0, with the status or the health document', async (t) => {
    const agent = await agentOn(t, 'websocket');
    const registry = new RegistryServer({ url: 'http://127.0.0.1:0' });
    await registry.start();
    t.after(() => registry.stop());
    const text = await parley(['health', agent.url]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^ready \\(websocket ${agent.url.replace(/[/.]/g, '\\$&')}\\)$`, 'm'));
    const ready = await parley(['health', registry.url, '--ready', '--json']);
    assert.equal(ready.code, 0, ready.stderr);
    const health = JSON.parse(ready.stdout);
    assert.equal(health.ready, true);
    assert.equal(health.transport, 'http');
  });

  test('an agent that is down exits 1', async () => {
    const result = await parley(['health', DOWN, '--ready']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^parley: health at /);
  });
});

describe('parley send', () => {
  test('an agent that cannot be reached exits 1 (the server said no), not 2 (the command was wrong)', async () => {
    const result = await parley(['send', DOWN, 'hi', '--protocol', 'parley']);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^parley: send at http:\/\/127\.0\.0\.1:9 failed: /);
  });

  test('a failed task exits 1 and says why', async (t) => {
    const agent = await agentOn(t, 'http', { handler: thinking });
    const result = await parley(['send', agent.url, 'fail']);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^state: failed \(.*asked to fail.*\)$/m);
  });
});

describe('parley stream', () => {
  test('piped: one plain line per event, in order, the model tokens on one line', async (t) => {
    const agent = await agentOn(t, 'sse', { handler: thinking });
    const result = await parley(['stream', agent.url, 'hello']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '', 'no spinner off a terminal');
    assert.match(result.stdout, /^status: working\nthinking\nagent: hello\nartifact result \S+:\n {2}hello\nstate: completed\n$/);
  });

  test('--json: one event per line, ending with task_completed; websocket too', async (t) => {
    for (const transport of ['sse', 'websocket']) {
      const agent = await agentOn(t, transport, { handler: thinking });
      const result = await parley(['stream', agent.url, 'hello', '--json']);
      assert.equal(result.code, 0, result.stderr);
      const events = lines(result.stdout).map((line) => JSON.parse(line));
      assert.deepEqual(
        events.map((event) => event.type),
        ['task_status', 'task_llm_stream', 'task_llm_stream', 'task_message', 'task_artifact', 'task_completed'],
      );
      assert.equal(events.at(-1).state, 'completed');
    }
  });

  test('a failed task exits 1 with its reason', async (t) => {
    const agent = await agentOn(t, 'sse', { handler: thinking });
    const result = await parley(['stream', agent.url, 'fail']);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^state: failed \(.*asked to fail.*\)\n$/m);
  });

  test('a plain http agent, which has no stream, answers the task as the one final event', async (t) => {
    const agent = await agentOn(t, 'http');
    const text = await parley(['stream', agent.url, 'hi']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^hi\nstate: completed\nartifact result \S+:\n {2}hi\n$/);
    const json = await parley(['stream', agent.url, 'hi', '--json']);
    const events = lines(json.stdout).map((line) => JSON.parse(line));
    assert.deepEqual(
      events.map((event) => event.type),
      ['task_completed'],
    );
  });

  const hasScript = spawnSync('script', ['--version']).status === 0;
  test('on a terminal a spinner line is drawn on stderr and erased before each event', {
    skip: !hasScript && 'script(1) is not installed',
  }, async (t) => {
    const agent = await agentOn(t, 'sse', { handler: thinking });
    // script(1) gives the command a real pseudo-terminal; both streams arrive merged on its stdout.
    const child = spawn('script', ['-qec', `${process.execPath} ${BUILT_MAIN} stream ${agent.url} hello`, '/dev/null'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, out);
    const erase = '\r\u001b[2K';
    assert.ok(out.includes(`${erase}⠋ submitting · 0 events · 0.`), 'the first frame, drawn before anything arrives');
    // What remains once the terminal has applied every erase is exactly the piped output.
    const shown = out
      .replace(/\r\n/g, '\n')
      .split('\n')
      .map((line) => line.split(erase).at(-1))
      .join('\n');
    assert.match(shown, /^status: working\nthinking\nagent: hello\nartifact result \S+:\n {2}hello\nstate: completed\n$/);
  });
});

describe('parley register and unregister --json', () => {
  test('print the registry answer as one JSON document', async (t) => {
    const registry = new RegistryServer({ url: 'http://127.0.0.1:0' });
    await registry.start();
    t.after(() => registry.stop());
    const card = { name: 'listed', url: 'http://127.0.0.1:9/listed' };
    const { dir, cleanup } = scratchDir({ 'card.json': JSON.stringify(card), 'bad.json': JSON.stringify({ name: 'x' }) });
    t.after(cleanup);
    const registered = await parley(['register', registry.url, '--card', 'card.json', '--json'], dir);
    assert.equal(registered.code, 0, registered.stderr);
    assert.deepEqual(JSON.parse(registered.stdout), { status: 'agent registered successfully', registered: true, url: card.url });
    const refused = await parley(['register', registry.url, '--card', 'bad.json', '--json'], dir);
    assert.equal(refused.code, 1);
    // A refusal is the {"error": ...} document every command prints in JSON mode.
    const answer = JSON.parse(refused.stdout);
    assert.deepEqual(Object.keys(answer), ['error']);
    assert.equal(answer.error.code, 'invalid_request');
    assert.equal(answer.error.status_code, 400);
    assert.equal(answer.error.url, registry.url);
    const removed = await parley(['unregister', registry.url, card.url, '--json'], dir);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(JSON.parse(removed.stdout), {
      status: 'agent unregistered successfully',
      unregistered: true,
      url: card.url,
    });
  });
});

describe('usage errors', () => {
  test('exit 2; with --json the error is a JSON document on stdout', async () => {
    for (const args of [['card'], ['stream', 'http://127.0.0.1:9'], ['health', 'ftp://x'], ['completion', 'fish']]) {
      const text = await parley(args);
      assert.equal(text.code, 2, `${args.join(' ')}: ${text.stderr}`);
      assert.equal(lines(text.stderr).length, 1, text.stderr);
    }
    const json = await parley(['card', '--json']);
    assert.equal(json.code, 2);
    assert.equal(JSON.parse(json.stdout).error.code, 'usage');
  });
});
