// The pipeline's hooks (src/transport/hooks.ts): what a transport does with and without them.
// The request log and the tracer are observability's; the pipeline only calls what it is given.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StateError } from '../../src/core/errors.js';
import type { Logger, RequestEndedHook } from '../../src/transport/hooks.js';
import { createTransport } from '../../src/transport/factory.js';
import { echoTask, ops, table } from '../support/transport-fixtures.js';

/** A logger that writes nothing and says every level is on. */
const quietLogger: Logger = {
  fatal() {},
  error() {},
  warn() {},
  info() {},
  debug() {},
  trace() {},
  isLevelEnabled: () => true,
};

test('a transport traced without a tracer hook fails its start, naming the missing option', async () => {
  const server = await createTransport('runtime', 'runtime://hooks-no-tracer', { tracing: true });
  await assert.rejects(server.start(table(echoTask())), (error: unknown) => {
    assert.ok(error instanceof StateError);
    assert.match(error.message, /observabilityHooks/);
    return true;
  });
});

test('the request-ended hook is made once per start from the logger, and told of each request', async (t) => {
  const seen: string[] = [];
  let made = 0;
  const hook: RequestEndedHook = {
    unary: (_request, operation, _startedAt, _security, ending) => seen.push(`${operation} ${ending?.status ?? 200}`),
    stream: () => {},
    refused: () => {},
  };
  const server = await createTransport('runtime', 'runtime://hooks-request-ended', {
    hooks: { requestLog: () => (made++, hook) },
  });
  await server.start(table(echoTask()), { logger: quietLogger });
  t.after(() => server.stop());
  const caller = await createTransport('runtime', server.url);
  t.after(() => caller.stop());
  await caller.unary(ops.sendTask, { id: 'hooked', messages: [] });
  assert.equal(made, 1);
  assert.deepEqual(seen, ['sendTask 200']);
});

test('without a logger the request-ended hook is not made', async (t) => {
  let made = 0;
  const server = await createTransport('runtime', 'runtime://hooks-no-logger', {
    hooks: { requestLog: () => (made++, { unary() {}, stream() {}, refused() {} }) },
  });
  await server.start(table(echoTask()));
  t.after(() => server.stop());
  assert.equal(made, 0);
});
