// The handler context's functions work when a handler takes them out of the context, as the
// first example of docs/agents.md does (`({ input, signal, artifact }) => ...`): every function
// on the context, and on its session values, called without the context as `this`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '../../generated/types/index.js';
import { needsInput, type AgentHandler } from '../../src/agent/handler.js';
import { EchoModel, TRANSPORTS, collect, startAgent, texts, uniqueId, userTask } from '../support/agent-harness.js';

/** docs/agents.md's first example, with a lookup that answers at once. */
const documented: AgentHandler = async ({ input, signal, artifact }) => {
  if (!input.includes(' in ')) return needsInput('Which city?');
  const report = await lookUp(input, { signal });
  artifact({ kind: 'preview', name: 'raw.json', media_type: 'application/json', parts: [{ type: 'data', content: report }] });
  return `It is ${report.temperature} degrees.`;
};

async function lookUp(input: string, { signal }: { signal: AbortSignal }): Promise<{ city: string; temperature: number }> {
  signal.throwIfAborted();
  return { city: input.split(' in ')[1]!, temperature: 21 };
}

/** Every function of the context and of its session values, each called detached. */
const everything: AgentHandler = async ({ emit, artifact, message, tool, runModel, session }) => {
  const { get, set, has, keys, delete: remove } = session;
  set('seen', 1);
  set('gone', true);
  remove('gone');
  emit({ type: 'task_llm_stream', delta: 'thinking', final: true });
  message('a message');
  artifact({ text: 'an artifact' });
  const sum = await tool({ name: 'add', arguments: { a: 1, b: 2 } }, () => 3);
  const answer = await runModel({ prompt: 'hello', remember: false });
  return `${String(get('seen'))} ${String(has('gone'))} ${keys().join(',')} ${sum} ${answer.text}`;
};

function failure(task: Task): string {
  return JSON.stringify(task.metadata?.error ?? null);
}

for (const kind of TRANSPORTS) {
  describe(`handler context over ${kind}`, () => {
    test("docs/agents.md's first example: artifact taken out of the context attaches", async (t) => {
      const h = await startAgent(kind, { handler: documented });
      t.after(() => h.close());
      const asked = await h.client.sendTask(userTask(uniqueId(), 'weather'));
      assert.equal(asked.state, 'input-required');
      const done = await h.client.sendTask(userTask(uniqueId(), 'weather in Oslo'));
      assert.equal(done.state, 'completed', failure(done));
      assert.deepEqual(
        done.artifacts!.map((artifact) => artifact.kind),
        ['preview', 'result'],
      );
      assert.deepEqual(done.artifacts![0]!.parts[0]!.content, { city: 'Oslo', temperature: 21 });
      assert.deepEqual(texts(done.artifacts![1]!.parts), ['It is 21 degrees.']);
    });

    test('every function of the context and of context.session works taken out of it', async (t) => {
      const h = await startAgent(kind, { handler: everything, llm: new EchoModel() });
      t.after(() => h.close());
      const done = await h.client.sendTask(userTask(uniqueId(), 'go'));
      assert.equal(done.state, 'completed', failure(done));
      assert.deepEqual(texts(done.artifacts!.at(-1)!.parts), ['1 false seen 3 echo: hello']);
      assert.ok(done.messages!.some((one) => texts(one.parts).includes('a message')));
      assert.ok(done.artifacts!.some((one) => texts(one.parts).includes('an artifact')));
    });
  });
}

test('over runtime, a streamed task sends what the detached functions emit and attach', async (t) => {
  const h = await startAgent('runtime', { handler: everything, llm: new EchoModel() });
  t.after(() => h.close());
  const events = await collect(h.client.streamTask(userTask(uniqueId(), 'go')));
  const types = events.map((event) => (event as { type: string }).type);
  for (const type of ['task_llm_stream', 'task_message', 'task_artifact', 'task_tool_call', 'task_tool_result']) {
    assert.ok(types.includes(type), `${type} in ${types.join(', ')}`);
  }
  const last = events.at(-1) as { type: string; task: Task };
  assert.equal(last.type, 'task_completed');
  assert.equal(last.task.state, 'completed', failure(last.task));
});
