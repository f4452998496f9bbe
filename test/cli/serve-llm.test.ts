// `parley serve agent --llm openai:<model> --llm-base-url <server>` as a user runs it, against a
// local server speaking the OpenAI API: it answers POST /chat, serves the streaming chat page,
// streams a task over sse, and stops cleanly. The flags' mistakes are usage errors (exit 2, one
// line); no key is read from anywhere but the environment.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { AgentClient } from '../../src/client/agent-client.js';
import { collect, rawHttp } from '../support/agent-harness.js';
import { startOpenAIServer } from '../llm/fake-openai-server.js';
import { runCli, untilServing } from './run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/** The environment without any model key, so only what a test sets is there. */
function envWithoutKeys(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PARLEY_DEBUG: '', ...extra };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

// The timeout only guards against a hang (children started from source are slow on a loaded machine).
describe('parley serve agent --llm', { timeout: 300_000 }, () => {
  it('answers /chat, serves the chat page, streams a task over sse, stops on SIGTERM', async (t) => {
    const model = await startOpenAIServer(t);
    const args = ['serve', 'agent', '--transport', 'sse', '--url', 'http://127.0.0.1:0', '--llm', 'openai:llama3.2'];
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args, '--llm-base-url', `${model.baseUrl}/v1`], {
      cwd: ROOT,
      env: envWithoutKeys(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const { url, stderr, exited } = await untilServing(child);

    model.script({ text: ['Hello ', 'from the model.'] }, { text: ['Streamed ', 'answer.'] });
    const chat = await rawHttp(url, { method: 'POST', path: '/chat', body: JSON.stringify({ message: 'hi' }) });
    assert.equal(chat.status, 200, chat.text);
    assert.equal(chat.json().reply, 'Hello from the model.');
    assert.equal(chat.json().model, 'llama3.2');
    assert.equal(model.requests.at(-1)!.body.model, 'llama3.2');

    const page = await rawHttp(url, { path: '/chat' });
    assert.equal(page.status, 200);
    assert.match(page.text, /data-mode="stream"/);

    const client = new AgentClient(url, { transport: 'sse' });
    t.after(() => client.close());
    assert.equal((await client.getCard()).capabilities?.has_llm, true);
    const events = await collect(client.streamTask('stream please'));
    const deltas = events.flatMap((event) => (event.type === 'task_llm_stream' && !event.final ? [event.delta] : []));
    assert.equal(deltas.join(''), 'Streamed answer.');
    assert.equal(events.at(-1)!.type, 'task_completed');
    await client.close();

    child.kill('SIGTERM');
    const code = await exited;
    assert.equal(code, 0, stderr());
    assert.equal(stderr(), '');
  });

  for (const [args, env, expected] of [
    [['--llm', 'gpt-4o'], {}, /^parley: serve agent: --llm must be openai:<model> or anthropic:<model> \(got "gpt-4o"\)\n$/],
    [['--llm-base-url', 'http://127.0.0.1:1/v1'], {}, /^parley: serve agent: --llm-base-url needs --llm openai:<model>/],
    [['--llm', 'openai:gpt-4o', '--llm-base-url', 'localhost:11434'], {}, /^parley: serve agent: --llm-base-url must be an http/],
    [
      ['--llm', 'openai:gpt-4o'],
      {},
      /^parley: serve agent: --llm openai:… needs an API key: set OPENAI_API_KEY, or point --llm-base-url/,
    ],
    [['--llm', 'anthropic:claude-x'], {}, /^parley: serve agent: --llm anthropic:… needs an API key: set ANTHROPIC_API_KEY\n$/],
  ] as const) {
    it(`serve agent ${args.join(' ')} is a usage error: exit 2, one line`, async () => {
      const result = await runCli(['serve', 'agent', ...args], { cwd: ROOT, env: envWithoutKeys(env) });
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, expected);
      assert.equal(result.stderr.split('\n').filter(Boolean).length, 1);
    });
  }
});
