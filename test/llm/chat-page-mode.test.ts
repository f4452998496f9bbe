// Which way the chat page talks to the agent: through the task stream where the transport
// streams and tasks are the model's own answers (no handler of the author's), else POST /chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentServer } from '../../src/agent/agent-server.js';
import { EchoModel, rawHttp } from '../support/agent-harness.js';

async function pageMode(
  t: { after(fn: () => Promise<void>): void },
  transport: 'http' | 'sse',
  withHandler: boolean,
): Promise<string> {
  const agent = new AgentServer({
    name: 'mode',
    transport,
    url: 'http://127.0.0.1:0',
    llm: new EchoModel(),
    ...(withHandler ? { handler: () => 'mine' } : {}),
  });
  await agent.start();
  t.after(() => agent.stop());
  const page = await rawHttp(agent.url, { path: '/chat' });
  assert.equal(page.status, 200);
  return /data-mode="(\w+)"/.exec(page.text)?.[1] ?? 'none';
}

test('the chat page streams on sse when tasks are the model answers, and posts to /chat otherwise', async (t) => {
  assert.equal(await pageMode(t, 'sse', false), 'stream');
  assert.equal(await pageMode(t, 'sse', true), 'post');
  assert.equal(await pageMode(t, 'http', false), 'post');
});
