// The official A2A SDK's client (@a2a-js/sdk, A2A 1.0) driving a parley agent with `a2a: true`:
// card resolution, SendMessage blocking and with returnImmediately, GetTask, ListTasks,
// CancelTask, a follow-up to a task waiting for input, and errors decoded as the SDK's classes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { needsInput, type AgentHandler } from '../../src/agent/handler.js';
import { startA2aAgent } from '../a2a/support.js';

const ROLE_USER = 1;
const STATE = { WORKING: 2, COMPLETED: 3, CANCELED: 5, INPUT_REQUIRED: 6 } as const;

/** Echo, except `wait` (runs until canceled) and `ask` (asks a question first). */
const handler: AgentHandler = async ({ input, signal, task }) => {
  if (input === 'wait') {
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    return 'stopped';
  }
  if (input === 'ask' && (task.messages?.length ?? 0) === 1) return needsInput('which city?');
  return `echo: ${input}`;
};

function message(text: string, extra: Record<string, unknown> = {}): any {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    role: ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }],
    ...extra,
  };
}

async function sdkClient(t: { after(fn: () => unknown): void }): Promise<Client> {
  const { url } = await startA2aAgent(t, { handler });
  return new ClientFactory().createFromUrl(url);
}

function textsOf(parts: any[] | undefined): string[] {
  return (parts ?? []).filter((part) => part.content?.$case === 'text').map((part) => part.content.value);
}

describe('the @a2a-js/sdk client against a parley agent', () => {
  test('resolves the card and sends a blocking message: the completed task with its artifact', async (t) => {
    const client = await sdkClient(t);
    const result: any = await client.sendMessage({ message: message('hello') } as any);
    assert.equal(result.status.state, STATE.COMPLETED);
    assert.deepEqual(textsOf(result.artifacts[0].parts), ['echo: hello']);
    assert.ok(result.contextId, 'a context id is assigned');
    const fetched: any = await client.getTask({ id: result.id } as any);
    assert.equal(fetched.id, result.id);
    assert.equal(fetched.status.state, STATE.COMPLETED);
  });

  test('returnImmediately answers while the task works; CancelTask stops it; a second cancel is TaskNotCancelableError', async (t) => {
    const client = await sdkClient(t);
    const started: any = await client.sendMessage({
      message: message('wait'),
      configuration: { returnImmediately: true },
    } as any);
    assert.equal(started.status.state, STATE.WORKING);
    assert.equal(((await client.getTask({ id: started.id } as any)) as any).status.state, STATE.WORKING);
    const canceled: any = await client.cancelTask({ id: started.id, metadata: { reason: 'enough' } } as any);
    assert.equal(canceled.status.state, STATE.CANCELED);
    const history = canceled.metadata.state_history as { state: string; reason?: string }[];
    assert.equal(history.at(-1)!.reason, 'enough', 'the reason reaches the native cancellation');
    await assert.rejects(client.cancelTask({ id: started.id } as any), (error) => error instanceof TaskNotCancelableError);
  });

  test("ListTasks lists the caller's tasks, newest status first", async (t) => {
    const client = await sdkClient(t);
    const first: any = await client.sendMessage({ message: message('one') } as any);
    const second: any = await client.sendMessage({ message: message('two') } as any);
    const listed: any = await client.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 10, pageToken: '' } as any);
    assert.equal(listed.totalSize, 2);
    assert.deepEqual(new Set(listed.tasks.map((task: any) => task.id)), new Set([first.id, second.id]));
    assert.equal(listed.nextPageToken, '');
  });

  test('a follow-up to a task waiting for input continues it; one to a finished task is UnsupportedOperationError', async (t) => {
    const client = await sdkClient(t);
    const asked: any = await client.sendMessage({ message: message('ask') } as any);
    assert.equal(asked.status.state, STATE.INPUT_REQUIRED);
    assert.deepEqual(textsOf(asked.status.message.parts), ['which city?']);
    const answered: any = await client.sendMessage({
      message: message('Paris', { taskId: asked.id, contextId: asked.contextId }),
    } as any);
    assert.equal(answered.id, asked.id);
    assert.equal(answered.status.state, STATE.COMPLETED);
    await assert.rejects(
      client.sendMessage({ message: message('again', { taskId: asked.id }) } as any),
      (error) => error instanceof UnsupportedOperationError,
    );
  });

  test('an unknown task is TaskNotFoundError', async (t) => {
    const client = await sdkClient(t);
    await assert.rejects(client.getTask({ id: 'no-such-task' } as any), (error) => error instanceof TaskNotFoundError);
    await assert.rejects(client.cancelTask({ id: 'no-such-task' } as any), (error) => error instanceof TaskNotFoundError);
  });
});
