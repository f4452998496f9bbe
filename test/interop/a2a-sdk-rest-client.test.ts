// The official A2A SDK's client (@a2a-js/sdk, A2A 1.0) over its HTTP+JSON transport, driving a
// parley agent with `a2a: true`: the client finds the HTTP+JSON interface on parley's card and
// calls every method through it (SendMessage blocking and with returnImmediately, GetTask,
// ListTasks, CancelTask, a follow-up, a tenant), and reads parley's refusals as the SDK's own
// error classes with their HTTP status. (The SDK refuses push-config calls itself while the card
// says pushNotifications false; test/a2a/rest-binding.test.ts sends them raw.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory, ClientFactoryOptions, type Client } from '@a2a-js/sdk/client';
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

/** The SDK's client, told to prefer HTTP+JSON (its default is the card's first interface, JSON-RPC). */
async function restClient(t: { after(fn: () => unknown): void }): Promise<{ client: Client; url: string }> {
  const { url } = await startA2aAgent(t, { handler });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }),
  );
  // Requests that reach the root (JSON-RPC) would answer too: the test checks none does.
  const client = await factory.createFromUrl(url);
  return { client, url };
}

/** The HTTP status the SDK's REST errors carry. */
function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

function textsOf(parts: any[] | undefined): string[] {
  return (parts ?? []).filter((part) => part.content?.$case === 'text').map((part) => part.content.value);
}

describe('the @a2a-js/sdk client over HTTP+JSON against a parley agent', () => {
  test('the card offers HTTP+JSON under /a2a/rest, and the client speaks it', async (t) => {
    const { client, url } = await restClient(t);
    const card: any = await client.getAgentCard();
    const rest = card.supportedInterfaces.find((entry: any) => entry.protocolBinding === 'HTTP+JSON');
    assert.equal(rest.url, `${url}/a2a/rest`);
    assert.equal(rest.protocolVersion, '1.0');
    assert.equal((client as any).transport.protocolName, 'HTTP+JSON');
  });

  test('a blocking message: the completed task with its artifact; GetTask finds it, with historyLength', async (t) => {
    const { client } = await restClient(t);
    const result: any = await client.sendMessage({ message: message('hello') } as any);
    assert.equal(result.status.state, STATE.COMPLETED);
    assert.deepEqual(textsOf(result.artifacts[0].parts), ['echo: hello']);
    const fetched: any = await client.getTask({ id: result.id, historyLength: 1 } as any);
    assert.equal(fetched.id, result.id);
    assert.equal(fetched.status.state, STATE.COMPLETED);
    assert.equal(fetched.history.length, 1, 'historyLength travels in the query');
  });

  test('returnImmediately answers while the task works; CancelTask stops it; a second cancel is TaskNotCancelableError (400)', async (t) => {
    const { client } = await restClient(t);
    const started: any = await client.sendMessage({
      message: message('wait'),
      configuration: { returnImmediately: true },
    } as any);
    assert.equal(started.status.state, STATE.WORKING);
    const canceled: any = await client.cancelTask({ id: started.id } as any);
    assert.equal(canceled.status.state, STATE.CANCELED);
    await assert.rejects(
      client.cancelTask({ id: started.id } as any),
      (error: any) => error instanceof TaskNotCancelableError && statusOf(error) === 400,
    );
  });

  test("ListTasks lists the caller's tasks with its filters in the query", async (t) => {
    const { client } = await restClient(t);
    const first: any = await client.sendMessage({ message: message('one') } as any);
    const second: any = await client.sendMessage({ message: message('two') } as any);
    const listed: any = await client.listTasks({ pageSize: 10, status: STATE.COMPLETED, includeArtifacts: true } as any);
    assert.equal(listed.totalSize, 2);
    assert.deepEqual(new Set(listed.tasks.map((task: any) => task.id)), new Set([first.id, second.id]));
    assert.equal(listed.nextPageToken, '');
    const byContext: any = await client.listTasks({ contextId: first.contextId } as any);
    assert.deepEqual(
      byContext.tasks.map((task: any) => task.id),
      [first.id],
    );
  });

  test('a tenant travels as the path prefix: its tasks are its own', async (t) => {
    const { client } = await restClient(t);
    const made: any = await client.sendMessage({ tenant: 'acme', message: message('hi') } as any);
    assert.equal(((await client.getTask({ tenant: 'acme', id: made.id } as any)) as any).id, made.id);
    await assert.rejects(client.getTask({ id: made.id } as any), (error) => error instanceof TaskNotFoundError);
    const listed: any = await client.listTasks({ tenant: 'acme' } as any);
    assert.deepEqual(
      listed.tasks.map((task: any) => task.id),
      [made.id],
    );
  });

  test('a follow-up continues a task waiting for input; one to a finished task is UnsupportedOperationError', async (t) => {
    const { client } = await restClient(t);
    const asked: any = await client.sendMessage({ message: message('ask') } as any);
    assert.equal(asked.status.state, STATE.INPUT_REQUIRED);
    const answered: any = await client.sendMessage({
      message: message('Paris', { taskId: asked.id, contextId: asked.contextId }),
    } as any);
    assert.equal(answered.status.state, STATE.COMPLETED);
    await assert.rejects(
      client.sendMessage({ message: message('again', { taskId: asked.id }) } as any),
      (error) => error instanceof UnsupportedOperationError,
    );
  });

  test('an unknown task is TaskNotFoundError with HTTP 404, for get and cancel', async (t) => {
    const { client } = await restClient(t);
    const notFound = (error: any) => error instanceof TaskNotFoundError && statusOf(error) === 404;
    await assert.rejects(client.getTask({ id: 'no-such-task' } as any), notFound);
    await assert.rejects(client.cancelTask({ id: 'no-such-task' } as any), notFound);
  });
});
