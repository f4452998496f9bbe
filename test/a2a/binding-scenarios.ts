// The scenarios of the binding-equivalence table: each is a short conversation with an agent
// through one binding's caller (binding-columns.ts), summed up in a value without the ids and
// times that differ from run to run. Every binding must give every scenario's `expected`
// (A2A 1.0 section 5.1: the bindings are functionally equivalent). A scenario's requests carry a
// tenant of their own, so scenarios sharing an agent never see each other's tasks.
import { needsInput, type AgentHandler } from '../../src/agent/handler.js';
import type { A2aCaller, Outcome } from './binding-columns.js';

/** Echo, except `wait` (runs until canceled) and `ask` (asks a question first). */
export const scenarioHandler: AgentHandler = async ({ input, signal, task }) => {
  if (input === 'wait') {
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    return 'stopped';
  }
  if (input === 'ask' && (task.messages?.length ?? 0) === 1) return needsInput('which city?');
  return `echo: ${input}`;
};

export interface Scenario {
  readonly name: string;
  run(call: A2aCaller, tenant: string): Promise<unknown>;
  readonly expected: unknown;
}

let counter = 0;
function message(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `scenario-${++counter}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** The answer of a call that must succeed. */
function ok(outcome: Outcome): any {
  if (!('ok' in outcome)) throw new Error(`expected an answer, got ${JSON.stringify(outcome)}`);
  return outcome.ok;
}

/** A task without what differs between runs: its state, artifact texts and history roles. */
function summary(task: any): unknown {
  return {
    state: task.status?.state,
    statusTexts: (task.status?.message?.parts ?? []).map((part: any) => part.text),
    artifacts: (task.artifacts ?? []).map((artifact: any) => artifact.parts.map((part: any) => part.text)),
    history: (task.history ?? []).map((entry: any) => entry.role),
  };
}

const sent = (call: A2aCaller, tenant: string, text: string, extra: Record<string, unknown> = {}) =>
  call('SendMessage', { tenant, message: message(text), ...extra }).then((outcome) => ok(outcome).task);

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'a blocking message completes with the echo as its artifact',
    run: async (call, tenant) => summary(await sent(call, tenant, 'hello')),
    expected: {
      state: 'TASK_STATE_COMPLETED',
      statusTexts: ['echo: hello'],
      artifacts: [['echo: hello']],
      history: ['ROLE_USER', 'ROLE_AGENT'],
    },
  },
  {
    name: 'GetTask with historyLength 1 keeps the latest message',
    run: async (call, tenant) => {
      const task = await sent(call, tenant, 'hi');
      return summary(ok(await call('GetTask', { tenant, id: task.id, historyLength: 1 })));
    },
    expected: { state: 'TASK_STATE_COMPLETED', statusTexts: ['echo: hi'], artifacts: [['echo: hi']], history: ['ROLE_AGENT'] },
  },
  {
    // Which task is on which page is not asserted: two tasks finished in the same millisecond
    // are ordered by their (random) ids.
    name: 'ListTasks pages: every task once, totalSize, a token until the last page',
    run: async (call, tenant) => {
      for (const text of ['one', 'two', 'three']) await sent(call, tenant, text);
      const first = ok(await call('ListTasks', { tenant, pageSize: 2 }));
      const second = ok(await call('ListTasks', { tenant, pageSize: 2, pageToken: first.nextPageToken }));
      const texts = (page: any) => page.tasks.map((task: any) => task.status.message.parts[0].text);
      return {
        sizes: [first.tasks.length, second.tasks.length],
        all: [...texts(first), ...texts(second)].sort(),
        total: first.totalSize,
        more: first.nextPageToken !== '',
        last: second.nextPageToken,
      };
    },
    expected: { sizes: [2, 1], all: ['echo: one', 'echo: three', 'echo: two'], total: 3, more: true, last: '' },
  },
  {
    name: 'ListTasks filters by status and context, artifacts only when asked',
    run: async (call, tenant) => {
      const task = await sent(call, tenant, 'a');
      await sent(call, tenant, 'b');
      const byContext = ok(await call('ListTasks', { tenant, contextId: task.contextId }));
      const working = ok(await call('ListTasks', { tenant, status: 'TASK_STATE_WORKING' }));
      const withArtifacts = ok(await call('ListTasks', { tenant, includeArtifacts: true, pageSize: 1 }));
      return {
        byContext: byContext.tasks.length,
        working: working.tasks.length,
        artifacts: withArtifacts.tasks[0].artifacts.length,
        noArtifacts: byContext.tasks[0].artifacts,
      };
    },
    expected: { byContext: 1, working: 0, artifacts: 1, noArtifacts: undefined },
  },
  {
    name: 'returnImmediately answers while the task works; CancelTask cancels it with the reason; again is not cancelable',
    run: async (call, tenant) => {
      const task = await sent(call, tenant, 'wait', { configuration: { returnImmediately: true } });
      const canceled = ok(await call('CancelTask', { tenant, id: task.id, metadata: { reason: 'enough' } }));
      return {
        started: task.status.state,
        canceled: canceled.status.state,
        reason: canceled.metadata.state_history.at(-1).reason,
        again: await call('CancelTask', { tenant, id: task.id }),
      };
    },
    expected: {
      started: 'TASK_STATE_WORKING',
      canceled: 'TASK_STATE_CANCELED',
      reason: 'enough',
      again: { error: { reason: 'TASK_NOT_CANCELABLE' } },
    },
  },
  {
    name: 'a follow-up continues a task waiting for input; one to the finished task is refused',
    run: async (call, tenant) => {
      const asked = await sent(call, tenant, 'ask');
      const answered = ok(
        await call('SendMessage', { tenant, message: message('Paris', { taskId: asked.id, contextId: asked.contextId }) }),
      );
      const again = await call('SendMessage', { tenant, message: message('again', { taskId: asked.id }) });
      return { asked: summary(asked), answered: answered.task.status.state, again };
    },
    expected: {
      asked: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        statusTexts: ['which city?'],
        artifacts: [],
        history: ['ROLE_USER', 'ROLE_AGENT'],
      },
      answered: 'TASK_STATE_COMPLETED',
      again: { error: { reason: 'UNSUPPORTED_OPERATION' } },
    },
  },
  {
    name: 'a task is found only in its own tenant',
    run: async (call, tenant) => {
      const task = await sent(call, tenant, 'mine');
      return {
        own: (ok(await call('GetTask', { tenant, id: task.id })) as any).id === task.id,
        other: await call('GetTask', { tenant: `${tenant}-other`, id: task.id }),
      };
    },
    expected: { own: true, other: { error: { reason: 'TASK_NOT_FOUND' } } },
  },
  {
    name: 'errors: unknown task, no parts, bad page size, bad history length, push configs of an unknown task, no extended card',
    run: async (call, tenant) => ({
      unknown: await call('GetTask', { tenant, id: 'no-such-task' }),
      cancelUnknown: await call('CancelTask', { tenant, id: 'no-such-task' }),
      noParts: await call('SendMessage', { tenant, message: message('x', { parts: [] }) }),
      pageSize: await call('ListTasks', { tenant, pageSize: 0 }),
      history: await call('GetTask', { tenant, id: 'x', historyLength: -1 }),
      push: await call('GetTaskPushNotificationConfig', { tenant, taskId: 't', id: 'c' }),
      pushList: await call('ListTaskPushNotificationConfigs', { tenant, taskId: 't' }),
      card: await call('GetExtendedAgentCard', { tenant }),
    }),
    expected: {
      unknown: { error: { reason: 'TASK_NOT_FOUND' } },
      cancelUnknown: { error: { reason: 'TASK_NOT_FOUND' } },
      noParts: { error: { reason: 'INVALID_PARAMS', field: '/message/parts' } },
      pageSize: { error: { reason: 'INVALID_PARAMS', field: '/pageSize' } },
      history: { error: { reason: 'INVALID_PARAMS', field: '/historyLength' } },
      push: { error: { reason: 'TASK_NOT_FOUND' } },
      pushList: { error: { reason: 'TASK_NOT_FOUND' } },
      card: { error: { reason: 'UNSUPPORTED_OPERATION' } },
    },
  },
  {
    // A binding whose wire is not JSON (gRPC's binary protobuf) cannot send these at all: its
    // column says so (NotExpressible) and the scenario is skipped there.
    name: 'errors JSON can carry: an unknown field, a field of the wrong type',
    run: async (call, tenant) => ({
      unknownField: await call('SendMessage', { tenant, message: { ...message('x'), bogus: true } }),
      wrongType: await call('SendMessage', { tenant, message: { ...message('x'), messageId: 7 } }),
    }),
    expected: {
      unknownField: { error: { reason: 'INVALID_PARAMS', field: '/message/bogus' } },
      wrongType: { error: { reason: 'INVALID_PARAMS', field: '/message/messageId' } },
    },
  },
];
