// POST /tasks/ (spec: Agent endpoints, States and transitions, Idempotency and correlation):
// a task goes submitted -> working -> completed | input-required | failed, every transition
// is recorded in metadata.state_history, and messages and artifacts are attached.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '../../generated/types/index.js';
import { needsInput, type AgentHandler } from '../../src/agent/handler.js';
import {
  TRANSPORTS,
  assertIsoTimestamp,
  assertValid,
  deferred,
  historyStates,
  rejectsWithStatus,
  sendTaskWithKey,
  startAgent,
  texts,
  uniqueId,
  userTask,
} from '../support/agent-harness.js';
import { waitFor } from '../support/transport-fixtures.js';

for (const kind of TRANSPORTS) {
  describe(`POST /tasks/ over ${kind}`, () => {
    test('the echo handler runs a task submitted -> working -> completed, with ISO timestamps', async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      const id = uniqueId();
      const done = await h.client.sendTask(userTask(id, 'hello there'));
      assertValid('task', done);
      assert.equal(done.id, id);
      assert.equal(done.state, 'completed');
      assert.deepEqual(historyStates(done), ['submitted', 'working', 'completed']);
      const history = done.metadata!.state_history!;
      for (const entry of history) assertIsoTimestamp(entry.timestamp, `${entry.state} timestamp`);
      for (let i = 1; i < history.length; i++) {
        assert.ok(Date.parse(history[i]!.timestamp) >= Date.parse(history[i - 1]!.timestamp), 'history is in time order');
      }
      // Same text back: an agent message and a `result` artifact.
      assert.equal(done.messages!.length, 2);
      assert.equal(done.messages![0]!.role, 'user');
      assert.equal(done.messages![1]!.role, 'agent');
      assert.deepEqual(texts(done.messages![1]!.parts), ['hello there']);
      assert.equal(done.artifacts!.length, 1);
      const artifact = done.artifacts![0]!;
      assertValid('artifact', artifact);
      assert.equal(artifact.kind, 'result');
      assert.deepEqual(texts(artifact.parts), ['hello there']);
      assert.equal(typeof artifact.id, 'string');
      assertIsoTimestamp(artifact.timestamp, 'artifact timestamp');
    });

    test('defaults are filled in: message ids and timestamps, created_at, lists, metadata', async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      const bare = await h.client.sendTask({
        id: uniqueId(),
        messages: [{ role: 'user', parts: [{ type: 'text', content: 'x' }] }],
      });
      assertIsoTimestamp(bare.created_at, 'created_at');
      const first = bare.messages![0]!;
      assert.equal(typeof first.id, 'string');
      assert.ok(first.id!.length > 0);
      assertIsoTimestamp(first.timestamp, 'message timestamp');
      const agentMessage = bare.messages![1]!;
      assert.notEqual(agentMessage.id, first.id);
      assertIsoTimestamp(agentMessage.timestamp, 'agent message timestamp');

      // A task with only an id is valid too: it runs with empty input.
      const onlyId = await h.client.sendTask({ id: uniqueId() });
      assert.equal(onlyId.state, 'completed');
      assert.deepEqual(
        onlyId.messages!.map((m) => m.role),
        ['agent'],
      );
      assertIsoTimestamp(onlyId.created_at, 'created_at');

      // What the sender gave is kept.
      const given = await h.client.sendTask({
        id: uniqueId(),
        created_at: '2024-05-06T07:08:09.000Z',
        metadata: { trace: 'abc' },
        messages: [{ id: 'm-1', role: 'user', parts: [{ type: 'text', content: 'y' }], timestamp: '2024-05-06T07:08:09.000Z' }],
      });
      assert.equal(given.created_at, '2024-05-06T07:08:09.000Z');
      assert.equal(given.metadata!.trace, 'abc');
      assert.equal(given.messages![0]!.id, 'm-1');
      assert.equal(given.messages![0]!.timestamp, '2024-05-06T07:08:09.000Z');
    });

    test('long texts come back whole: one needing escapes, one in other scripts, one in a frozen part', async (t) => {
      // Long text parts are written apart from the rest of the task (core/json/long-strings.ts).
      const quoted = 'say "hi" \\ then\nnext line; '.repeat(4_000);
      const other = 'こんにちは, wörld 👍 '.repeat(5_000);
      const frozen = Object.freeze({ type: 'text', content: 'a frozen part. '.repeat(6_000) });
      const handler: AgentHandler = ({ input }) => ({
        text: input,
        artifacts: [{ kind: 'diagnostic', parts: [{ type: 'text', content: other }, frozen] }],
      });
      const h = await startAgent(kind, { handler });
      t.after(() => h.close());
      const done = await h.client.sendTask(userTask(uniqueId(), quoted));
      assertValid('task', done);
      assert.deepEqual(texts(done.messages![0]!.parts), [quoted]);
      assert.deepEqual(texts(done.messages![1]!.parts), [quoted]);
      assert.deepEqual(texts(done.artifacts![1]!.parts), [other, frozen.content]);
    });

    test('a handler outcome attaches its messages and artifacts and merges metadata', async (t) => {
      const handler: AgentHandler = (ctx) => {
        ctx.message('thinking out loud');
        ctx.artifact({ kind: 'preview', name: 'draft.txt', media_type: 'text/plain', text: 'draft' });
        return {
          text: `final for ${ctx.input}`,
          messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'extra' }] }],
          artifacts: [{ kind: 'diagnostic', parts: [{ type: 'data', content: { tokens: 3 } }] }],
          metadata: { cost: 3, when: new Date('2024-01-01T00:00:00Z') },
        };
      };
      const h = await startAgent(kind, { handler });
      t.after(() => h.close());
      const done = await h.client.sendTask(userTask(uniqueId(), 'q'));
      assertValid('task', done);
      assert.deepEqual(
        done.messages!.map((m) => [m.role, texts(m.parts).join()]),
        [
          ['user', 'q'],
          ['agent', 'thinking out loud'],
          ['agent', 'final for q'],
          ['assistant', 'extra'],
        ],
      );
      assert.deepEqual(
        done.artifacts!.map((a) => a.kind),
        ['preview', 'result', 'diagnostic'],
      );
      assert.equal(done.artifacts![0]!.name, 'draft.txt');
      assert.equal(done.artifacts![0]!.media_type, 'text/plain');
      assert.deepEqual(done.artifacts![2]!.parts, [{ type: 'data', content: { tokens: 3 } }]);
      assert.equal(done.metadata!.cost, 3);
      assert.equal(done.metadata!.when, '2024-01-01T00:00:00.000Z', 'metadata is normalized to JSON');
    });

    test('artifacts carry name, uri, media_type and action_id as null when the handler gave none (spec: Artifact)', async (t) => {
      const handler: AgentHandler = (ctx) => {
        ctx.artifact({ kind: 'preview', name: 'draft.txt', text: 'draft' });
        return {
          text: 'final',
          artifacts: [{ uri: 'file:///tmp/report.pdf', media_type: 'application/pdf', action_id: 'act-1', parts: [] }],
        };
      };
      const h = await startAgent(kind, { handler });
      t.after(() => h.close());
      const done = await h.client.sendTask(userTask(uniqueId(), 'q'));
      assertValid('task', done);
      const descriptors = done.artifacts!.map((a) => [a.kind, a.name, a.uri, a.media_type, a.action_id]);
      assert.deepEqual(descriptors, [
        ['preview', 'draft.txt', null, null, null],
        ['result', null, null, null, null],
        ['result', null, 'file:///tmp/report.pdf', 'application/pdf', 'act-1'],
      ]);
      for (const artifact of done.artifacts!) {
        for (const key of ['name', 'uri', 'media_type', 'action_id'])
          assert.ok(Object.hasOwn(artifact, key), `${key} is present`);
      }
    });

    test('needsInput() ends the task input-required with the question as message and reason', async (t) => {
      const handler: AgentHandler = ({ input }) =>
        input.includes('city') ? { text: `weather in ${input}` } : needsInput('Which city?');
      const h = await startAgent(kind, { handler });
      t.after(() => h.close());
      const asked = await h.client.sendTask(userTask(uniqueId(), 'weather please'));
      assertValid('task', asked);
      assert.equal(asked.state, 'input-required');
      assert.deepEqual(historyStates(asked), ['submitted', 'working', 'input-required']);
      assert.equal(asked.metadata!.state_history!.at(-1)!.reason, 'Which city?');
      const question = asked.messages!.at(-1)!;
      assert.equal(question.role, 'agent');
      assert.deepEqual(texts(question.parts), ['Which city?']);
      assert.equal(asked.artifacts!.length, 0);
    });

    test('an input-required task sent again with the answer goes back to work (explicit idempotency key)', async (t) => {
      let calls = 0;
      const handler: AgentHandler = ({ input }) => {
        calls++;
        return input === 'Paris' ? { text: 'sunny in Paris' } : needsInput('Which city?');
      };
      const h = await startAgent(kind, { handler });
      t.after(() => h.close());
      const asked = await h.client.sendTask(userTask(uniqueId(), 'weather please'));
      const answer: Task = {
        ...asked,
        messages: [...asked.messages!, { role: 'user', parts: [{ type: 'text', content: 'Paris' }] }],
      };
      const done = await sendTaskWithKey(h.clientTransport, answer, `${asked.id}#2`);
      assert.equal(calls, 2);
      assert.equal(done.state, 'completed');
      assert.deepEqual(historyStates(done), ['submitted', 'working', 'input-required', 'working', 'completed']);
      assert.deepEqual(texts(done.artifacts![0]!.parts), ['sunny in Paris']);
    });

    test('an input-required task sent again with the answer through the plain client runs the handler again', async (t) => {
      // handler.ts tells authors to "send the task again with the answer"; the generated client
      // derives the idempotency key from the task id, so the server must not replay the stale
      // input-required answer for a request that carries new messages.
      let calls = 0;
      const handler: AgentHandler = ({ input }) => {
        calls++;
        return input === 'Paris' ? { text: 'sunny in Paris' } : needsInput('Which city?');
      };
      const h = await startAgent(kind, { handler });
      t.after(() => h.close());
      const asked = await h.client.sendTask(userTask(uniqueId(), 'weather please'));
      const done = await h.client.sendTask({
        ...asked,
        messages: [...asked.messages!, { role: 'user', parts: [{ type: 'text', content: 'Paris' }] }],
      });
      assert.equal(calls, 2, 'the handler ran for the answer');
      assert.equal(done.state, 'completed');
    });

    test('a handler that throws fails the task; the error is recorded, not sent as a transport error', async (t) => {
      const h = await startAgent(kind, {
        handler: () => {
          throw new TypeError('kaboom');
        },
      });
      t.after(() => h.close());
      const failed = await h.client.sendTask(userTask(uniqueId(), 'boom'));
      assertValid('task', failed);
      assert.equal(failed.state, 'failed');
      assert.deepEqual(historyStates(failed), ['submitted', 'working', 'failed']);
      assert.equal(failed.metadata!.state_history!.at(-1)!.reason, 'kaboom');
      assert.deepEqual(failed.metadata!.error, { name: 'TypeError', message: 'kaboom' });
    });

    test('an outcome that cannot be serialized (a cycle) fails the task with the reason; the server keeps serving', async (t) => {
      const h = await startAgent(kind, {
        handler: ({ input }) => {
          if (input !== 'cycle') return { text: input };
          const loop: Record<string, unknown> = {};
          loop.self = loop;
          return { messages: [{ parts: [{ type: 'text', content: 'looped' }], metadata: loop }] };
        },
      });
      t.after(() => h.close());
      const failed = await h.client.sendTask(userTask(uniqueId(), 'cycle'));
      assertValid('task', failed);
      assert.equal(failed.state, 'failed');
      assert.match(failed.metadata!.state_history!.at(-1)!.reason!, /circular/);
      assert.equal(failed.messages!.length, 1, 'nothing of the refused outcome is attached');
      const again = await h.client.sendTask(userTask(uniqueId(), 'fine now'));
      assert.equal(again.state, 'completed');
      assert.deepEqual(texts(again.artifacts![0]!.parts), ['fine now']);
    });

    test('a handler writing into context.task (read-only by contract): a bigint becomes a string, a cycle is dropped and fails the task', async (t) => {
      const h = await startAgent(kind, {
        handler: ({ input, task }) => {
          const metadata = task.metadata as Record<string, unknown>;
          if (input === 'bigint') metadata.count = 12345678901234567890n;
          if (input === 'cycle') metadata.self = metadata;
          return { text: input };
        },
      });
      t.after(() => h.close());
      const big = await h.client.sendTask(userTask(uniqueId(), 'bigint'));
      assertValid('task', big);
      assert.equal(big.state, 'completed');
      assert.equal(big.metadata!.count, '12345678901234567890');

      const looped = await h.client.sendTask(userTask(uniqueId(), 'cycle'));
      assertValid('task', looped);
      assert.equal(looped.state, 'failed');
      assert.deepEqual(
        looped.metadata!.state_history!.map((entry) => entry.state),
        ['submitted', 'working', 'failed'],
        'the refused outcome is replaced, not followed',
      );
      assert.match(looped.metadata!.state_history!.at(-1)!.reason!, /metadata\.self/);
      assert.equal(looped.metadata!.self, undefined);
      assert.deepEqual(texts(looped.artifacts![0]!.parts), ['cycle'], 'what could be kept is kept');
      assert.equal((await h.client.sendTask(userTask(uniqueId(), 'fine'))).state, 'completed');
    });

    test('a handler that changes an object after attaching it: a bigint becomes a string, a cycle fails the task', async (t) => {
      const h = await startAgent(kind, {
        // Never reads context.task: it reaches the record through what it attached.
        handler: async (context) => {
          const metadata: Record<string, unknown> = { kept: true };
          context.artifact({ text: 'made', metadata });
          await Promise.resolve();
          if (context.input === 'bigint') metadata.count = 12345678901234567890n;
          if (context.input === 'cycle') metadata.self = metadata;
          return { text: context.input };
        },
      });
      t.after(() => h.close());
      const big = await h.client.sendTask(userTask(uniqueId(), 'bigint'));
      assertValid('task', big);
      assert.equal(big.state, 'completed');
      assert.deepEqual(big.artifacts![0]!.metadata, { kept: true, count: '12345678901234567890' });

      const looped = await h.client.sendTask(userTask(uniqueId(), 'cycle'));
      assertValid('task', looped);
      assert.equal(looped.state, 'failed');
      assert.match(looped.metadata!.state_history!.at(-1)!.reason!, /artifacts\[0\]/);
      assert.equal((await h.client.sendTask(userTask(uniqueId(), 'fine'))).state, 'completed');
    });

    test('an async handler that rejects, and one that throws a non-Error, fail the task too', async (t) => {
      const h = await startAgent(kind, {
        handler: async ({ input }) => {
          await Promise.resolve();
          if (input === 'string') throw 'plain string thrown';
          throw new Error('');
        },
      });
      t.after(() => h.close());
      const plain = await h.client.sendTask(userTask(uniqueId(), 'string'));
      assert.equal(plain.state, 'failed');
      assert.equal(plain.metadata!.state_history!.at(-1)!.reason, 'plain string thrown');
      const empty = await h.client.sendTask(userTask(uniqueId(), 'empty'));
      assert.equal(empty.state, 'failed');
      assert.ok(empty.metadata!.state_history!.at(-1)!.reason, 'an empty message still gives a reason');
    });

    test("a handler returning {state: 'failed'} fails the task with its reason and output", async (t) => {
      const h = await startAgent(kind, {
        handler: () => ({ state: 'failed', reason: 'quota exhausted', messages: ['sorry, out of quota'] }),
      });
      t.after(() => h.close());
      const failed = await h.client.sendTask(userTask(uniqueId(), 'go'));
      assertValid('task', failed);
      assert.equal(failed.state, 'failed');
      assert.deepEqual(historyStates(failed), ['submitted', 'working', 'failed']);
      assert.equal(failed.metadata!.state_history!.at(-1)!.reason, 'quota exhausted');
      assert.deepEqual(texts(failed.messages!.at(-1)!.parts), ['sorry, out of quota']);
      assert.equal(failed.metadata!.error, undefined, 'no exception, so no error record');
    });

    test('a generator handler runs to its return value; its events do not change a unary result', async (t) => {
      const h = await startAgent(kind, {
        handler: async function* (ctx) {
          yield { type: 'task_llm_stream', delta: 'par', final: false };
          yield { type: 'task_llm_stream', delta: 'tial', final: true };
          ctx.artifact({ kind: 'preview', text: 'mid-run' });
          const sum = await ctx.tool({ name: 'add', arguments: { a: 1, b: 2 } }, () => 3);
          return { text: `sum=${sum}` };
        },
      });
      t.after(() => h.close());
      const done = await h.client.sendTask(userTask(uniqueId(), 'add'));
      assertValid('task', done);
      assert.equal(done.state, 'completed');
      assert.deepEqual(
        done.artifacts!.map((a) => texts(a.parts).join()),
        ['mid-run', 'sum=3'],
      );
      assert.deepEqual(texts(done.messages!.at(-1)!.parts), ['sum=3']);
    });

    test('an invalid task body is refused with 400 invalid_request', async (t) => {
      let calls = 0;
      const h = await startAgent(kind, { handler: () => void calls++ });
      t.after(() => h.close());
      const error = await rejectsWithStatus(h.client.sendTask({ messages: [] } as unknown as Task), 400, 'invalid_request');
      assert.match(error.message, /id/);
      await rejectsWithStatus(
        h.client.sendTask({ id: uniqueId(), messages: [{ role: 'robot', parts: [] }] } as unknown as Task),
        400,
        'invalid_request',
      );
      await rejectsWithStatus(
        h.client.sendTask({ id: uniqueId(), state: 'sleeping' } as unknown as Task),
        400,
        'invalid_request',
      );
      assert.equal(calls, 0, 'the handler never saw an invalid task');
    });

    test('resubmitting a terminal task is a 409 conflict', async (t) => {
      let calls = 0;
      const h = await startAgent(kind, { handler: () => void calls++ });
      t.after(() => h.close());
      const done = await h.client.sendTask(userTask(uniqueId(), 'once'));
      assert.equal(done.state, 'completed');
      // Past the idempotency cache (another key), the engine refuses the finished task.
      await rejectsWithStatus(sendTaskWithKey(h.clientTransport, done, 'another-key'), 409, 'conflict');
      // A new id that arrives already terminal is refused the same way.
      for (const state of ['completed', 'failed', 'canceled'] as const) {
        await rejectsWithStatus(h.client.sendTask(userTask(uniqueId(), 'x', { state })), 409, 'conflict');
      }
      assert.equal(calls, 1);
    });

    test('the same task id while it runs is a 409 conflict', async (t) => {
      const started = deferred();
      const release = deferred();
      let calls = 0;
      const h = await startAgent(kind, {
        handler: async () => {
          calls++;
          started.resolve();
          await release.promise;
          return 'finished';
        },
      });
      t.after(() => h.close());
      const id = uniqueId();
      const first = h.client.sendTask(userTask(id, 'long'));
      await started.promise;
      await rejectsWithStatus(sendTaskWithKey(h.clientTransport, userTask(id, 'again'), 'second-key'), 409, 'conflict');
      release.resolve();
      const done = await first;
      assert.equal(done.state, 'completed');
      assert.equal(calls, 1);
    });

    test('a concurrent duplicate (same id, same key) waits for the first run and shares its result', async (t) => {
      const started = deferred();
      const release = deferred();
      let calls = 0;
      const h = await startAgent(kind, {
        handler: async ({ input }) => {
          calls++;
          started.resolve();
          await release.promise;
          return `done: ${input}`;
        },
      });
      t.after(() => h.close());
      const id = uniqueId();
      const other = await h.newClient();
      const first = h.client.sendTask(userTask(id, 'one'));
      await started.promise;
      const duplicate = other.sendTask(userTask(id, 'one'));
      // Release the first run only once the server has counted the duplicate: released at once,
      // the duplicate would arrive after the run finished and get the stored result instead.
      await waitFor(() => h.agent.transport.health().metrics.requests_started >= 2, 'the server to receive the duplicate');
      assert.equal(calls, 1, 'the duplicate did not run the handler');
      release.resolve();
      const [a, b] = await Promise.all([first, duplicate]);
      assert.equal(a.id, id);
      assert.equal(a.state, 'completed');
      assert.deepEqual(texts(a.artifacts![0]!.parts), ['done: one']);
      assert.deepEqual(b, a, "the duplicate got the first run's result");
      assert.equal(calls, 1);
    });

    test('sending the same task id twice replays the stored result without running the handler again', async (t) => {
      let calls = 0;
      const h = await startAgent(kind, {
        handler: ({ input }) => {
          calls++;
          return `run ${calls}: ${input}`;
        },
      });
      t.after(() => h.close());
      const task = userTask(uniqueId(), 'same');
      const first = await h.client.sendTask(task);
      const second = await h.client.sendTask(task);
      const third = await (await h.newClient()).sendTask(task);
      assert.equal(calls, 1);
      assert.deepEqual(second, first);
      assert.deepEqual(third, first);
      assert.deepEqual(texts(first.artifacts![0]!.parts), ['run 1: same']);
    });
  });
}
