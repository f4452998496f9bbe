// Credentials over time (issue 28, defect 2): what outlives the authentication that let it in
// (a websocket connection, a stream) is served only until the credential's `expires_at`. Real
// JWTs with a lifetime of one to two seconds, over real sockets; the expiry is awaited as the
// event it causes (the close, the stream's last event), each wait guarded by the test timeout
// against a hang, and nothing is timed: the clock is only read to check that the end did not
// come before the token's `exp`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import type { SecurityContext, StreamEvent } from '../../generated/types/index.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { JwtAuthenticator } from '../../src/auth/jwt.js';
import { aborted, deferred } from '../support/async.js';
import { Fixture, failure, uniqueId, userTask, type TransportKind } from '../support/cross-transport.js';
import { RawPeer } from '../support/websocket-peers.js';

const SECRET = 'credential-expiry-test-secret-0123456789';
const GUARD = { timeout: 20_000 };

/** A token valid from now for one to two seconds (exp is in whole seconds), and its exp in ms. */
async function shortLivedToken(sub = 'alice'): Promise<{ token: string; expMs: number }> {
  const exp = Math.ceil(Date.now() / 1000) + 1;
  const token = await new SignJWT({ sub, exp })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(SECRET));
  return { token, expMs: exp * 1000 };
}

const jwt = () => new JwtAuthenticator({ secret: SECRET });

/** A handler that says it started, then works until it is stopped. */
function waitingHandler() {
  const started = deferred();
  const stopped = deferred<unknown>();
  return {
    started: started.promise,
    stopped: stopped.promise,
    handler: async (context: { message(text: string): void; signal: AbortSignal }) => {
      context.message('working on it');
      started.resolve();
      const reason = await aborted(context.signal);
      stopped.resolve(reason);
      throw reason;
    },
  };
}

for (const kind of ['sse', 'grpc', 'websocket', 'runtime'] as const satisfies readonly TransportKind[]) {
  describe(`a stream over ${kind} outlives no token`, () => {
    test('a stream opened with a token that then expires ends with an unauthenticated error', GUARD, async (t) => {
      const fixture = new Fixture(kind, t.signal);
      t.after(() => fixture.close());
      const work = waitingHandler();
      const agent = await fixture.agent({ handler: work.handler as never, authenticator: jwt() });
      const { token, expMs } = await shortLivedToken();
      const client = fixture.client(agent.url, { authenticator: jwt(), credentials: token });
      const events: StreamEvent[] = [];
      const error = await failure(async () => {
        for await (const event of client.streamTask(userTask(uniqueId(), 'a long job'))) events.push(event);
      });
      assert.equal(error.code, 'unauthenticated', `${error.name}: ${error.message}`);
      assert.ok(Date.now() > expMs, 'the stream ended before the token expired');
      // It was served while the token was good, and its work was stopped with it.
      assert.ok(events.length > 0, 'no event arrived before the expiry');
      await work.stopped;
    });
  });
}

describe('a websocket connection outlives no token', () => {
  test('the connection is closed with 4401 once the handshake token expires', GUARD, async (t) => {
    const fixture = new Fixture('websocket', t.signal);
    t.after(() => fixture.close());
    const agent = await fixture.agent({ authenticator: jwt() });
    const { token, expMs } = await shortLivedToken();
    const peer = await RawPeer.open(agent.url, { headers: { authorization: `Bearer ${token}` } });
    t.after(() => peer.close());
    // Served while the token is good.
    const [answer] = await peer.call({ id: 'r-1', method: 'GET', path: '/.well-known/agent.json', data: null, params: {} });
    assert.equal(answer.ok, true, JSON.stringify(answer));
    const closed = await peer.closed;
    assert.equal(closed.code, 4401);
    assert.equal(closed.reason, 'the credentials expired');
    assert.ok(Date.now() > expMs, 'the connection was closed before the token expired');
  });

  test('a handshake with a token that has already expired is refused, as any bad token is', GUARD, async (t) => {
    // Accepted by the authenticator (a leeway lets it through) but already past its exp.
    const leeway = new JwtAuthenticator({ secret: SECRET, leewaySeconds: 60 });
    const fixture = new Fixture('websocket', t.signal);
    t.after(() => fixture.close());
    const agent = await fixture.agent({ authenticator: leeway });
    const token = await new SignJWT({ sub: 'alice', exp: Math.floor(Date.now() / 1000) - 5 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(SECRET));
    const client = fixture.client(agent.url, { authenticator: leeway, credentials: token });
    const error = await failure(client.getCard());
    assert.equal(error.code, 'unauthenticated', `${error.name}: ${error.message}`);
  });

  test('a call on an open connection whose credentials have expired is refused, then the connection closes', GUARD, async (t) => {
    // The context the handshake kept is checked on every call. Its expiry is moved into the
    // past after the handshake (as a revocation would), so the connection's close timer,
    // set for the original expiry, cannot be what refuses the call.
    let kept: SecurityContext | null = null;
    const authenticator: Authenticator = {
      scheme: { type: 'apiKey', scheme: null, description: 'test', metadata: {} },
      authenticate: async (credentials) => {
        if (credentials !== 'good') throw new Error('Invalid API key');
        const context: SecurityContext = {
          principal_id: 'alice',
          token: credentials,
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          metadata: {},
        };
        kept = context;
        return context;
      },
      refreshToken: async (context) => context,
    };
    const fixture = new Fixture('websocket', t.signal);
    t.after(() => fixture.close());
    const agent = await fixture.agent({ authenticator });
    const peer = await RawPeer.open(agent.url, { headers: { 'x-api-key': 'good' } });
    t.after(() => peer.close());
    const card = { method: 'GET', path: '/.well-known/agent.json', data: null, params: {} };
    const [first] = await peer.call({ id: 'r-1', ...card });
    assert.equal(first.ok, true, JSON.stringify(first));
    const context = kept as SecurityContext | null;
    assert.ok(context, 'the handshake kept no context');
    context.expires_at = new Date(Date.now() - 1000).toISOString();
    const [refused] = await peer.call({ id: 'r-2', ...card });
    assert.equal(refused.ok, false, JSON.stringify(refused));
    assert.equal(refused.id, 'r-2');
    assert.equal(refused.error.code, 'unauthenticated');
    assert.equal(refused.error.message, 'the credentials expired');
    assert.equal((await peer.closed).code, 4401);
  });
});

describe("a websocket connection's kept credentials", () => {
  test('have their expiry parsed once per connection, not once per request', GUARD, async (t) => {
    const counting: Authenticator = {
      scheme: { type: 'apiKey', scheme: null, description: 'an hour of validity', metadata: {} },
      authenticate: async (credentials) => {
        if (credentials !== 'good') throw new Error('Invalid API key');
        const expires_at = new Date(Date.now() + 3_600_000).toISOString();
        return { principal_id: 'tester', token: credentials, expires_at, metadata: {} };
      },
      refreshToken: async (context) => context,
    };
    const fixture = new Fixture('websocket', t.signal);
    t.after(() => fixture.close());
    const agent = await fixture.agent({ authenticator: counting });
    const peer = await RawPeer.open(agent.url, { headers: { authorization: 'Bearer good' } });
    t.after(() => peer.close());
    const ask = async (id: string) => {
      const [answer] = await peer.call({ id, method: 'GET', path: '/.well-known/agent.json', data: null, params: {} });
      assert.equal(answer.ok, true, JSON.stringify(answer));
    };
    await ask('r-1');
    // Parsing a timestamp ends in Date.parse: count those made while the connection serves.
    const parse = t.mock.method(Date, 'parse');
    for (let i = 2; i <= 6; i++) await ask(`r-${i}`);
    assert.equal(parse.mock.callCount(), 0, 'the expiry was parsed again for a request');
  });
});
