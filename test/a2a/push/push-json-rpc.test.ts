// A2A push notifications over the JSON-RPC binding, driven by the official SDK's client
// (@a2a-js/sdk) and by raw calls, with real webhook receivers on 127.0.0.1 (allowed by the
// agent's options, as an operator would): the card declares them; a config registered with
// SendMessage or CreateTaskPushNotificationConfig gets the task's changes as StreamResponses
// with its token and authentication; Get, List and Delete; errors per the A2A specification
// (-32001 for a task or config the caller cannot see, -32602 naming a bad field, -32003 when
// push notifications are off) and the SSRF guard refusing a loopback webhook by default.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { needsInput, type AgentHandler } from '../../../src/agent/handler.js';
import { AgentServer, type AgentServerOptions } from '../../../src/agent/agent-server.js';
import { ConfigError, InvalidArgumentError } from '../../../src/core/errors.js';
import type { A2aPushOptions } from '../../../src/a2a/push/push-notifications.js';
import type { PushOutcome } from '../../../src/a2a/push/push-delivery.js';
import { call, startA2aAgent } from '../support.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const ROLE_USER = 1;

/** Echo, except `ask` (asks a question first) and `wait` (runs until canceled). */
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

function rawMessage(text: string, extra: Record<string, unknown> = {}) {
  return { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

const open: A2aPushOptions = { allowPrivate: true, allowHttp: true, initialBackoffMs: 1 };

async function agent(t: { after(fn: () => unknown): void }, push: AgentServerOptions['a2aPush'] = open) {
  const outcomes: PushOutcome[] = [];
  const options = typeof push === 'object' ? { ...push, onOutcome: (outcome: PushOutcome) => outcomes.push(outcome) } : push;
  const started = await startA2aAgent(t, { handler, a2aPush: options });
  return { ...started, outcomes, client: (): Promise<Client> => new ClientFactory().createFromUrl(started.url) };
}

/** The JSON bodies the receiver got, in order. */
function bodies(receiver: WebhookReceiver): any[] {
  return receiver.calls.map((received) => JSON.parse(received.body));
}

/** A short description of each StreamResponse: `status:STATE` or `artifact:TEXT`. */
function described(payloads: any[]): string[] {
  return payloads.map((payload) =>
    payload.statusUpdate
      ? `status:${payload.statusUpdate.status.state}`
      : `artifact:${payload.artifactUpdate.artifact.parts[0].text}`,
  );
}

describe('A2A push notifications over JSON-RPC', () => {
  test('the card declares push notifications; a2aPush: false declares them off and the methods answer -32003', async (t) => {
    const on = await agent(t);
    const card: any = await (await fetch(`${on.url}/.well-known/agent-card.json`)).json();
    assert.equal(card.capabilities.pushNotifications, true);
    const off = await agent(t, false);
    const offCard: any = await (await fetch(`${off.url}/.well-known/agent-card.json`)).json();
    assert.equal(offCard.capabilities.pushNotifications, false);
    for (const [method, params] of [
      ['CreateTaskPushNotificationConfig', { taskId: 't', url: 'https://hooks.example/' }],
      ['GetTaskPushNotificationConfig', { taskId: 't', id: 'c' }],
      ['ListTaskPushNotificationConfigs', { taskId: 't' }],
      ['DeleteTaskPushNotificationConfig', { taskId: 't', id: 'c' }],
      [
        'SendMessage',
        { message: rawMessage('hi'), configuration: { taskPushNotificationConfig: { url: 'https://hooks.example/' } } },
      ],
    ] as const) {
      const answer = await call(off.url, method, params);
      assert.equal(answer.error?.code, -32003, method);
      assert.equal(answer.error.data[0].reason, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    }
  });

  test('the SDK client registers a webhook with SendMessage: working, the artifact, then completed, with the token', async (t) => {
    const receiver = await startWebhookReceiver(t);
    const { client, outcomes } = await agent(t);
    const sdk = await client();
    const task: any = await sdk.sendMessage({
      message: message('hello'),
      configuration: {
        taskPushNotificationConfig: {
          url: `${receiver.origin}/hook`,
          token: 'tok-1',
          authentication: { scheme: 'Bearer', credentials: 'c-1' },
        },
      },
    } as any);
    await receiver.nth(3);
    assert.deepEqual(described(bodies(receiver)), [
      'status:TASK_STATE_WORKING',
      'artifact:echo: hello',
      'status:TASK_STATE_COMPLETED',
    ]);
    for (const payload of bodies(receiver)) {
      const event = payload.statusUpdate ?? payload.artifactUpdate;
      assert.equal(event.taskId, task.id);
      assert.equal(event.contextId, task.contextId);
    }
    assert.equal(receiver.calls[0]!.headers['x-a2a-notification-token'], 'tok-1');
    assert.equal(receiver.calls[0]!.headers.authorization, 'Bearer c-1');
    assert.equal(receiver.calls[0]!.headers['content-type'], 'application/a2a+json');
    assert.equal(bodies(receiver)[2].statusUpdate.status.message.parts[0].text, 'echo: hello');
    while (outcomes.length < 3) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      outcomes.map((outcome) => outcome.result),
      ['delivered', 'delivered', 'delivered'],
    );
    const listed: any = await sdk.listTaskPushNotificationConfig({ taskId: task.id } as any);
    assert.equal(listed.configs.length, 1);
    assert.equal(listed.configs[0].url, `${receiver.origin}/hook`);
  });

  test('the SDK client creates, gets, lists and deletes a config on a task waiting for input; the follow-up is pushed', async (t) => {
    const receiver = await startWebhookReceiver(t);
    const { client } = await agent(t);
    const sdk = await client();
    const asked: any = await sdk.sendMessage({ message: message('ask') } as any);
    const created: any = await sdk.createTaskPushNotificationConfig({
      taskId: asked.id,
      id: 'mine',
      url: `${receiver.origin}/a`,
      token: 't',
    } as any);
    assert.deepEqual([created.id, created.taskId, created.url, created.token], ['mine', asked.id, `${receiver.origin}/a`, 't']);
    const made: any = await sdk.createTaskPushNotificationConfig({ taskId: asked.id, url: `${receiver.origin}/b` } as any);
    assert.match(made.id, /^[0-9a-f-]{36}$/, 'an id is made when none is given');
    const got: any = await sdk.getTaskPushNotificationConfig({ taskId: asked.id, id: 'mine' } as any);
    assert.equal(got.url, `${receiver.origin}/a`);
    const listed: any = await sdk.listTaskPushNotificationConfig({ taskId: asked.id } as any);
    assert.deepEqual(listed.configs.map((config: any) => config.id).sort(), [made.id, 'mine'].sort());
    await sdk.deleteTaskPushNotificationConfig({ taskId: asked.id, id: made.id } as any);
    await sdk.deleteTaskPushNotificationConfig({ taskId: asked.id, id: made.id } as any);
    await assert.rejects(
      sdk.getTaskPushNotificationConfig({ taskId: asked.id, id: made.id } as any),
      (error) => error instanceof TaskNotFoundError,
    );
    await sdk.sendMessage({ message: message('Paris', { taskId: asked.id, contextId: asked.contextId }) } as any);
    await receiver.nth(3);
    assert.deepEqual(
      receiver.calls.map((received) => received.path),
      ['/a', '/a', '/a'],
    );
    assert.deepEqual(described(bodies(receiver)), [
      'status:TASK_STATE_WORKING',
      'artifact:echo: Paris',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  test('two follow-ups in one batch, each with a webhook: one runs; the other is refused and adds nothing', async (t) => {
    // Storing the webhook is awaited before the follow-up's message is added. Before, the task
    // was claimed only after that, so the batch's second follow-up (read meanwhile) also passed
    // the check, added its message to the first one's run, and was then refused as a second run.
    const receiver = await startWebhookReceiver(t);
    const { url } = await agent(t);
    const asked = (await call(url, 'SendMessage', { message: rawMessage('ask') })).result.task;
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const followUp = (id: number, text: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'SendMessage',
      params: {
        message: rawMessage(text, { taskId: asked.id }),
        configuration: { taskPushNotificationConfig: { url: `${receiver.origin}/${text}` } },
      },
    });
    const response = await fetch(`${url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify([followUp(1, 'Paris'), followUp(2, 'Rome')]),
    });
    const answers = ((await response.json()) as any[]).sort((a, b) => a.id - b.id);
    assert.equal(answers[0].result?.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(answers[0]));
    const history = (await call(url, 'GetTask', { id: asked.id })).result.history.map((item: any) => item.parts[0].text);
    assert.deepEqual(history, ['ask', 'which city?', 'Paris', 'echo: Paris']);
    assert.equal(answers[1].error?.code, -32004, JSON.stringify(answers[1]));
    assert.match(answers[1].error.message, /still working/);
  });

  test('canceling a task waiting for input pushes its canceled status', async (t) => {
    const receiver = await startWebhookReceiver(t);
    const { url } = await agent(t);
    const asked = (await call(url, 'SendMessage', { message: rawMessage('ask') })).result.task;
    await call(url, 'CreateTaskPushNotificationConfig', { taskId: asked.id, url: `${receiver.origin}/` });
    assert.equal((await call(url, 'CancelTask', { id: asked.id })).result.status.state, 'TASK_STATE_CANCELED');
    await receiver.nth(1);
    assert.deepEqual(described(bodies(receiver)), ['status:TASK_STATE_CANCELED']);
  });

  test('canceling a running task pushes its end: canceled', async (t) => {
    const receiver = await startWebhookReceiver(t);
    const { url } = await agent(t);
    const started = (
      await call(url, 'SendMessage', {
        message: rawMessage('wait'),
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.origin}/` } },
      })
    ).result.task;
    await receiver.nth(1);
    await call(url, 'CancelTask', { id: started.id });
    await receiver.nth(2);
    assert.deepEqual(described(bodies(receiver)), ['status:TASK_STATE_WORKING', 'status:TASK_STATE_CANCELED']);
  });

  test('errors: unknown task -32001; a missing or bad field -32602 naming it; a config of an unknown id -32001', async (t) => {
    const { url } = await agent(t);
    const task = (await call(url, 'SendMessage', { message: rawMessage('ask') })).result.task;
    const rows: [string, unknown, number, string?][] = [
      ['CreateTaskPushNotificationConfig', { taskId: 'no-such-task', url: 'https://hooks.example/' }, -32001],
      ['CreateTaskPushNotificationConfig', { url: 'https://hooks.example/' }, -32602, '/params/taskId'],
      ['CreateTaskPushNotificationConfig', { taskId: task.id }, -32602, '/params/url'],
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: 'not a url' }, -32602, '/params/url'],
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: 'ftp://hooks.example/' }, -32602, '/params/url'],
      [
        'CreateTaskPushNotificationConfig',
        { taskId: task.id, url: 'https://h.example/', token: 'a\nb' },
        -32602,
        '/params/token',
      ],
      [
        'CreateTaskPushNotificationConfig',
        { taskId: task.id, url: 'https://h.example/', authentication: { scheme: 'Bearer' } },
        -32602,
        '/params/authentication/credentials',
      ],
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://h.example/', extra: 1 }, -32602, '/params/extra'],
      ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'nope' }, -32001],
      ['GetTaskPushNotificationConfig', { taskId: task.id }, -32602, '/params/id'],
      ['ListTaskPushNotificationConfigs', { taskId: 'no-such-task' }, -32001],
      ['ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: -1 }, -32602, '/params/pageSize'],
      ['ListTaskPushNotificationConfigs', { taskId: task.id, pageToken: '***' }, -32602, '/params/pageToken'],
      ['DeleteTaskPushNotificationConfig', { taskId: 'no-such-task', id: 'c' }, -32001],
      ['DeleteTaskPushNotificationConfig', { taskId: task.id }, -32602, '/params/id'],
      [
        'SendMessage',
        {
          message: rawMessage('hi'),
          configuration: { taskPushNotificationConfig: { url: 'https://h.example/', taskId: 'other' } },
        },
        -32602,
        '/params/configuration/taskPushNotificationConfig/taskId',
      ],
      [
        'SendMessage',
        { message: rawMessage('hi'), configuration: { taskPushNotificationConfig: { url: 'nope' } } },
        -32602,
        '/params/configuration/taskPushNotificationConfig/url',
      ],
    ];
    for (const [method, params, code, field] of rows) {
      const answer = await call(url, method, params);
      assert.equal(answer.error?.code, code, `${method} ${JSON.stringify(params)}: ${JSON.stringify(answer)}`);
      if (field) assert.equal(answer.error.data[0].metadata.field, field, JSON.stringify(answer.error));
    }
    // A refused SendMessage created no task.
    assert.equal((await call(url, 'ListTasks', {})).result.totalSize, 1);
  });

  test('List pages through the configs by pageSize and pageToken', async (t) => {
    const { url } = await agent(t);
    const task = (await call(url, 'SendMessage', { message: rawMessage('ask') })).result.task;
    for (const id of ['c', 'a', 'b'])
      await call(url, 'CreateTaskPushNotificationConfig', { taskId: task.id, id, url: 'https://h.example/' });
    const first = (await call(url, 'ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: 2 })).result;
    assert.deepEqual(
      first.configs.map((config: any) => config.id),
      ['a', 'b'],
    );
    const rest = (
      await call(url, 'ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: 2, pageToken: first.nextPageToken })
    ).result;
    assert.deepEqual(
      rest.configs.map((config: any) => config.id),
      ['c'],
    );
    assert.equal(rest.nextPageToken ?? '', '');
  });

  test('a task holds at most maxConfigsPerTask configs: one more is -32603 naming the bound', async (t) => {
    const { url } = await agent(t, { ...open, maxConfigsPerTask: 1 });
    const task = (await call(url, 'SendMessage', { message: rawMessage('ask') })).result.task;
    await call(url, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'one', url: 'https://h.example/' });
    const answer = await call(url, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'two', url: 'https://h.example/' });
    assert.equal(answer.error.code, -32603);
    assert.deepEqual(answer.error.data[0].metadata, { limit: 'task', bound: '1' });
    assert.equal(
      (await call(url, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'one', url: 'https://h.example/2' })).result
        .url,
      'https://h.example/2',
      'replacing is not adding',
    );
  });

  test('by default a loopback or http webhook is refused when it is registered', async (t) => {
    const { url } = await agent(t, true);
    const task = (await call(url, 'SendMessage', { message: rawMessage('ask') })).result.task;
    for (const [hook, problem] of [
      ['https://127.0.0.1:9/', /loopback/],
      ['https://[::1]:9/', /loopback/],
      ['https://169.254.169.254/latest', /link-local/],
      ['http://hooks.example/', /https URL/],
    ] as const) {
      const answer = await call(url, 'CreateTaskPushNotificationConfig', { taskId: task.id, url: hook });
      assert.equal(answer.error?.code, -32602, hook);
      assert.match(answer.error.message, problem);
    }
  });

  test('a name that resolves to loopback is refused when the call connects, and the task is not held up', async (t) => {
    const receiver = await startWebhookReceiver(t);
    const { url, outcomes } = await agent(t, {
      allowHttp: true,
      resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    const answer = await call(url, 'SendMessage', {
      message: rawMessage('hello'),
      configuration: { taskPushNotificationConfig: { url: `http://hooks.example:${receiver.port}/` } },
    });
    assert.equal(answer.result.task.status.state, 'TASK_STATE_COMPLETED');
    while (outcomes.length < 3) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(outcomes.every((outcome) => outcome.result === 'failed' && outcome.refused));
    assert.equal(receiver.calls.length, 0);
  });

  test("another principal's task and configs are not found", async (t) => {
    const { url } = await agent(t);
    const task = (await call(url, 'SendMessage', { message: rawMessage('ask'), tenant: 'acme' })).result.task;
    await call(url, 'CreateTaskPushNotificationConfig', { tenant: 'acme', taskId: task.id, id: 'c', url: 'https://h.example/' });
    assert.equal((await call(url, 'GetTaskPushNotificationConfig', { tenant: 'acme', taskId: task.id, id: 'c' })).result.id, 'c');
    for (const [method, params] of [
      ['GetTaskPushNotificationConfig', { tenant: 'other', taskId: task.id, id: 'c' }],
      ['ListTaskPushNotificationConfigs', { tenant: 'other', taskId: task.id }],
      ['DeleteTaskPushNotificationConfig', { tenant: 'other', taskId: task.id, id: 'c' }],
      ['CreateTaskPushNotificationConfig', { tenant: 'other', taskId: task.id, url: 'https://h.example/' }],
    ] as const) {
      assert.equal((await call(url, method, params)).error?.code, -32001, method);
    }
    assert.equal((await call(url, 'GetTaskPushNotificationConfig', { tenant: 'acme', taskId: task.id, id: 'c' })).result.id, 'c');
  });

  test('a2aPush is checked when the server is built', () => {
    assert.throws(() => new AgentServer({ name: 'x', a2aPush: true }), InvalidArgumentError, 'without a2a');
    for (const [options, field] of [
      [{ allow: ['10.0.0.0/99'] }, 'a2a push allow'],
      [{ maxAttempts: 0 }, 'a2aPush.maxAttempts'],
      [{ attemptTimeoutMs: 1.5 }, 'a2aPush.attemptTimeoutMs'],
      [{ maxConfigsPerTask: -1 }, 'a2aPush.maxConfigsPerTask'],
    ] as const) {
      assert.throws(
        () => new AgentServer({ name: 'x', a2a: true, a2aPush: options as never }),
        (error: unknown) => error instanceof ConfigError && error.field === field,
        JSON.stringify(options),
      );
    }
  });
});
