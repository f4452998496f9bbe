// The A2A 1.0 HTTP+JSON binding (issue 32), sent raw so every header and byte is the test's:
// each route of the manifest is served under /a2a/rest and under a tenant prefix; every refusal
// comes as A2A's REST error (AIP-193: {error: {code, status, message, details: [ErrorInfo]}})
// with the HTTP status of the specification's table, a client's mistake never as a 5xx.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { agentOperations } from '../../generated/operations/agent.js';
import type { OperationSpec } from '../../generated/operations/spec.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { startA2aAgent, userMessage } from './support.js';

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly json: any;
}

async function rest(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = HEADERS,
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: response.status, contentType: response.headers.get('content-type'), json };
}

/** Asserts an A2A REST error: the HTTP status, the canonical code's name, the ErrorInfo's reason (and field). */
function assertRestError(answer: Answer, status: number, codeName: string, reason: string, field?: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.json));
  assert.match(answer.contentType ?? '', /^application\/json/);
  const error = answer.json?.error;
  assert.equal(error?.code, status);
  assert.equal(error.status, codeName);
  assert.equal(typeof error.message, 'string');
  assert.equal(error.details.length, 1);
  const [info] = error.details;
  assert.equal(info['@type'], 'type.googleapis.com/google.rpc.ErrorInfo');
  assert.equal(info.domain, 'a2a-protocol.org');
  assert.equal(info.reason, reason);
  if (field !== undefined) assert.equal(info.metadata?.field, field);
}

const send = (text = 'hi', extra: Record<string, unknown> = {}) => ({ message: userMessage(text), ...extra });

describe('A2A HTTP+JSON: the routes', () => {
  test('SendMessage, GetTask (historyLength), ListTasks (filters), CancelTask answer ProtoJSON with 200', async (t) => {
    const { url } = await startA2aAgent(t, { handler: async ({ input }) => `echo: ${input}` });
    const sent = await rest(url, 'POST', '/a2a/rest/message:send', send('hello'));
    assert.equal(sent.status, 200);
    assert.match(sent.contentType ?? '', /^application\/json/);
    const task = sent.json.task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const got = await rest(url, 'GET', `/a2a/rest/tasks/${task.id}?historyLength=1`);
    assert.equal(got.status, 200);
    assert.equal(got.json.id, task.id);
    assert.equal(got.json.history.length, 1);
    // The specification's own example writes the enum's short form (status=completed); the name works too.
    for (const status of ['completed', 'TASK_STATE_COMPLETED']) {
      const listed = await rest(url, 'GET', `/a2a/rest/tasks?status=${status}&pageSize=5&includeArtifacts=true`);
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.json.tasks.map((entry: any) => entry.id),
        [task.id],
      );
      assert.equal(listed.json.tasks[0].artifacts.length, 1);
    }
    const none = await rest(url, 'GET', '/a2a/rest/tasks?status=TASK_STATE_WORKING');
    assert.deepEqual(none.json.tasks, []);
  });

  test('CancelTask with a body: its metadata.reason reaches the native cancellation', async (t) => {
    const { url } = await startA2aAgent(t, {
      handler: ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped'))),
    });
    const started = await rest(
      url,
      'POST',
      '/a2a/rest/message:send',
      send('wait', { configuration: { returnImmediately: true } }),
    );
    const id = started.json.task.id;
    const canceled = await rest(url, 'POST', `/a2a/rest/tasks/${id}:cancel`, { metadata: { reason: 'enough' } });
    assert.equal(canceled.status, 200);
    assert.equal(canceled.json.status.state, 'TASK_STATE_CANCELED');
    assert.equal(canceled.json.metadata.state_history.at(-1).reason, 'enough');
  });

  test('a tenant prefix scopes every route; the tenant of the body must agree with the path', async (t) => {
    const { url } = await startA2aAgent(t);
    const made = (await rest(url, 'POST', '/a2a/rest/acme/message:send', send())).json.task;
    assert.equal((await rest(url, 'GET', `/a2a/rest/acme/tasks/${made.id}`)).status, 200);
    assertRestError(await rest(url, 'GET', `/a2a/rest/tasks/${made.id}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    assertRestError(await rest(url, 'GET', `/a2a/rest/other/tasks/${made.id}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    const listed = await rest(url, 'GET', '/a2a/rest/acme/tasks');
    assert.deepEqual(
      listed.json.tasks.map((entry: any) => entry.id),
      [made.id],
    );
    // A tenant named in the body alone (no prefix) is the request's tenant, as ProtoJSON reads it.
    const viaBody = (await rest(url, 'POST', '/a2a/rest/message:send', send('x', { tenant: 'acme' }))).json.task;
    assert.equal((await rest(url, 'GET', `/a2a/rest/acme/tasks/${viaBody.id}`)).status, 200);
    assertRestError(
      await rest(url, 'POST', '/a2a/rest/acme/message:send', send('x', { tenant: 'other' })),
      400,
      'INVALID_ARGUMENT',
      'INVALID_PARAMS',
      '/tenant',
    );
  });

  test('every HTTP+JSON route of the manifest is served, with and without a tenant prefix', async (t) => {
    const { url } = await startA2aAgent(t);
    const specs = (Object.values(agentOperations) as OperationSpec[]).filter((spec) => spec.path.startsWith('/a2a/rest/'));
    assert.equal(specs.length, 12);
    for (const spec of specs) {
      const rest_ = spec.path.slice('/a2a/rest'.length).replace(/\{[^}]+\}/g, 'x');
      for (const path of [`/a2a/rest${rest_}`, `/a2a/rest/acme${rest_}`]) {
        const answer = await rest(url, spec.method, path, spec.method === 'POST' ? {} : undefined);
        // Routed to the binding: an A2A answer or an A2A error, never the transport's "no such route".
        assert.ok(
          answer.status === 200 || answer.json?.error?.details?.[0]?.domain === 'a2a-protocol.org',
          `${spec.method} ${path}: ${JSON.stringify(answer.json)}`,
        );
        assert.ok(answer.status < 500, `${spec.method} ${path} answered ${answer.status}`);
      }
    }
  });

  test('a method the route does not take is 405 with Allow; a path under /a2a/rest that is no route is 404', async (t) => {
    const { url } = await startA2aAgent(t);
    const wrong = await fetch(`${url}/a2a/rest/tasks/x`, { method: 'PUT', headers: HEADERS });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET, HEAD');
    assert.equal((await rest(url, 'GET', '/a2a/rest/nothing/here/at/all')).status, 404);
  });

  test("the native routes keep their paths: POST /tasks/ is still parley's own", async (t) => {
    const { url } = await startA2aAgent(t, { handler: async ({ input }) => `echo: ${input}` });
    const answer = await rest(url, 'POST', '/tasks/', {
      id: 'native-1',
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }],
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.equal(answer.json.state, 'completed');
  });

  test('A2A-Extensions is accepted (this agent declares none, so none is required or activated)', async (t) => {
    const { url } = await startA2aAgent(t);
    const answer = await rest(url, 'POST', '/a2a/rest/message:send', send(), {
      ...HEADERS,
      'a2a-extensions': 'https://example.com/extensions/geo/v1',
    });
    assert.equal(answer.status, 200);
  });
});

describe("A2A HTTP+JSON: every refusal in the binding's error shape, with the table's status", () => {
  /** A row: its request, given a completed task's id, and the error it must get. */
  const rows: Array<{
    readonly name: string;
    readonly request: (done: string) => [method: string, path: string, body?: unknown, headers?: Record<string, string>];
    readonly expect: [status: number, codeName: string, reason: string, field?: string];
  }> = [
    {
      name: 'an unknown task',
      request: () => ['GET', '/a2a/rest/tasks/no-such-task'],
      expect: [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    },
    {
      name: 'cancel an unknown task',
      request: () => ['POST', '/a2a/rest/tasks/no-such-task:cancel'],
      expect: [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    },
    {
      name: 'cancel a completed task',
      request: (done) => ['POST', `/a2a/rest/tasks/${done}:cancel`],
      expect: [400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'],
    },
    {
      name: 'a message to a completed task',
      request: (done) => ['POST', '/a2a/rest/message:send', { message: userMessage('again', { taskId: done }) }],
      expect: [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    },
    {
      name: 'create a push config of an unknown task',
      request: () => ['POST', '/a2a/rest/tasks/t/pushNotificationConfigs', { url: 'https://example.com/hook' }],
      expect: [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    },
    {
      name: 'list push configs of an unknown task',
      request: () => ['GET', '/a2a/rest/tasks/t/pushNotificationConfigs'],
      expect: [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    },
    {
      name: 'get a push config of an unknown task',
      request: () => ['GET', '/a2a/rest/tasks/t/pushNotificationConfigs/c'],
      expect: [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    },
    {
      name: 'delete a push config of an unknown task',
      request: () => ['DELETE', '/a2a/rest/tasks/t/pushNotificationConfigs/c'],
      expect: [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    },
    {
      name: 'the extended card, none configured',
      request: () => ['GET', '/a2a/rest/extendedAgentCard'],
      expect: [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    },
    {
      name: 'a body that is not JSON',
      request: () => ['POST', '/a2a/rest/message:send', '{"message": '],
      expect: [400, 'INVALID_ARGUMENT', 'PARSE_ERROR'],
    },
    {
      name: 'a body that is a JSON array',
      request: () => ['POST', '/a2a/rest/message:send', '[]'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/'],
    },
    {
      name: 'an empty message:send body (no message)',
      request: () => ['POST', '/a2a/rest/message:send'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/message'],
    },
    {
      name: 'an unknown field in the body',
      request: () => ['POST', '/a2a/rest/message:send', { message: { ...userMessage('x'), bogus: 1 } }],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/message/bogus'],
    },
    {
      name: 'a field of the wrong type',
      request: () => ['POST', '/a2a/rest/message:send', { message: { ...userMessage('x'), messageId: 7 } }],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/message/messageId'],
    },
    {
      name: 'an unknown enum name',
      request: () => ['POST', '/a2a/rest/message:send', { message: { ...userMessage('x'), role: 'ROLE_ROBOT' } }],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/message/role'],
    },
    {
      name: 'an unknown query parameter',
      request: () => ['GET', '/a2a/rest/tasks?bogus=1'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/bogus'],
    },
    {
      name: 'a query number that is not one',
      request: () => ['GET', '/a2a/rest/tasks/x?historyLength=abc'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/historyLength'],
    },
    {
      name: 'a negative historyLength',
      request: () => ['GET', '/a2a/rest/tasks/x?historyLength=-1'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/historyLength'],
    },
    {
      name: 'a query boolean that is not one',
      request: () => ['GET', '/a2a/rest/tasks?includeArtifacts=yes'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/includeArtifacts'],
    },
    {
      name: 'a query field given twice',
      request: () => ['GET', '/a2a/rest/tasks?pageSize=1&pageSize=2'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/pageSize'],
    },
    {
      name: 'pageSize 0',
      request: () => ['GET', '/a2a/rest/tasks?pageSize=0'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/pageSize'],
    },
    {
      name: 'an unknown status',
      request: () => ['GET', '/a2a/rest/tasks?status=running'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/status'],
    },
    {
      name: 'a timestamp that is not one',
      request: () => ['GET', '/a2a/rest/tasks?statusTimestampAfter=yesterday'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    },
    {
      name: 'a page token this agent never issued',
      request: () => ['GET', '/a2a/rest/tasks?pageToken=forged'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    },
    {
      name: 'a query string on a body route',
      request: () => ['POST', '/a2a/rest/message:send?historyLength=1', send()],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/historyLength'],
    },
    {
      name: 'a body id that disagrees with the path',
      request: () => ['POST', '/a2a/rest/tasks/a:cancel', { id: 'b' }],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/id'],
    },
    {
      name: 'a path that is not valid percent-encoding',
      request: () => ['GET', '/a2a/rest/tasks/%E0%A4%A'],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/id'],
    },
    {
      name: 'a body labelled text/plain',
      request: () => ['POST', '/a2a/rest/message:send', send(), { ...HEADERS, 'content-type': 'text/plain' }],
      expect: [400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'],
    },
    {
      name: 'no A2A-Version (a 0.3 request)',
      request: () => ['POST', '/a2a/rest/message:send', send(), { 'content-type': 'application/json' }],
      expect: [400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
    },
    {
      name: 'A2A-Version 2.0',
      request: () => ['GET', '/a2a/rest/tasks', undefined, { 'a2a-version': '2.0' }],
      expect: [400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
    },
    // The streams' refusals come before any event: an ordinary error answer, not a stream.
    {
      name: 'SendStreamingMessage without parts',
      request: () => ['POST', '/a2a/rest/message:stream', { message: userMessage('x', { parts: [] }) }],
      expect: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', '/message/parts'],
    },
    {
      name: 'SendStreamingMessage to a completed task',
      request: (done) => ['POST', '/a2a/rest/message:stream', { message: userMessage('again', { taskId: done }) }],
      expect: [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    },
    {
      name: 'SubscribeToTask by POST to an unknown task',
      request: () => ['POST', '/a2a/rest/tasks/no-such-task:subscribe'],
      expect: [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    },
    {
      name: 'SubscribeToTask by POST to a completed task',
      request: (done) => ['POST', `/a2a/rest/tasks/${done}:subscribe`],
      expect: [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    },
    {
      name: 'SubscribeToTask by GET to a completed task',
      request: (done) => ['GET', `/a2a/rest/tasks/${done}:subscribe`],
      expect: [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    },
  ];

  test('row by row', async (t) => {
    const { url } = await startA2aAgent(t);
    const done = (await rest(url, 'POST', '/a2a/rest/message:send', send())).json.task.id;
    for (const row of rows) {
      const [method, path, body, headers] = row.request(done);
      await t.test(row.name, async () => {
        const [status, codeName, reason, field] = row.expect;
        assertRestError(await rest(url, method, path, body, headers), status, codeName, reason, field);
      });
    }
  });

  test('a body over max_request_bytes is 413 in the same shape, before the binding reads it', async (t) => {
    const { url } = await startA2aAgent(t, { transportOptions: { limits: { maxRequestBytes: 2048 } } });
    const answer = await rest(url, 'POST', '/a2a/rest/message:send', send('x'.repeat(4096)));
    assertRestError(answer, 413, 'INVALID_ARGUMENT', 'INVALID_REQUEST');
  });

  test('without credentials (an agent with an authenticator): 401 UNAUTHENTICATED, no ErrorInfo (not an A2A error)', async (t) => {
    const { url } = await startA2aAgent(t, { authenticator: new ApiKeyAuthenticator({ validKeys: { 'rest-key-0001': [] } }) });
    const refused = await rest(url, 'GET', '/a2a/rest/tasks');
    assert.equal(refused.status, 401);
    assert.equal(refused.json.error.code, 401);
    assert.equal(refused.json.error.status, 'UNAUTHENTICATED');
    const admitted = await rest(url, 'GET', '/a2a/rest/tasks', undefined, { ...HEADERS, 'x-api-key': 'rest-key-0001' });
    assert.equal(admitted.status, 200);
  });

  test('an authenticated caller gets the extended card at GET /a2a/rest/extendedAgentCard', async (t) => {
    const { url } = await startA2aAgent(t, {
      authenticator: new ApiKeyAuthenticator({ validKeys: { 'rest-key-0001': [] } }),
      a2aExtendedCard: { description: 'more', skills: [{ id: 'x', name: 'X', description: 'an extra skill', tags: [] }] },
    });
    const card = await rest(url, 'GET', '/a2a/rest/extendedAgentCard', undefined, { ...HEADERS, 'x-api-key': 'rest-key-0001' });
    assert.equal(card.status, 200);
    assert.equal(card.json.description, 'more');
    assert.deepEqual(
      card.json.skills.map((skill: any) => skill.id),
      ['echo', 'x'],
    );
  });
});
