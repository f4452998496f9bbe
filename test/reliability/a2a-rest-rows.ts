// The reliability rows of A2A's HTTP+JSON binding (issue 32), against the suite's http server,
// which serves A2A (fixtures/serve.ts): each adversarial request gets a 4xx in the binding's
// error shape (AIP-193 with an ErrorInfo), never a 5xx, a hang or a crash, and a caller never
// sees another principal's task. The runner checks after each row that the server still works.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Row } from './rows.js';
import { ALICE, BOB, NESTING_LIMIT, REQUEST_LIMIT, type ChildServer } from './setup.js';

/** Levels of nesting past anything a recursive walk survives. */
const DEEP = 5000;

interface RestAnswer {
  readonly status: number;
  readonly json: any;
}

async function rest(
  server: ChildServer,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<RestAnswer> {
  const response = await fetch(new URL(`/a2a/rest${path}`, server.url), {
    method,
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': ALICE, ...headers },
    body,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

/** A 4xx in the binding's shape; `reason` the ErrorInfo's when the refusal is an A2A one. */
function assertRestRefusal(answer: RestAnswer, status: number, reason?: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.json).slice(0, 300));
  assert.equal(answer.json?.error?.code, status);
  assert.equal(typeof answer.json.error.status, 'string');
  if (reason !== undefined) assert.equal(answer.json.error.details?.[0]?.reason, reason);
}

const messageJson = (text: string, metadata = '{}') =>
  `{"message":{"messageId":"${randomUUID()}","role":"ROLE_USER","parts":[{"text":${JSON.stringify(text)}}],"metadata":${metadata}}}`;

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

export const REST_ROWS: readonly Row[] = [
  {
    defect: '32.rest',
    name: `HTTP+JSON: message metadata nested ${DEEP} levels deep is refused with 400, not a crash`,
    transports: ['http'],
    async run(server) {
      // The protobuf decoder stops at 100 levels (as JSON-RPC's -32602 says too).
      assertRestRefusal(await rest(server, 'POST', '/message:send', messageJson('deep', nested(DEEP))), 400, 'INVALID_PARAMS');
    },
  },
  {
    defect: '32.rest',
    name: `HTTP+JSON: message metadata ${NESTING_LIMIT} levels deep is served`,
    transports: ['http'],
    async run(server) {
      const answer = await rest(server, 'POST', '/message:send', messageJson('nested', nested(NESTING_LIMIT - 8)));
      assert.equal(answer.status, 200, JSON.stringify(answer.json).slice(0, 300));
      assert.equal(answer.json.task.status.state, 'TASK_STATE_COMPLETED');
    },
  },
  {
    defect: '32.rest',
    name: 'HTTP+JSON: a body over max_request_bytes is 413 in the binding shape',
    transports: ['http'],
    async run(server) {
      assertRestRefusal(
        await rest(server, 'POST', '/message:send', messageJson('x'.repeat(REQUEST_LIMIT))),
        413,
        'INVALID_REQUEST',
      );
    },
  },
  {
    defect: '32.rest',
    name: 'HTTP+JSON: a body that is not JSON, or deep bare arrays, is 400',
    transports: ['http'],
    async run(server) {
      assertRestRefusal(await rest(server, 'POST', '/message:send', '{"message": {'), 400, 'PARSE_ERROR');
      assertRestRefusal(await rest(server, 'POST', '/message:send', '['.repeat(DEEP) + ']'.repeat(DEEP)), 400, 'INVALID_PARAMS');
      assertRestRefusal(await rest(server, 'POST', `/tasks/x:cancel`, `{"metadata":${nested(DEEP)}}`), 400);
    },
  },
  {
    defect: '32.rest',
    name: 'HTTP+JSON: a wrong media type, an unknown field, an unknown query parameter, a wrong type are 400',
    transports: ['http'],
    async run(server) {
      assertRestRefusal(
        await rest(server, 'POST', '/message:send', messageJson('x'), { 'content-type': 'application/x-www-form-urlencoded' }),
        400,
        'CONTENT_TYPE_NOT_SUPPORTED',
      );
      assertRestRefusal(await rest(server, 'POST', '/message:send', '{"message":{},"extra":1}'), 400, 'INVALID_PARAMS');
      assertRestRefusal(await rest(server, 'GET', '/tasks?limit=5'), 400, 'INVALID_PARAMS');
      assertRestRefusal(await rest(server, 'GET', '/tasks?pageSize=99999999999'), 400, 'INVALID_PARAMS');
      assertRestRefusal(await rest(server, 'GET', `/tasks/${'%ZZ'.repeat(10)}`), 400, 'INVALID_PARAMS');
    },
  },
  {
    defect: '32.rest',
    name: "HTTP+JSON: another principal's task is not found, not listed, not canceled",
    transports: ['http'],
    async run(server) {
      const made = await rest(server, 'POST', '/message:send', messageJson('alice only'));
      assert.equal(made.status, 200);
      const id = made.json.task.id as string;
      const asBob = { 'x-api-key': BOB };
      assertRestRefusal(await rest(server, 'GET', `/tasks/${id}`, undefined, asBob), 404, 'TASK_NOT_FOUND');
      assertRestRefusal(await rest(server, 'POST', `/tasks/${id}:cancel`, undefined, asBob), 404, 'TASK_NOT_FOUND');
      const listed = await rest(server, 'GET', '/tasks?pageSize=100', undefined, asBob);
      assert.equal(listed.status, 200);
      assert.ok(!listed.json.tasks.some((task: any) => task.id === id), "Bob's list shows Alice's task");
      assert.equal((await rest(server, 'GET', `/tasks/${id}`)).status, 200, 'Alice still sees it');
    },
  },
  {
    defect: '32.rest',
    name: 'HTTP+JSON: without credentials every route is 401 in the binding shape',
    transports: ['http'],
    async run(server) {
      for (const [method, path] of [
        ['POST', '/message:send'],
        ['GET', '/tasks'],
        ['GET', '/tasks/x'],
        ['POST', '/tasks/x:cancel'],
      ] as const) {
        const response = await fetch(new URL(`/a2a/rest${path}`, server.url), {
          method,
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: method === 'POST' ? messageJson('x') : undefined,
        });
        assert.equal(response.status, 401, `${method} ${path}`);
        const body: any = await response.json();
        assert.equal(body.error.status, 'UNAUTHENTICATED');
      }
    },
  },
];
