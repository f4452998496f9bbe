// parley's AgentClient against an A2A 1.0 agent built with the official SDK (@a2a-js/sdk on
// express): `auto` detection lands on A2A (the native card is a definitive 404), the caller's
// task id is kept and the remote one recorded, sendMessage answers the agent's message,
// cancellation goes by local id through the mapping, and a missing mapping is A2aClientError.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentClient } from '../../src/client/agent-client.js';
import { A2aClientError } from '../../src/a2a/client/errors.js';
import { protocolChoices } from '../../src/a2a/client/protocol-choice.js';
import { startSdkAgent } from './sdk-agent.js';

async function sdkAgent(t: { after(fn: () => unknown): void }, options?: Parameters<typeof startSdkAgent>[0]) {
  const agent = await startSdkAgent(options);
  t.after(() => agent.close());
  return agent;
}

function client(
  t: { after(fn: () => unknown): void },
  url: string,
  options?: ConstructorParameters<typeof AgentClient>[1],
): AgentClient {
  const made = new AgentClient(url, options);
  t.after(() => made.close());
  return made;
}

describe('AgentClient against an @a2a-js/sdk agent', () => {
  test('auto lands on A2A; sendTask keeps the local id and records the remote task', async (t) => {
    const agent = await sdkAgent(t);
    const parley = client(t, agent.url);
    const task = await parley.sendTask({
      id: 'local-1',
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }],
    });
    assert.equal(await parley.protocol(), 'a2a');
    assert.equal(task.id, 'local-1');
    assert.equal(task.state, 'completed');
    const remote = task.metadata!.a2a_remote as Record<string, unknown>;
    assert.equal(typeof remote.task_id, 'string');
    assert.notEqual(remote.task_id, 'local-1', 'the A2A agent chose its own id');
    assert.equal(remote.state, 'TASK_STATE_COMPLETED');
    assert.ok(remote.context_id);
    assert.deepEqual(
      task.artifacts!.map((artifact) => artifact.parts.map((part) => part.content)),
      [['echo: hello']],
    );
  });

  test("sendMessage answers the agent's message", async (t) => {
    const agent = await sdkAgent(t);
    const reply = await client(t, agent.url, { protocol: 'a2a' }).sendMessage('hi there');
    assert.equal(reply.role, 'agent');
    assert.deepEqual(reply.parts, [{ type: 'text', content: 'echo: hi there' }]);
  });

  test('cancel by local id goes through the mapping; an unmapped id is A2aClientError a2a_unknown_task', async (t) => {
    const agent = await sdkAgent(t);
    const parley = client(t, agent.url, { protocol: 'a2a' });
    await assert.rejects(
      parley.cancel('never-sent'),
      (error) => error instanceof A2aClientError && error.code === 'a2a_unknown_task',
    );
    // A blocking send of `wait` would not return until canceled; send a finished one and cancel it.
    const task = await parley.sendTask({
      id: 'local-2',
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'done soon' }] }],
    });
    const before = agent.calls();
    await assert.rejects(
      parley.cancel(task.id),
      (error) => error instanceof A2aClientError && error.code === 'a2a_rpc_error' && error.rpcCode === -32002,
    );
    assert.equal(agent.calls(), before + 1, 'the cancel reached the peer, under the remote id');
  });

  test('a card whose interface is on another origin is refused before any request, unless allowed', async (t) => {
    const agent = await sdkAgent(t, { interfaceUrl: (base) => `${base.replace('127.0.0.1', 'localhost')}/` });
    await assert.rejects(
      client(t, agent.url, { protocol: 'a2a' }).sendMessage('x'),
      (error) => error instanceof A2aClientError && error.code === 'a2a_cross_origin',
    );
    assert.equal(agent.calls(), 0);
    const reply = await client(t, agent.url, { protocol: 'a2a', a2aAllowCrossOrigin: true }).sendMessage('x');
    assert.deepEqual(reply.parts, [{ type: 'text', content: 'echo: x' }]);
  });

  test('the choice is cached per peer', async (t) => {
    const agent = await sdkAgent(t);
    await client(t, agent.url).sendMessage('one');
    assert.equal(protocolChoices.get(agent.url), 'a2a');
  });
});
