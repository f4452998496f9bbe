// The http side a browser or a hand-written client sees (spec: Agent endpoints, Errors > HTTP):
// GET /status as HTML, and bad input answered with a clear status and a JSON error body while
// the server keeps serving.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertValid,
  deferred,
  rawHttp,
  startAgent,
  uniqueId,
  untilAborted,
  userTask,
  type RawResponse,
} from '../support/agent-harness.js';

function assertJsonError(res: RawResponse, status: number, code: string): any {
  assert.equal(res.status, status, res.text);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assertValid('error-body', body);
  assert.equal(body.error.code, code);
  assert.equal(body.error.status, status);
  assert.ok(body.error.message.length > 0);
  assertWholeBody(res);
  return body;
}

/** The answer declares its length rather than arriving as chunked frames. */
function assertWholeBody(res: RawResponse): void {
  assert.equal(res.headers['transfer-encoding'], undefined);
  assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.text)));
}

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('GET /status over http', () => {
  test('names the agent, shows ready, the metrics and its tasks counted by state, never their ids', async (t) => {
    const h = await startAgent('http', {
      name: 'status-agent',
      description: 'Shows its status',
      role: 'tester',
      tags: ['a', 'b'],
    });
    t.after(() => h.close());
    const ids = [uniqueId('first'), uniqueId('second')];
    for (const id of ids) await h.client.sendTask(userTask(id, 'hi'));
    const page = await h.client.getStatusPage();
    assert.match(page, /^<!doctype html>/);
    assert.match(page, /<title>status-agent · parley status<\/title>/);
    assert.match(page, /<h1>status-agent<\/h1>/);
    assert.match(page, /<span id="status" class="badge ok">ready<\/span>/);
    assert.match(page, /Shows its status/);
    assert.match(page, /tester/);
    assert.match(page, /a, b/);
    // Anyone may read this page when there is no authenticator, and an id is what a cancel takes.
    for (const id of ids) assert.ok(!page.includes(id), `task ${id} is not shown`);
    assert.ok(page.includes('<td data-state="completed">2</td>'), 'the two tasks are counted');
    assert.ok(page.includes('<td data-state="failed">0</td>'), 'every state has its row');
    // Metrics: requests_started counts the two tasks at least.
    const started = /data-metric="requests_started">(\d+)</.exec(page);
    assert.ok(started, 'requests_started is shown');
    assert.ok(Number(started[1]) >= 2);
    assert.match(page, /data-metric="total_latency_ms">[\d.]+</);
    const raw = await rawHttp(h.url, { path: '/status' });
    assert.equal(raw.status, 200);
    assert.match(String(raw.headers['content-type']), /^text\/html; charset=utf-8/);
  });

  test('escapes what the agent author wrote', async (t) => {
    const h = await startAgent('http', { name: '<script>alert(1)</script>', description: 'a & b', tags: ['<t>'] });
    t.after(() => h.close());
    const page = await h.client.getStatusPage();
    assert.ok(!page.includes('<script>alert(1)</script>'));
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(page.includes('a &amp; b'));
    assert.ok(page.includes('&lt;t&gt;'));
  });
});

describe('bad input over http', () => {
  test('each bad request gets a clear status and JSON error; the server keeps serving and keeps its tasks', async (t) => {
    const started = deferred();
    const h = await startAgent('http', {
      transportOptions: { limits: { maxRequestBytes: 2048 } },
      handler: async ({ input, signal }) => {
        if (input !== 'block') return `ok: ${input}`;
        started.resolve();
        return untilAborted(signal);
      },
    });
    t.after(() => h.close());
    const doneId = uniqueId('done');
    await h.client.sendTask(userTask(doneId, 'before'));
    const blockedId = uniqueId('blocked');
    const blocked = h.client.sendTask(userTask(blockedId, 'block'));
    await started.promise;

    // Malformed JSON.
    const malformed = await rawHttp(h.url, { method: 'POST', path: '/tasks/', body: '{"id": "x", ', headers: JSON_HEADERS });
    assertJsonError(malformed, 400, 'invalid_json');
    // Valid JSON of the wrong shape.
    const shape = await rawHttp(h.url, {
      method: 'POST',
      path: '/tasks/',
      body: JSON.stringify({ id: 7 }),
      headers: JSON_HEADERS,
    });
    const shapeBody = assertJsonError(shape, 400, 'invalid_request');
    assert.match(shapeBody.error.message, /\/id/);
    const array = await rawHttp(h.url, { method: 'POST', path: '/tasks/', body: '[]', headers: JSON_HEADERS });
    assertJsonError(array, 400, 'invalid_request');
    const empty = await rawHttp(h.url, { method: 'POST', path: '/tasks/', body: '', headers: JSON_HEADERS });
    assertJsonError(empty, 400, 'invalid_json');
    const badCancel = await rawHttp(h.url, { method: 'POST', path: '/tasks/cancel', body: '{}', headers: JSON_HEADERS });
    assertJsonError(badCancel, 400, 'invalid_request');
    // Oversize body, with a declared length and streamed in chunks.
    const big = JSON.stringify(userTask('big', 'x'.repeat(4096)));
    const declared = await rawHttp(h.url, { method: 'POST', path: '/tasks/', body: big, headers: JSON_HEADERS });
    const declaredBody = assertJsonError(declared, 413, 'payload_too_large');
    assert.equal(declaredBody.error.details.limit, 2048);
    const chunked = await rawHttp(h.url, {
      method: 'POST',
      path: '/tasks/',
      body: [big.slice(0, 1500), big.slice(1500, 3000), big.slice(3000)],
      headers: JSON_HEADERS,
    });
    assertJsonError(chunked, 413, 'payload_too_large');
    // Unknown path, wrong method.
    assertJsonError(await rawHttp(h.url, { path: '/nope' }), 404, 'not_found');
    assertJsonError(await rawHttp(h.url, { method: 'POST', path: '/tasks' }), 404, 'not_found');
    const wrongMethod = await rawHttp(h.url, { method: 'GET', path: '/tasks/' });
    assertJsonError(wrongMethod, 405, 'method_not_allowed');
    assert.equal(wrongMethod.headers.allow, 'POST');
    const deleteHealth = await rawHttp(h.url, { method: 'DELETE', path: '/healthz' });
    assertJsonError(deleteHealth, 405, 'method_not_allowed');
    assert.equal(deleteHealth.headers.allow, 'GET, HEAD');
    // The request id travels back, in the header and the body.
    const tagged = await rawHttp(h.url, { path: '/nope', headers: { 'x-svc-request-id': 'req-123' } });
    assert.equal(tagged.headers['x-svc-request-id'], 'req-123');
    assert.equal(tagged.json().error.request_id, 'req-123');

    // Still serving: health, a new task, the status page with both earlier tasks, and the cancel.
    const health = await rawHttp(h.url, { path: '/healthz' });
    assert.equal(health.status, 200);
    assert.equal(health.json().status, 'ready');
    // Every bad request above failed once: the 404s, 405s, invalid JSON and 413s refused while
    // routing or reading the body (counted by the listener) and the four schema failures
    // (counted by the dispatcher). The blocked task and this health call are still running.
    assert.equal(health.json().metrics.requests_failed, 12, JSON.stringify(health.json().metrics));
    const after = await h.client.sendTask(userTask(uniqueId('after'), 'after'));
    assert.equal(after.state, 'completed');
    const page = await h.client.getStatusPage();
    // Counted by state, without ids: the finished ones and the one still running.
    assert.ok(page.includes('<td data-state="completed">2</td>'), page);
    assert.ok(page.includes('<td data-state="working">1</td>'), page);
    assert.ok(!page.includes(doneId) && !page.includes(blockedId), 'no task id is shown');
    const canceled = await h.client.cancelTask({ id: blockedId, metadata: { reason: 'after the storm' } });
    assert.equal(canceled.state, 'canceled');
    assert.equal((await blocked).state, 'canceled');
  });

  test('a raw task submission works with plain JSON over fetch', async (t) => {
    const h = await startAgent('http');
    t.after(() => h.close());
    const res = await fetch(new URL('/tasks/', h.url), {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(userTask('fetch-1', 'plain fetch')),
    });
    assert.equal(res.status, 200);
    const task = (await res.json()) as { state: string };
    assertValid('task', task);
    assert.equal(task.state, 'completed');
    assert.ok(res.headers.get('x-svc-request-id'));
  });

  test('JSON answers and pages carry their length, not chunked encoding', async (t) => {
    const h = await startAgent('http');
    t.after(() => h.close());
    const answer = await rawHttp(h.url, {
      method: 'POST',
      path: '/tasks/',
      headers: JSON_HEADERS,
      body: JSON.stringify(userTask(uniqueId('length'), 'héllo, wörld')),
    });
    assert.equal(answer.status, 200);
    assertWholeBody(answer);
    assert.equal(answer.json().messages.at(-1).parts[0].content, 'héllo, wörld');
    const page = await rawHttp(h.url, { path: '/status' });
    assert.equal(page.status, 200);
    assertWholeBody(page);
  });
});
