// POST /tasks/cancel (spec: Agent endpoints, States and transitions, control plane): cancels an
// active task from another caller and answers with the updated task; never waits behind the
// work it controls. The spec's cancel row: the endpoint "controls active execution only and is
// not a task-lookup API", so an id that is not active (unknown, finished, or with an
// authenticator, submitted by another principal) gets one and the same 404, which reveals
// neither the task nor whether it exists. Repeating a cancel changes nothing; a retry under the
// same idempotency key gets the first answer again, yet a later run of the task is still canceled.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { needsInput, type AgentHandler } from '../../src/agent/handler.js';
import { agentOperations } from '../../generated/operations/agent.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import {
  TRANSPORTS,
  aborted,
  assertIsoTimestamp,
  assertValid,
  deferred,
  historyStates,
  rejectsWithStatus,
  startAgent,
  uniqueId,
  untilAborted,
  userTask,
  type Deferred,
} from '../support/agent-harness.js';

/** A handler that signals when it starts, then waits for its signal (or for `release`). */
function blockingHandler() {
  const started = new Map<string, Deferred<void>>();
  const sawAbort = new Map<string, Deferred<unknown>>();
  const release = deferred<string>();
  let calls = 0;
  const slot = <T>(map: Map<string, Deferred<T>>, id: string) => {
    if (!map.has(id)) map.set(id, deferred<T>());
    return map.get(id)!;
  };
  const handler: AgentHandler = async ({ task, signal }) => {
    calls++;
    slot(started, task.id).resolve();
    void aborted(signal).then((reason) => slot(sawAbort, task.id).resolve(reason));
    return Promise.race([release.promise, untilAborted(signal)]);
  };
  return {
    handler,
    release,
    get calls() {
      return calls;
    },
    started: (id: string) => slot(started, id).promise,
    sawAbort: (id: string) => slot(sawAbort, id).promise,
  };
}

for (const kind of TRANSPORTS) {
  describe(`POST /tasks/cancel over ${kind}`, () => {
    test('cancels an active task from another caller while the submission is pending', async (t) => {
      const work = blockingHandler();
      const h = await startAgent(kind, { handler: work.handler });
      t.after(() => h.close());
      const id = uniqueId();
      const pending = h.client.sendTask(userTask(id, 'long job'));
      await work.started(id);

      const other = await h.newClient();
      const canceled = await other.cancelTask({ id, metadata: { reason: 'user asked' } });
      assertValid('task', canceled);
      assert.equal(canceled.id, id);
      assert.equal(canceled.state, 'canceled');
      assert.deepEqual(historyStates(canceled), ['submitted', 'working', 'canceled']);
      const last = canceled.metadata!.state_history!.at(-1)!;
      assert.equal(last.reason, 'user asked');
      assertIsoTimestamp(last.timestamp);

      // The handler saw its signal abort, with the reason.
      const reason = (await work.sawAbort(id)) as Error;
      assert.equal(reason.name, 'TaskCanceledError');
      assert.equal(reason.message, 'user asked');

      // The pending submission resolves (it is not an error) with the canceled task.
      const submitted = await pending;
      assert.equal(submitted.state, 'canceled');
      assert.deepEqual(submitted.metadata!.state_history, canceled.metadata!.state_history);
      assert.equal(work.calls, 1);
    });

    test('without a reason the cancellation still records one', async (t) => {
      const work = blockingHandler();
      const h = await startAgent(kind, { handler: work.handler });
      t.after(() => h.close());
      const id = uniqueId();
      const pending = h.client.sendTask(userTask(id, 'long job'));
      await work.started(id);
      const canceled = await h.client.cancelTask({ id });
      assert.equal(canceled.state, 'canceled');
      assert.ok(canceled.metadata!.state_history!.at(-1)!.reason);
      assert.equal((await pending).state, 'canceled');
    });

    test('the control plane never queues behind work: cancel gets through when the only request slot is taken', async (t) => {
      const work = blockingHandler();
      const h = await startAgent(kind, { handler: work.handler, transportOptions: { limits: { maxConcurrentRequests: 1 } } });
      t.after(() => h.close());
      const id = uniqueId();
      const pending = h.client.sendTask(userTask(id, 'hog the slot'));
      await work.started(id);
      const other = await h.newClient();
      // Other control-plane calls pass too.
      const state = await other.describeState({});
      assert.equal(state.state.active_tasks, 1);
      const canceled = await other.cancelTask({ id, metadata: { reason: 'make room' } });
      assert.equal(canceled.state, 'canceled');
      assert.equal((await pending).state, 'canceled');
      // The slot is free again: ordinary work runs.
      const next = uniqueId();
      const second = h.client.sendTask(userTask(next, 'next'));
      await work.started(next);
      await other.cancelTask({ id: next });
      assert.equal((await second).state, 'canceled');
    });

    // The timeout only guards against a hang (the failure mode); nothing here is timed.
    test('the control plane never queues behind work on the client either (client limited to one request)', {
      timeout: 5_000,
    }, async (t) => {
      // One caller, one request slot: it must still be able to cancel what it is waiting for.
      const work = blockingHandler();
      const h = await startAgent(kind, { handler: work.handler }, { limits: { maxConcurrentRequests: 1 } });
      t.after(() => {
        work.release.resolve('released by cleanup');
        return h.close();
      });
      const id = uniqueId();
      const pending = h.client.sendTask(userTask(id, 'hog the client slot'));
      pending.catch(() => undefined); // if the cancel hangs, cleanup ends this call
      await work.started(id);
      const canceled = await h.client.cancelTask({ id, metadata: { reason: 'same caller' } });
      assert.equal(canceled.state, 'canceled');
      assert.equal((await pending).state, 'canceled');
    });

    // The timeout only guards against a hang (the failure mode); nothing here is timed.
    test('a caller that gives up on a pending submission gets control back; the task runs on and its result is kept', {
      timeout: 5_000,
    }, async (t) => {
      const started = deferred();
      const release = deferred();
      let calls = 0;
      let abortedAtEnd: boolean | null = null;
      const h = await startAgent(kind, {
        handler: async ({ signal, input }) => {
          calls++;
          started.resolve();
          await release.promise;
          abortedAtEnd = signal.aborted;
          return `done: ${input}`;
        },
      });
      t.after(() => {
        release.resolve();
        return h.close();
      });
      const id = uniqueId();
      const caller = new AbortController();
      const pending = h.client.sendTask(userTask(id, 'patient'), { signal: caller.signal });
      await started.promise;
      caller.abort(new Error('caller gave up'));
      await assert.rejects(pending, /caller gave up/);
      // A unary caller leaving does not cancel the task (task-engine.ts): it finishes, and a
      // retry with the same id gets that result.
      release.resolve();
      const retried = await h.client.sendTask(userTask(id, 'patient'));
      assert.equal(retried.state, 'completed');
      assert.equal(calls, 1);
      assert.equal(abortedAtEnd, false);
    });

    test('cancel of an unknown id is 404 not_found', async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      await rejectsWithStatus(h.client.cancelTask({ id: uniqueId('nobody') }), 404, 'not_found');
      // An invalid cancellation request is 400.
      await rejectsWithStatus(h.client.cancelTask({ metadata: {} } as unknown as { id: string }), 400, 'invalid_request');
    });

    test('cancel of a finished task is the 404 an unknown id gets: it does not look the task up', async (t) => {
      const h = await startAgent(kind);
      t.after(() => h.close());
      const id = uniqueId();
      const done = await h.client.sendTask(userTask(id, 'secret quick'));
      assert.equal(done.state, 'completed');
      const finished = await rejectsWithStatus(h.client.cancelTask({ id, metadata: { reason: 'too late' } }), 404, 'not_found');
      const unknown = await rejectsWithStatus(h.client.cancelTask({ id: uniqueId() }), 404, 'not_found');
      assert.equal(finished.message, unknown.message, 'the same answer, so existence is not revealed');
      assert.ok(!finished.message.includes(id) && !finished.message.includes('secret'));
      const failing = await startAgent(kind, {
        handler: () => {
          throw new Error('nope');
        },
      });
      t.after(() => failing.close());
      const failed = await failing.client.sendTask(userTask(uniqueId(), 'x'));
      assert.equal(failed.state, 'failed');
      await rejectsWithStatus(failing.client.cancelTask({ id: failed.id }), 404, 'not_found');
    });

    test('cancel is idempotent: a retry (same key) gets the same answer; another key, once the task has ended, 404', async (t) => {
      const work = blockingHandler();
      const h = await startAgent(kind, { handler: work.handler });
      t.after(() => h.close());
      const id = uniqueId();
      const pending = h.client.sendTask(userTask(id, 'long job'));
      await work.started(id);
      const first = await h.client.cancelTask({ id, metadata: { reason: 'first' } });
      assert.equal(first.state, 'canceled');
      const submitted = await pending;
      // The task ended canceled. A retry under the same key (the client derives it from the id),
      // as after a lost answer, gets that answer again and changes nothing; another key finds
      // nothing active.
      assert.deepEqual(await h.client.cancelTask({ id, metadata: { reason: 'second' } }), first);
      await rejectsWithStatus(
        h.clientTransport.unary(
          agentOperations.cancelTask,
          { id, metadata: { reason: 'third' } },
          { idempotencyKey: 'another-key' },
        ),
        404,
        'not_found',
      );
      assert.deepEqual(historyStates(submitted), ['submitted', 'working', 'canceled']);
      assert.equal(submitted.metadata!.state_history!.at(-1)!.reason, 'first');
      assert.equal(work.calls, 1);
    });

    test('cancel of a task waiting for input cancels it', async (t) => {
      const h = await startAgent(kind, { handler: () => needsInput('Which city?') });
      t.after(() => h.close());
      const id = uniqueId();
      assert.equal((await h.client.sendTask(userTask(id, 'book a trip'))).state, 'input-required');
      const canceled = await h.client.cancelTask({ id, metadata: { reason: 'never mind' } });
      assertValid('task', canceled);
      assert.equal(canceled.state, 'canceled');
      assert.deepEqual(historyStates(canceled), ['submitted', 'working', 'input-required', 'canceled']);
      assert.equal(canceled.metadata!.state_history!.at(-1)!.reason, 'never mind');
      // Canceled is the end: a retry gets the same answer, a cancel under another key finds
      // nothing active; neither changes anything.
      assert.deepEqual(await h.client.cancelTask({ id, metadata: { reason: 'again' } }), canceled);
      await rejectsWithStatus(
        h.clientTransport.unary(agentOperations.cancelTask, { id, metadata: { reason: 'again' } }, { idempotencyKey: 'another' }),
        404,
        'not_found',
      );
    });

    test('a later cancel acts on the task as it is now, not on an earlier answer: a follow-up run is canceled too', async (t) => {
      const work = blockingHandler();
      const h = await startAgent(kind, {
        handler: (context) => (context.input === 'book a trip' ? needsInput('Which city?') : work.handler(context)),
      });
      t.after(() => h.close());
      const id = uniqueId();
      const asked = await h.client.sendTask(userTask(id, 'book a trip'));
      assert.equal((await h.client.cancelTask({ id })).state, 'canceled');
      // The user answers after all, from the copy they had: the task runs again.
      const reply = { role: 'user' as const, parts: [{ type: 'text' as const, content: 'Porto' }] };
      const followUp = h.client.sendTask({ ...asked, messages: [...asked.messages!, reply] });
      await work.started(id);
      const canceled = await h.client.cancelTask({ id, metadata: { reason: 'stop now' } });
      assert.equal(canceled.state, 'canceled');
      assert.equal(canceled.metadata!.state_history!.at(-1)!.reason, 'stop now');
      assert.equal(await work.sawAbort(id).then(() => 'aborted'), 'aborted');
      assert.equal((await followUp).state, 'canceled');
    });

    test('a canceled task ignores what its handler does afterwards', async (t) => {
      const started = deferred();
      const canceled = deferred();
      const afterCancel = deferred();
      const h = await startAgent(kind, {
        handler: async (ctx) => {
          ctx.message('before');
          started.resolve();
          await canceled.promise; // ignores its signal on purpose
          ctx.message('after');
          ctx.artifact({ text: 'late artifact' });
          afterCancel.resolve();
          return 'late result';
        },
      });
      t.after(() => h.close());
      const id = uniqueId();
      const pending = h.client.sendTask(userTask(id, 'stubborn'));
      await started.promise;
      await h.client.cancelTask({ id });
      const result = await pending;
      assert.equal(result.state, 'canceled');
      canceled.resolve();
      await afterCancel.promise;
      // The finished task, as a retry of the submission gets it, holds nothing from after the cancel.
      const later = await h.client.sendTask(userTask(id, 'stubborn'));
      assert.equal(later.state, 'canceled');
      assert.deepEqual(
        later.messages!.map((m) => m.parts[0]!.content),
        ['stubborn', 'before'],
      );
      assert.equal(later.artifacts!.length, 0);
    });

    test('the handler signal carries the cancellation even when the handler first looks after the cancel', async (t) => {
      const gate = deferred();
      const seen = deferred<{ aborted: boolean; reason: unknown }>();
      const started = deferred();
      const h = await startAgent(kind, {
        handler: async (ctx) => {
          started.resolve();
          await gate.promise; // does not touch ctx.signal until after the cancel
          seen.resolve({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
        },
      });
      t.after(() => h.close());
      const id = uniqueId();
      const pending = h.client.sendTask(userTask(id, 'late looker'));
      await started.promise;
      await h.client.cancelTask({ id, metadata: { reason: 'stop now' } });
      await pending;
      gate.resolve();
      const { aborted: wasAborted, reason } = await seen.promise;
      assert.equal(wasAborted, true);
      assert.equal((reason as Error).name, 'TaskCanceledError');
      assert.equal((reason as Error).message, 'stop now');
    });

    test('with an authenticator only the submitting principal can cancel; another gets the 404 an unknown id gets', async (t) => {
      const work = blockingHandler();
      const h = await startAgent(
        kind,
        { handler: work.handler, authenticator: twoPrincipals },
        { authenticator: twoPrincipals, credentials: 'alice' },
      );
      t.after(() => {
        work.release.resolve('released by cleanup');
        return h.close();
      });
      const bob = await h.newClient({ authenticator: twoPrincipals, credentials: 'bob' });
      const id = uniqueId();
      const pending = h.client.sendTask(userTask(id, 'alice only'));
      await work.started(id);
      const refused = await rejectsWithStatus(bob.cancelTask({ id, metadata: { reason: 'not mine' } }), 404, 'not_found');
      const unknown = await rejectsWithStatus(bob.cancelTask({ id: uniqueId() }), 404, 'not_found');
      assert.equal(refused.message, unknown.message);
      const aliceAgain = await h.newClient({ authenticator: twoPrincipals, credentials: 'alice' });
      const canceled = await aliceAgain.cancelTask({ id, metadata: { reason: 'mine' } });
      assert.equal(canceled.state, 'canceled');
      assert.equal(canceled.metadata!.state_history!.at(-1)!.reason, 'mine');
      assert.equal((await pending).state, 'canceled');
    });

    test('with an authenticator a task waiting for input is cancelable by its principal only', async (t) => {
      const h = await startAgent(
        kind,
        { handler: () => needsInput('Which city?'), authenticator: twoPrincipals },
        {
          authenticator: twoPrincipals,
          credentials: 'alice',
        },
      );
      t.after(() => h.close());
      const bob = await h.newClient({ authenticator: twoPrincipals, credentials: 'bob' });
      const id = uniqueId();
      assert.equal((await h.client.sendTask(userTask(id, 'book a trip'))).state, 'input-required');
      await rejectsWithStatus(bob.cancelTask({ id }), 404, 'not_found');
      assert.equal((await h.client.cancelTask({ id })).state, 'canceled');
    });
  });
}

/** Accepts the credentials `alice` and `bob`, each its own principal. */
const twoPrincipals: Authenticator = {
  scheme: { type: 'apiKey', scheme: null, description: 'test keys', metadata: {} },
  authenticate: async (credentials) => {
    if (credentials !== 'alice' && credentials !== 'bob') throw new Error('Invalid API key');
    return { principal_id: `principal-${credentials}`, token: credentials, expires_at: null, metadata: {} };
  },
  refreshToken: async (context) => context,
};
