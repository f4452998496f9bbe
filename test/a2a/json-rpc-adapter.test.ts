// The A2A 1.0 JSON-RPC route of an agent with `a2a: true` (spec: "A2A 1.0 JSON-RPC", the A2A
// rows of "Errors" and "Versioning"), over real HTTP with every header under the test's
// control: the order of the checks, each bad input's JSON-RPC error, batches and notifications,
// the disabled methods, history and list options, and task scoping by tenant and principal.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { needsInput, type AgentHandler } from '../../src/agent/handler.js';
import { MemoryTaskIndex } from '../../src/stores/memory/memory-task-index.js';
import { call, postRpc, startA2aAgent, userMessage } from './support.js';

const send = (text: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: userMessage(text), ...extra },
});

/** Asserts a JSON-RPC error answer: HTTP 200 (unless said), the code, the id, an ErrorInfo. */
function assertRpcError(answer: { status: number; json: any }, code: number, id: unknown = 1, status = 200): any {
  assert.equal(answer.status, status, `HTTP status ${answer.status}`);
  assert.equal(answer.json?.jsonrpc, '2.0');
  assert.deepEqual(answer.json.id, id);
  assert.equal(answer.json.error?.code, code, JSON.stringify(answer.json));
  const info = answer.json.error.data?.[0];
  assert.equal(info['@type'], 'type.googleapis.com/google.rpc.ErrorInfo');
  assert.equal(info.domain, 'a2a-protocol.org');
  assert.equal(typeof info.reason, 'string');
  return answer.json.error;
}

describe('A2A JSON-RPC: the order of the checks', () => {
  test('a body labelled other than JSON is -32005 before it is read, even when it is not JSON', async (t) => {
    const { url } = await startA2aAgent(t);
    assertRpcError(await postRpc(url, send('hi'), { 'content-type': 'text/plain' }), -32005, null);
    assertRpcError(await postRpc(url, '{not json', { 'content-type': 'application/x-www-form-urlencoded' }), -32005, null);
  });

  test('an unparseable or empty body is -32700 with HTTP 200', async (t) => {
    const { url } = await startA2aAgent(t);
    assertRpcError(await postRpc(url, '{"jsonrpc": "2.0",'), -32700, null);
    assertRpcError(await postRpc(url, ''), -32700, null);
  });

  test('not a JSON-RPC 2.0 request object is -32600', async (t) => {
    const { url } = await startA2aAgent(t);
    for (const body of [
      { id: 1, method: 'GetTask', params: { id: 'x' } },
      { jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 'x' } },
      { jsonrpc: '2.0', id: 1, method: 7 },
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: 'x' },
      '"just a string"',
      '42',
    ]) {
      assertRpcError(
        await postRpc(url, body),
        -32600,
        typeof body === 'object' && 'jsonrpc' in body && body.jsonrpc === '2.0' && typeof body.method === 'string'
          ? 1
          : typeof body === 'object'
            ? 1
            : null,
      );
    }
    // An id that is not a string, a number or null cannot be echoed: the answer's id is null.
    assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: { a: 1 }, method: 'GetTask', params: { id: 'x' } }), -32600, null);
    assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: [1], method: 'GetTask', params: { id: 'x' } }), -32600, null);
  });

  test('an unknown method is -32601, before its params are looked at', async (t) => {
    const { url } = await startA2aAgent(t);
    assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: 'a', method: 'message/send', params: 5 }), -32600, 'a');
    assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: 'a', method: 'message/send', params: { bogus: true } }), -32601, 'a');
  });

  test('bad params are -32602 with a pointer, before the version is checked', async (t) => {
    const { url } = await startA2aAgent(t);
    const error = assertRpcError(
      await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 5 } }, { 'a2a-version': '9.9' }),
      -32602,
    );
    assert.equal(error.data[0].metadata.field, '/params/id');
  });

  test('A2A-Version: 1.0 (and 1.0.x) accepted; absent means 0.3 and, like any other version, is -32009', async (t) => {
    const { url } = await startA2aAgent(t);
    assert.ok((await postRpc(url, send('hi'))).json.result.task);
    assert.ok((await postRpc(url, send('hi'), { 'a2a-version': '1.0.3' })).json.result.task);
    for (const version of ['0.3', '2.0', '1.1', 'one']) {
      assertRpcError(await postRpc(url, send('hi'), { 'a2a-version': version }), -32009);
    }
    const response = await fetch(`${url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(send('hi')),
    });
    assertRpcError({ status: response.status, json: await response.json() }, -32009);
  });
});

describe('A2A JSON-RPC: bad input', () => {
  const cases: [string, string, unknown, string][] = [
    ['wrong param type', 'GetTask', { id: 'x', historyLength: 'lots' }, '/params/historyLength'],
    ['unknown field', 'GetTask', { id: 'x', colour: 'red' }, '/params/colour'],
    ['unknown nested field', 'SendMessage', { message: { ...userMessage('x'), mood: 1 } }, '/params/message/mood'],
    ['huge historyLength', 'GetTask', { id: 'x', historyLength: 1e20 }, '/params/historyLength'],
    ['negative historyLength', 'GetTask', { id: 'x', historyLength: -1 }, '/params/historyLength'],
    ['negative pageSize', 'ListTasks', { pageSize: -5 }, '/params/pageSize'],
    ['absurd pageSize', 'ListTasks', { pageSize: 100000 }, '/params/pageSize'],
    ['pageSize 0 (the minimum is 1)', 'ListTasks', { pageSize: 0 }, '/params/pageSize'],
    ['pageSize 101 (the maximum is 100)', 'ListTasks', { pageSize: 101 }, '/params/pageSize'],
    ['forged pageToken', 'ListTasks', { pageToken: 'MTIzLmFiYw.AAAAAAAAAAAAAAAAAAAAAA' }, '/params/pageToken'],
    ['missing message', 'SendMessage', {}, '/params/message'],
    ['empty parts', 'SendMessage', { message: { ...userMessage('x'), parts: [] } }, '/params/message/parts'],
    [
      'part with no content',
      'SendMessage',
      { message: { ...userMessage('x'), parts: [{ mediaType: 'text/plain' }] } },
      '/params/message/parts/0',
    ],
    [
      'part with two contents',
      'SendMessage',
      { message: { ...userMessage('x'), parts: [{ text: 'a', url: 'http://x' }] } },
      '/params/message/parts/0/url',
    ],
    ['unknown role', 'SendMessage', { message: { ...userMessage('x'), role: 'ROLE_BOSS' } }, '/params/message/role'],
    ['unset role', 'SendMessage', { message: { ...userMessage('x'), role: 'ROLE_UNSPECIFIED' } }, '/params/message/role'],
    ['unknown state filter', 'ListTasks', { status: 'TASK_STATE_SLEEPING' }, '/params/status'],
    ['task id not a string', 'CancelTask', { id: 12 }, '/params/id'],
    ['missing task id', 'GetTask', {}, '/params/id'],
    ['message id not a string', 'SendMessage', { message: { ...userMessage('x'), messageId: 3 } }, '/params/message/messageId'],
    ['params as an array', 'GetTask', ['x'], ''],
  ];
  for (const [name, method, params, pointer] of cases) {
    test(`${name}: -32602 pointing at ${pointer || 'the params'}`, async (t) => {
      const { url } = await startA2aAgent(t);
      const error = assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: 7, method, params }), -32602, 7);
      assert.equal(error.data[0].metadata.field, pointer || '/params');
      // Nothing was taken on: the index is as empty as before.
      assert.equal((await call(url, 'ListTasks', {})).result.totalSize, 0);
    });
  }

  test('a body over max_request_bytes is a JSON-RPC -32600 with HTTP 413', async (t) => {
    const { url } = await startA2aAgent(t, { transportOptions: { limits: { maxRequestBytes: 1024 } } });
    const answer = await postRpc(url, send('x'.repeat(4096)));
    assertRpcError(answer, -32600, null, 413);
    assert.ok((await postRpc(url, send('fits'))).json.result.task, 'the server goes on serving');
  });

  test('a batch of mixed entries gets one answer per request, none for notifications, and runs the valid ones', async (t) => {
    const { url } = await startA2aAgent(t);
    const answer = await postRpc(url, [
      { jsonrpc: '2.0', id: 'ok', method: 'SendMessage', params: { message: userMessage('one') } },
      { jsonrpc: '2.0', id: 'bad', method: 'GetTask', params: { id: 5 } },
      { jsonrpc: '2.0', id: 'none', method: 'Nope' },
      { jsonrpc: '2.0', method: 'SendMessage', params: { message: userMessage('notified') } },
      7,
    ]);
    assert.equal(answer.status, 200);
    const byId = new Map((answer.json as any[]).map((item) => [JSON.stringify(item.id), item]));
    assert.equal(answer.json.length, 4);
    assert.ok(byId.get('"ok"').result.task);
    assert.equal(byId.get('"bad"').error.code, -32602);
    assert.equal(byId.get('"none"').error.code, -32601);
    assert.equal(byId.get('null').error.code, -32600);
    assert.equal((await call(url, 'ListTasks', {})).result.totalSize, 2, 'the notification ran too');
    assertRpcError(await postRpc(url, []), -32600, null);
  });

  test('notifications only: HTTP 204 with no body', async (t) => {
    const { url } = await startA2aAgent(t);
    const answer = await postRpc(url, { jsonrpc: '2.0', method: 'GetTask', params: { id: 'x' } });
    assert.equal(answer.status, 204);
    assert.equal(answer.text, '');
  });
});

describe('A2A JSON-RPC: batch and answer bounds', () => {
  const getTask = (id: number) => ({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: `t${id}` } });

  test('a batch over 100 requests is one -32600 before any of them runs', async (t) => {
    const { url } = await startA2aAgent(t);
    const batch = Array.from({ length: 101 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'SendMessage',
      params: { message: userMessage(`n${i}`) },
    }));
    const error = assertRpcError(await postRpc(url, batch), -32600, null);
    assert.match(error.message, /101 requests.*at most 100/);
    assert.equal(error.data[0].metadata.limit, '100');
    assert.equal((await call(url, 'ListTasks', {})).result.totalSize, 0, 'nothing ran');
    const full = await postRpc(
      url,
      Array.from({ length: 100 }, (_, i) => getTask(i)),
    );
    assert.equal(full.json.length, 100, 'exactly 100 is served');
  });

  test('100,000 tiny elements (200 KB) are refused up front with -32600, not run and answered 500', async (t) => {
    const { url } = await startA2aAgent(t);
    const answer = await postRpc(url, `[${'0,'.repeat(99_999)}0]`);
    assertRpcError(answer, -32600, null);
    assert.ok(answer.text.length < 1000, `a short answer (${answer.text.length} bytes)`);
  });

  test('a batch whose answer is over max_response_bytes: its largest results become -32603, the rest are answered', async (t) => {
    const limit = 4096;
    const { url } = await startA2aAgent(t, { handler: () => 'ok', transportOptions: { limits: { maxResponseBytes: limit } } });
    const big = (id: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'SendMessage',
      params: { message: userMessage('x'.repeat(1200)) },
    });
    const answer = await postRpc(url, [big('a'), big('b'), big('c'), getTask(1)]);
    assert.equal(answer.status, 200, answer.text.slice(0, 200));
    assert.ok(Buffer.byteLength(answer.text) <= limit);
    const byId = new Map((answer.json as any[]).map((item) => [item.id, item]));
    assert.equal(byId.size, 4);
    assert.equal(byId.get(1).error.code, -32001, 'a small answer is kept as it is');
    const tooLarge = ['a', 'b', 'c'].map((id) => byId.get(id)).filter((item) => item.error);
    assert.ok(tooLarge.length >= 1 && tooLarge.length < 3, 'as few results dropped as fit the limit');
    for (const item of tooLarge) {
      assert.equal(item.error.code, -32603);
      assert.equal(item.error.data[0].metadata.limit, String(limit));
    }
    assert.equal((await call(url, 'ListTasks', { historyLength: 0 })).result.totalSize, 3, 'the requests themselves ran');
  });

  test('a single answer over max_response_bytes is -32603 with its id, not HTTP 500', async (t) => {
    const limit = 4096;
    const { url } = await startA2aAgent(t, { handler: () => 'ok', transportOptions: { limits: { maxResponseBytes: limit } } });
    const error = assertRpcError(await postRpc(url, send('y'.repeat(5000))), -32603);
    assert.match(error.message, /over the 4096-byte response limit/);
    const ran = (await call(url, 'ListTasks', { historyLength: 0 })).result;
    assert.equal(ran.totalSize, 1, 'the task ran; a smaller view of it can be asked for');
  });
});

describe('A2A JSON-RPC: methods', () => {
  test('the disabled methods answer the A2A unsupported errors (streaming: test/a2a/streaming.test.ts)', async (t) => {
    const { url } = await startA2aAgent(t);
    assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }), -32004);
    // Push notifications have their own tests (test/a2a/push/push-json-rpc.test.ts), off and on.
  });

  test('the card: public, a JSONRPC 1.0 interface then an HTTP+JSON one, streaming and push notifications on, extended card off', async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: new ApiKeyAuthenticator({ validKeys: { 'secret-key-1': [] } }) });
    const response = await fetch(`${url}/.well-known/agent-card.json`);
    assert.equal(response.status, 200);
    const card: any = await response.json();
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    assert.deepEqual(card.capabilities, { streaming: true, pushNotifications: true, extendedAgentCard: false });
    const scheme = card.securitySchemes.apiKey.apiKeySecurityScheme;
    assert.deepEqual([scheme.location, scheme.name], ['header', 'X-API-Key']);
    assert.deepEqual(card.securityRequirements, [{ schemes: { apiKey: {} } }]);
  });

  test('configuration.historyLength and GetTask historyLength limit the history; 0 leaves it out', async (t) => {
    const { url } = await startA2aAgent(t);
    const sent = (await postRpc(url, send('hi', { configuration: { historyLength: 1 } }))).json.result.task;
    assert.equal(sent.history.length, 1);
    assert.equal(sent.history[0].role, 'ROLE_AGENT', 'the latest message is kept');
    const none = (await call(url, 'GetTask', { id: sent.id, historyLength: 0 })).result;
    assert.equal(none.history, undefined);
    const all = (await call(url, 'GetTask', { id: sent.id })).result;
    assert.equal(all.history.length, 2);
    assert.equal(all.metadata.a2a_inbound.context_id, sent.contextId);
  });

  test('ListTasks: filters by context and state, pages with opaque tokens, artifacts only when asked', async (t) => {
    const handler: AgentHandler = ({ input }) => (input === 'ask' ? needsInput('what?') : input);
    const { url } = await startA2aAgent(t, { handler });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await postRpc(url, send(`t${i}`, { message: userMessage(`t${i}`, { contextId: 'ctx-a' }) }))).json.result.task.id,
      );
    const asked = (await postRpc(url, send('ask'))).json.result.task;
    const first = (await call(url, 'ListTasks', { contextId: 'ctx-a', pageSize: 2 })).result;
    assert.equal(first.totalSize, 5);
    assert.equal(first.pageSize, 2);
    assert.equal(first.tasks.length, 2);
    assert.equal(first.tasks[0].artifacts, undefined, 'no artifacts unless asked for');
    assert.notEqual(first.nextPageToken, '');
    const seen = first.tasks.map((task: any) => task.id);
    let token = first.nextPageToken;
    while (token) {
      const page = (await call(url, 'ListTasks', { contextId: 'ctx-a', pageSize: 2, pageToken: token, includeArtifacts: true }))
        .result;
      for (const task of page.tasks) assert.ok(Array.isArray(task.artifacts));
      seen.push(...page.tasks.map((task: any) => task.id));
      token = page.nextPageToken;
    }
    assert.deepEqual(new Set(seen), new Set(ids));
    assert.equal(seen.length, 5, 'every task exactly once');
    const waiting = (await call(url, 'ListTasks', { status: 'TASK_STATE_INPUT_REQUIRED' })).result;
    assert.deepEqual(
      waiting.tasks.map((task: any) => task.id),
      [asked.id],
    );
    const times = (await call(url, 'ListTasks', {})).result.tasks.map((task: any) => Date.parse(task.status.timestamp));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest status first',
    );
    const future = (await call(url, 'ListTasks', { statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() })).result;
    assert.equal(future.totalSize, 0);
  });

  test('a message that names another context than its task is -32602; an unknown task is -32001', async (t) => {
    const handler: AgentHandler = ({ task }) => ((task.messages?.length ?? 0) === 1 ? needsInput('and?') : 'done');
    const { url } = await startA2aAgent(t, { handler });
    const asked = (await postRpc(url, send('go'))).json.result.task;
    assertRpcError(
      await postRpc(url, send('x', { message: userMessage('x', { taskId: asked.id, contextId: 'elsewhere' }) })),
      -32602,
    );
    assertRpcError(await postRpc(url, send('x', { message: userMessage('x', { taskId: 'no-such-task' }) })), -32001);
  });

  test('a retried CancelTask (the first answer lost) is -32002 and changes nothing; GetTask shows the canceled task', async (t) => {
    const { url } = await startA2aAgent(t, { handler: () => needsInput('which city?') });
    const asked = (await postRpc(url, send('book a trip'))).json.result.task;
    const cancel = { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: asked.id, metadata: { reason: 'never mind' } } };
    const canceled = (await postRpc(url, cancel)).json.result;
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const retried = await postRpc(url, cancel);
    assertRpcError(retried, -32002);
    assert.match(retried.json.error.message, /already canceled/);
    const now = (await call(url, 'GetTask', { id: asked.id })).result;
    assert.deepEqual(now.status, canceled.status);
  });

  test('a terminal task cannot be canceled (-32002) nor continued (-32004)', async (t) => {
    const { url } = await startA2aAgent(t);
    const done = (await postRpc(url, send('hi'))).json.result.task;
    assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: done.id } }), -32002);
    assertRpcError(await postRpc(url, send('x', { message: userMessage('x', { taskId: done.id }) })), -32004);
  });
});

describe('A2A JSON-RPC: a full task index', () => {
  test('a new task is refused (-32603) while every slot holds an active task, and taken once one finishes', async (t) => {
    let release: () => void = () => undefined;
    const handler: AgentHandler = ({ input }) =>
      input === 'hold' ? new Promise((resolve) => (release = () => resolve('held'))) : input;
    const { url } = await startA2aAgent(t, { handler, a2aTaskIndex: new MemoryTaskIndex({ maxTasks: 1 }) });
    const held = (await postRpc(url, send('hold', { configuration: { returnImmediately: true } }))).json.result.task;
    assertRpcError(await postRpc(url, send('more')), -32603);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await call(url, 'GetTask', { id: held.id })).result.status.state, 'TASK_STATE_COMPLETED');
    assert.equal((await postRpc(url, send('more'))).json.result.task.status.state, 'TASK_STATE_COMPLETED');
  });
});

describe("A2A JSON-RPC: each caller's share of the task index", () => {
  test('a principal holding its share of running tasks is refused (-32603, metadata quota); another is served', async (t) => {
    const releases: (() => void)[] = [];
    const handler: AgentHandler = ({ input }) =>
      input === 'hold' ? new Promise((resolve) => releases.push(() => resolve('held'))) : input;
    const authenticator = new ApiKeyAuthenticator({ validKeys: { 'alice-key-0001': [], 'bob-key-00000001': [] } });
    const index = new MemoryTaskIndex({ maxTasks: 8, maxTasksPerCaller: 2 });
    const { url } = await startA2aAgent(t, { handler, authenticator, a2aTaskIndex: index });
    const alice = { 'x-api-key': 'alice-key-0001' };
    const bob = { 'x-api-key': 'bob-key-00000001' };
    const hold = send('hold', { configuration: { returnImmediately: true } });
    const bobDone = (await postRpc(url, send('finished'), bob)).json.result.task;
    for (let i = 0; i < 2; i++) assert.ok((await postRpc(url, hold, alice)).json.result.task);
    const refused = assertRpcError(await postRpc(url, hold, alice), -32603);
    assert.deepEqual(refused.data[0].metadata, { quota: '2' });
    assert.match(refused.message, /share of the A2A task index/);
    assert.equal((await postRpc(url, send('mine'), bob)).json.result.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal((await call(url, 'GetTask', { id: bobDone.id }, 1, bob)).result.id, bobDone.id, "bob's finished task is kept");
    for (const release of releases) release();
  });
});

describe('A2A JSON-RPC: task scoping', () => {
  test("one principal never sees, lists nor cancels another's task, and is told only that it is not found", async (t) => {
    let release: () => void = () => undefined;
    const handler: AgentHandler = ({ signal }) =>
      new Promise((resolve) => {
        release = () => resolve('late');
        signal.addEventListener('abort', () => resolve('stopped'), { once: true });
      });
    const authenticator = new ApiKeyAuthenticator({ validKeys: { 'alice-key-0001': [], 'bob-key-00000001': [] } });
    const { url } = await startA2aAgent(t, { handler, authenticator });
    const alice = { 'x-api-key': 'alice-key-0001' };
    const bob = { 'x-api-key': 'bob-key-00000001' };
    const started = (await postRpc(url, send('work', { configuration: { returnImmediately: true } }), alice)).json.result.task;
    assert.equal(started.status.state, 'TASK_STATE_WORKING');
    const unknown = assertRpcError(
      await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'never-existed' } }, bob),
      -32001,
    );
    const hidden = assertRpcError(
      await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: started.id } }, bob),
      -32001,
    );
    assert.equal(
      hidden.message.replace(started.id, 'ID'),
      unknown.message.replace('never-existed', 'ID'),
      'the same answer as for no task',
    );
    assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: started.id } }, bob), -32001);
    assert.equal((await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, bob)).json.result.totalSize, 0);
    assert.equal(
      (await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, alice)).json.result.totalSize,
      1,
    );
    const missing = await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, {});
    assert.equal(missing.status, 401, 'no credentials: HTTP 401');
    release();
  });

  test('tasks are scoped to the tenant the request names', async (t) => {
    const { url } = await startA2aAgent(t);
    const task = (await postRpc(url, send('hi', { tenant: 'acme' }))).json.result.task;
    assertRpcError(await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } }), -32001);
    assert.equal((await call(url, 'GetTask', { id: task.id, tenant: 'acme' })).result.id, task.id);
    assert.equal((await call(url, 'ListTasks', { tenant: 'other' })).result.totalSize, 0);
  });

  test('the native endpoints stay as they were beside the A2A routes', async (t) => {
    const { url } = await startA2aAgent(t);
    const response = await fetch(`${url}/tasks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{bad',
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as any).error.code, 'invalid_json');
  });
});
