// AgentClient.sendMessage (src/client/agent-client.ts; spec: A2A rule 7, "send_message()
// returns a response Message, send_task() returns the whole task"): the text goes out as a
// one-message user task, and the answer is the agent's message; with only artifacts, a message
// made of their parts; a failed task is thrown as TaskFailedError carrying the task.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../generated/types/index.js';
import { AgentClient, TaskFailedError } from '../../src/client/agent-client.js';
import { needsInput } from '../../src/agent/handler.js';
import {
  TRANSPORTS,
  assertIsoTimestamp,
  assertValid,
  startAgent,
  texts,
  type HarnessOptions,
  type TransportKind,
} from '../support/agent-harness.js';

/** An agent on `kind` and an AgentClient for its URL (the transport follows from the scheme). */
async function clientFor(t: { after(fn: () => unknown): void }, kind: TransportKind, options: HarnessOptions = {}) {
  const h = await startAgent(kind, options);
  const client = new AgentClient(h.url);
  t.after(async () => {
    await client.close();
    await h.close();
  });
  return client;
}

for (const kind of TRANSPORTS) {
  describe(`AgentClient.sendMessage over ${kind}`, () => {
    test("answers with the echo agent's message: role agent, the text back", async (t) => {
      const client = await clientFor(t, kind);
      const reply = await client.sendMessage('hello');
      assertValid('message', reply);
      assert.equal(reply.role, 'agent');
      assert.deepEqual(texts(reply.parts), ['hello']);
      assert.equal(typeof reply.id, 'string');
      assertIsoTimestamp(reply.timestamp);
    });

    test('sends the text as the one user message of a new task each time', async (t) => {
      const seen: Message[][] = [];
      const taskIds: string[] = [];
      const client = await clientFor(t, kind, {
        handler: ({ task, input }) => {
          seen.push(task.messages!.map((message) => ({ ...message })));
          taskIds.push(task.id);
          return `you said ${input}`;
        },
      });
      assert.deepEqual(texts((await client.sendMessage('first')).parts), ['you said first']);
      assert.deepEqual(texts((await client.sendMessage({ parts: [{ type: 'text', content: 'second' }] })).parts), [
        'you said second',
      ]);
      assert.equal(seen.length, 2);
      for (const [i, messages] of seen.entries()) {
        assert.equal(messages.length, 1);
        assert.equal(messages[0]!.role, 'user');
        assert.deepEqual(texts(messages[0]!.parts), [i === 0 ? 'first' : 'second']);
      }
      assert.notEqual(taskIds[0], taskIds[1], 'each message is a task of its own');
    });

    test('with messages and artifacts, the answer is the last agent message, not the artifacts', async (t) => {
      const client = await clientFor(t, kind, {
        handler: () => ({ messages: ['thinking', 'the answer'], artifacts: [{ kind: 'result', text: 'attachment' }] }),
      });
      const reply = await client.sendMessage('question');
      assert.equal(reply.role, 'agent');
      assert.deepEqual(texts(reply.parts), ['the answer']);
    });

    test('a handler that returns only artifacts is answered with their parts, in order', async (t) => {
      const client = await clientFor(t, kind, {
        handler: () => ({
          artifacts: [
            {
              kind: 'result',
              parts: [
                { type: 'text', content: 'one' },
                { type: 'data', content: { n: 1 } },
              ],
            },
            { kind: 'preview', text: 'two' },
          ],
        }),
      });
      const reply = await client.sendMessage('make things');
      assertValid('message', reply);
      assert.equal(reply.role, 'agent');
      assert.deepEqual(reply.parts, [
        { type: 'text', content: 'one' },
        { type: 'data', content: { n: 1 } },
        { type: 'text', content: 'two' },
      ]);
    });

    test("a task waiting for input is answered with the agent's question", async (t) => {
      const client = await clientFor(t, kind, { handler: () => needsInput('Which city?') });
      const reply = await client.sendMessage('weather please');
      assert.equal(reply.role, 'agent');
      assert.deepEqual(texts(reply.parts), ['Which city?']);
    });

    test('a failing handler throws TaskFailedError carrying the failed task', async (t) => {
      const client = await clientFor(t, kind, {
        handler: () => {
          throw new Error('boom');
        },
      });
      let caught: unknown;
      await assert.rejects(client.sendMessage('hello'), (error: unknown) => {
        caught = error;
        return true;
      });
      assert.ok(caught instanceof TaskFailedError, `expected TaskFailedError, got ${String(caught)}`);
      assert.equal(caught.code, 'task_failed');
      assert.equal(caught.name, 'TaskFailedError');
      assert.match(caught.message, /boom/);
      const task = caught.task;
      assertValid('task', task);
      assert.equal(task.state, 'failed');
      assert.match(caught.message, new RegExp(`task ${task.id} failed`));
      assert.deepEqual(texts(task.messages![0]!.parts), ['hello']);
      assert.equal(task.messages![0]!.role, 'user');
      assert.match(JSON.stringify(task.metadata?.error), /boom/);
    });

    test('a handler that ends the task failed throws TaskFailedError with its reason', async (t) => {
      const client = await clientFor(t, kind, { handler: () => ({ state: 'failed', reason: 'no such city' }) });
      const error = await client.sendMessage('weather in Atlantis').then(
        () => assert.fail('sendMessage resolved for a failed task'),
        (error: unknown) => error,
      );
      assert.ok(error instanceof TaskFailedError);
      assert.equal(error.task.state, 'failed');
      assert.match(error.message, /no such city/);
    });
  });
}
