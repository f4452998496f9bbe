// The dispatcher's authentication step with each shape of answer an authenticator may give:
// at once (authenticateNow), a Promise, a foreign thenable, a throw. A refusal is always an
// `unauthenticated` EndpointError and the handler never runs; an accepted context reaches it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SecurityContext } from '../../generated/types/index.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { AuthenticationError } from '../../src/auth/authentication-error.js';
import { createSecurityContext } from '../../src/auth/security-context.js';
import { LazyAbort } from '../../src/core/lazy-abort.js';
import { ResolvedConfig } from '../../src/transport/config.js';
import { Dispatcher } from '../../src/transport/dispatcher.js';
import { EndpointError } from '../../src/transport/endpoint-error.js';
import { Inbound, NO_PARAMS, type RequestContext } from '../../src/transport/endpoint.js';
import { TransportMetrics } from '../../src/transport/metrics.js';
import { ops, table, unary } from '../support/transport-fixtures.js';

const SCHEME = { type: 'apiKey', scheme: null, description: 'test', metadata: {} } as const;

function setup(authenticator: Authenticator) {
  const seen: (SecurityContext | null)[] = [];
  const dispatcher = new Dispatcher(
    table(
      unary(ops.sendTask, (task: { id: string }, context: RequestContext) => {
        seen.push(context.security);
        return { ...task, state: 'completed' };
      }),
    ),
    {
      name: 'runtime',
      url: () => 'runtime://auth',
      config: new ResolvedConfig({}),
      metrics: new TransportMetrics(true),
      authenticator,
    },
  );
  const send = (credentials: string | null) =>
    dispatcher.unary(
      new Inbound(
        {
          method: 'POST',
          path: '/tasks/',
          data: { id: 't-1', messages: [] },
          params: NO_PARAMS,
          requestId: 'r-1',
          idempotencyKey: null,
          credentials,
          receivedBytes: 32,
        },
        new LazyAbort(),
      ),
    );
  return { seen, send };
}

async function refusal(promise: Promise<unknown>): Promise<EndpointError> {
  const error = await promise.then(
    () => assert.fail('the request was served'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof EndpointError, String(error));
  assert.equal(error.code, 'unauthenticated');
  return error;
}

/** An authenticator that answers from a fixed table, shaped by `answer`. */
function custom(answer: (context: SecurityContext | null) => unknown, now = true): Authenticator {
  const check = (credentials: string) =>
    answer(credentials === 'good' ? createSecurityContext({ principalId: 'p', token: credentials }) : null);
  return {
    scheme: SCHEME,
    authenticate: now ? async () => assert.fail('authenticate() called although authenticateNow() exists') : (check as never),
    ...(now && { authenticateNow: check as never }),
    refreshToken: async (context) => context,
  };
}

test('an authenticator that answers at once: the handler starts before unary() returns, with the context', async () => {
  const { seen, send } = setup(new ApiKeyAuthenticator({ validKeys: { 'key-0123456789': [] } }));
  const served = send('key-0123456789');
  // No turn of the event loop between the request and its handler: nothing was waited for.
  assert.equal(seen.length, 1);
  await served;
  assert.equal(seen[0]?.principal_id, 'api-key-key-0123');
});

test('an authenticator that answers at once: a thrown refusal is unauthenticated with its message', async () => {
  const { seen, send } = setup(new ApiKeyAuthenticator({ validKeys: { 'key-0123456789': [] } }));
  const error = await refusal(send('key-0123456789X'));
  assert.equal(error.message, 'Invalid API key');
  await refusal(send(null));
  assert.deepEqual(seen, []);
});

test('authenticateNow may return a Promise: its context is used, its rejection refuses', async () => {
  const { seen, send } = setup(
    custom((context) => (context ? Promise.resolve(context) : Promise.reject(new AuthenticationError('invalid_token', 'nope')))),
  );
  await send('good');
  assert.equal(seen.length, 1);
  assert.equal((await refusal(send('bad'))).message, 'nope');
  assert.equal(seen.length, 1);
});

test('without authenticateNow, authenticate() is awaited as before (async, or a plain value from JS code)', async () => {
  for (const shape of [
    (context: SecurityContext | null) => Promise.resolve(context),
    (context: SecurityContext | null) => context,
  ]) {
    const { seen, send } = setup(
      custom((context) => {
        if (!context) throw new AuthenticationError('invalid_token', 'nope');
        return shape(context);
      }, false),
    );
    await send('good');
    assert.equal(seen[0]?.principal_id, 'p');
    await refusal(send('bad'));
    assert.equal(seen.length, 1);
  }
});

test('a thenable that is not a native Promise is waited for: its rejection refuses, never taken for a context', async () => {
  const thenable = (context: SecurityContext | null) => ({
    // biome-ignore lint/suspicious/noThenProperty: the point is an object with a then method
    then(resolve: (value: unknown) => void, reject: (error: unknown) => void) {
      if (context) resolve(context);
      else reject(new AuthenticationError('invalid_token', 'refused by a thenable'));
    },
  });
  for (const now of [true, false]) {
    const { seen, send } = setup(custom(thenable, now));
    assert.equal((await refusal(send('bad'))).message, 'refused by a thenable');
    assert.equal(seen.length, 0);
    await send('good');
    assert.equal(seen[0]?.principal_id, 'p');
  }
});

test('an answer that is no security context (undefined, null, a string, an array, an object missing the token or with a number for principal_id) refuses, at once or from a Promise, with either method', async () => {
  for (const nothing of [
    undefined,
    null,
    'yes',
    [],
    [{ principal_id: 'p', token: 't' }],
    { principal_id: 'p' },
    { principal_id: 7, token: 't' },
  ]) {
    for (const shape of [(value: unknown) => value, (value: unknown) => Promise.resolve(value)]) {
      for (const now of [true, false]) {
        const { seen, send } = setup(custom(() => shape(nothing), now));
        const error = await refusal(send('good'));
        assert.match(
          error.message,
          /without a security context/,
          `${String(nothing)}, ${now ? 'authenticateNow' : 'authenticate'}`,
        );
        assert.deepEqual(seen, []);
      }
    }
  }
});
