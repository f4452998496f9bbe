// An agent with an authenticator (spec: Authentication > Server-side flow, Advertised schemes;
// Endpoints > Agent endpoints, the card row; Errors > HTTP and handshake, the 401 row). Every
// route but /healthz and /readyz needs credentials; missing or rejected ones end the request
// with 401 and the JSON error body (docs/errors.md: `{"error": wire-error}`, code
// `unauthenticated`); the card advertises the configured scheme under `securitySchemes`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SecurityScheme } from '../../generated/types/index.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import {
  TRANSPORTS,
  assertValid,
  rawHttp,
  rejectsWithStatus,
  startAgent,
  texts,
  uniqueId,
  userTask,
  type HarnessOptions,
  type RawRequest,
  type TransportKind,
} from '../support/agent-harness.js';

const API_KEY_SCHEME: SecurityScheme = {
  type: 'apiKey',
  scheme: null,
  description: 'API key in X-API-Key or Authorization: ApiKey',
  metadata: {},
};

/**
 * The spec's API-key provider (Built-in authenticators): accepts a credential only if it is a
 * key of `validKeys`; principal `api-key-` plus the key's first eight characters.
 */
function apiKeyAuthenticator(validKeys: Record<string, string[]>, scheme = API_KEY_SCHEME): Authenticator {
  return {
    scheme,
    async authenticate(credentials) {
      if (!Object.hasOwn(validKeys, credentials)) throw new Error('Invalid API key');
      return { principal_id: `api-key-${credentials.slice(0, 8)}`, token: credentials, expires_at: null, metadata: {} };
    },
    async refreshToken(context) {
      return context;
    },
  };
}

const GOOD_KEY = 'good-key-0123456789';
const keys = apiKeyAuthenticator({ [GOOD_KEY]: ['tasks'] });

/** An agent guarded by `keys` whose handler answers with the principal it saw; counts runs. */
async function guardedAgent(kind: TransportKind, credentials?: string, options: HarnessOptions = {}) {
  const runs = { count: 0 };
  const h = await startAgent(
    kind,
    {
      authenticator: keys,
      handler: ({ request }) => {
        runs.count++;
        return `principal ${request.security?.principal_id ?? 'none'}`;
      },
      ...options,
    },
    credentials === undefined ? {} : { authenticator: keys, credentials },
  );
  return { h, runs };
}

for (const kind of TRANSPORTS) {
  describe(`an agent with an authenticator over ${kind}`, () => {
    test('protected routes without credentials are 401 unauthenticated, and the handler never runs', async (t) => {
      const { h, runs } = await guardedAgent(kind);
      t.after(() => h.close());
      await rejectsWithStatus(h.client.sendTask(userTask(uniqueId(), 'hi')), 401, 'unauthenticated');
      await rejectsWithStatus(h.client.cancelTask({ id: uniqueId(), metadata: {} }), 401, 'unauthenticated');
      await rejectsWithStatus(h.client.describeState({}), 401, 'unauthenticated');
      await rejectsWithStatus(h.client.resetState({}), 401, 'unauthenticated');
      await rejectsWithStatus(
        h.client.compactHistory({ session_id: 's', strategy: 'tokens', max_tokens: 10, preserve_recent: 1 }),
        401,
        'unauthenticated',
      );
      assert.equal(runs.count, 0);
    });

    test('a wrong key is 401 unauthenticated, and the handler never runs', async (t) => {
      const { h, runs } = await guardedAgent(kind);
      t.after(() => h.close());
      // A client whose own authenticator lets any key out, so the agent is the one to refuse it.
      const wrong = await h.newClient({
        authenticator: { ...keys, authenticate: async (c) => ({ principal_id: 'x', token: c }) },
        credentials: 'wrong-key',
      });
      await rejectsWithStatus(wrong.sendTask(userTask(uniqueId(), 'hi')), 401, 'unauthenticated');
      await rejectsWithStatus(wrong.getCard(), 401, 'unauthenticated');
      assert.equal(runs.count, 0);
    });

    test('with the right key calls work, and the handler sees the authenticated principal', async (t) => {
      const { h, runs } = await guardedAgent(kind, GOOD_KEY);
      t.after(() => h.close());
      const task = await h.client.sendTask(userTask(uniqueId(), 'hi'));
      assert.equal(task.state, 'completed');
      assert.deepEqual(texts(task.messages!.at(-1)!.parts), ['principal api-key-good-key']);
      assert.equal(runs.count, 1);
      assert.equal((await h.client.describeState({})).operation, 'describe');
    });

    test('/healthz and /readyz are public: they answer without credentials', async (t) => {
      const { h } = await guardedAgent(kind);
      t.after(() => h.close());
      for (const payload of [await h.client.healthz(), await h.client.readyz()]) {
        assertValid('health', payload);
        assert.equal(payload.status, 'ready');
        assert.equal(payload.transport, kind);
      }
    });

    test('the card needs credentials', async (t) => {
      const { h } = await guardedAgent(kind);
      t.after(() => h.close());
      await rejectsWithStatus(h.client.getCard(), 401, 'unauthenticated');
    });

    test('the card lists the configured scheme under securitySchemes', async (t) => {
      const { h } = await guardedAgent(kind, GOOD_KEY);
      t.after(() => h.close());
      const card = await h.client.getCard();
      assertValid('agent-card', card);
      assert.deepEqual(card.securitySchemes, { apiKey: API_KEY_SCHEME });
    });

    test('a bearer scheme is advertised with its type, scheme and metadata', async (t) => {
      const bearer: SecurityScheme = {
        type: 'http',
        scheme: 'bearer',
        description: 'JWT bearer token',
        metadata: { algorithms: ['HS256', 'HS384', 'HS512'], issuer: 'https://issuer.test', audience: 'parley-agents' },
      };
      const authenticator = apiKeyAuthenticator({ [GOOD_KEY]: [] }, bearer);
      const h = await startAgent(kind, { authenticator }, { authenticator, credentials: GOOD_KEY });
      t.after(() => h.close());
      const card = await h.client.getCard();
      assertValid('agent-card', card);
      assert.deepEqual(card.securitySchemes, { bearer });
    });
  });
}

describe('the 401 on the http wire', () => {
  test('missing credentials: 401, JSON content type, WWW-Authenticate, and {"error": wire-error} carrying the request id', async (t) => {
    const { h } = await guardedAgent('http');
    t.after(() => h.close());
    for (const request of [
      { method: 'POST', path: '/tasks/', body: JSON.stringify(userTask(uniqueId(), 'hi')) },
      { method: 'GET', path: '/.well-known/agent.json' },
      { method: 'GET', path: '/status' },
      { method: 'GET', path: '/chat' },
    ]) {
      const res = await rawHttp(h.url, { ...request, headers: { 'x-svc-request-id': 'req-401' } });
      const what = `${request.method} ${request.path}`;
      assert.equal(res.status, 401, what);
      assert.match(String(res.headers['content-type']), /^application\/json/, what);
      assert.ok(res.headers['www-authenticate'], `${what} names the schemes to use`);
      const body = res.json();
      assertValid('error-body', body);
      assert.equal(body.error.code, 'unauthenticated', what);
      assert.equal(body.error.status, 401, what);
      assert.equal(typeof body.error.message, 'string');
      assert.equal(body.error.request_id, 'req-401', what);
    }
  });

  test('a wrong key in any carrier is 401 unauthenticated', async (t) => {
    const { h, runs } = await guardedAgent('http');
    t.after(() => h.close());
    const body = JSON.stringify(userTask(uniqueId(), 'hi'));
    const carriers: Partial<RawRequest>[] = [
      { headers: { 'x-api-key': 'wrong-key' } },
      { headers: { authorization: 'ApiKey wrong-key' } },
      { headers: { authorization: 'Bearer wrong-key' } },
      { path: '/tasks/?api_key=wrong-key' },
      { headers: { 'x-api-key': '   ' } },
    ];
    for (const request of carriers) {
      const res = await rawHttp(h.url, { method: 'POST', path: '/tasks/', body, ...request });
      assert.equal(res.status, 401, JSON.stringify(request));
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.json().error.code, 'unauthenticated');
    }
    assert.equal(runs.count, 0);
  });

  test('the right key in any carrier runs the task', async (t) => {
    const { h, runs } = await guardedAgent('http');
    t.after(() => h.close());
    const carriers: Partial<RawRequest>[] = [
      { headers: { 'x-api-key': GOOD_KEY } },
      { headers: { authorization: `ApiKey ${GOOD_KEY}` } },
      { headers: { authorization: `Bearer ${GOOD_KEY}` } },
      { path: `/tasks/?api_key=${GOOD_KEY}` },
    ];
    for (const request of carriers) {
      const res = await rawHttp(h.url, {
        method: 'POST',
        path: '/tasks/',
        body: JSON.stringify(userTask(uniqueId(), 'hi')),
        ...request,
      });
      assert.equal(res.status, 200, JSON.stringify(request));
      assert.equal(res.json().state, 'completed');
    }
    assert.equal(runs.count, carriers.length);
    const card = await rawHttp(h.url, { path: '/.well-known/agent.json', headers: { 'x-api-key': GOOD_KEY } });
    assert.equal(card.status, 200);
    assert.deepEqual(card.json().securitySchemes, { apiKey: API_KEY_SCHEME });
  });

  test('/healthz and /readyz answer 200 without credentials', async (t) => {
    const { h } = await guardedAgent('http');
    t.after(() => h.close());
    for (const path of ['/healthz', '/readyz']) {
      const res = await rawHttp(h.url, { path });
      assert.equal(res.status, 200, path);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assertValid('health', res.json());
    }
  });
});
