// OAuth delegation against a real token-exchange endpoint on 127.0.0.1 (spec: OAuth
// delegation rules 1-6).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AuthenticationError } from '../../src/auth/authentication-error.js';
import { OAuthDelegationAuthenticator, TOKEN_EXCHANGE_GRANT } from '../../src/auth/oauth-delegation.js';
import { ConfigError } from '../../src/core/errors.js';

type Reply = (request: IncomingMessage, body: string, response: ServerResponse) => void;

describe('OAuthDelegationAuthenticator', () => {
  let reply: Reply = () => undefined;
  let seen: { method?: string; contentType?: string; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method, contentType: request.headers['content-type'], body });
      reply(request, body, response);
    });
  });
  let endpoint = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const json =
    (status: number, value: unknown): Reply =>
    (_request, _body, response) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
  const make = () =>
    new OAuthDelegationAuthenticator({ exchangeEndpoint: endpoint, clientId: 'agent-7', clientSecret: 's3cret', timeout: 2 });

  it('POSTs one compact JSON token-exchange body with the credential, client id, secret and grant type (rule 1)', async () => {
    seen = [];
    reply = json(200, { sub: 'alice', access_token: 'exchanged' });
    await make().authenticate('incoming-token');
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.method, 'POST');
    assert.equal(seen[0]!.contentType, 'application/json');
    assert.ok(!/\s/.test(seen[0]!.body), 'compact: no whitespace');
    const body = JSON.parse(seen[0]!.body);
    assert.equal(body.subject_token, 'incoming-token');
    assert.equal(body.client_id, 'agent-7');
    assert.equal(body.client_secret, 's3cret');
    assert.equal(body.grant_type, TOKEN_EXCHANGE_GRANT);
  });

  it('maps sub, access_token and metadata into the context (rule 2)', async () => {
    reply = json(200, { sub: 'alice', access_token: 'exchanged', metadata: { tenant: 't1' }, token_type: 'Bearer' });
    const context = await make().authenticate('x');
    assert.equal(context.principal_id, 'alice');
    assert.equal(context.token, 'exchanged');
    assert.deepEqual(context.metadata, { tenant: 't1' });
    assert.equal(context.expires_at, null);
  });

  it('defaults: principal unknown, token empty, metadata empty (rule 2)', async () => {
    reply = json(200, {});
    const context = await make().authenticate('x');
    assert.equal(context.principal_id, 'unknown');
    assert.equal(context.token, '');
    assert.deepEqual(context.metadata, {});
  });

  it('copies expires_in into expires_at as it stands (rule 3)', async () => {
    reply = json(200, { sub: 'a', access_token: 't', expires_in: 3600 });
    assert.equal((await make().authenticate('x')).expires_at as unknown, 3600);
  });

  const failures: Array<[string, Reply]> = [
    ['a 401 answer', json(401, { error: 'invalid_grant' })],
    ['a 201 answer (only 200 is read)', json(201, { sub: 'a' })],
    ['a 500 answer', json(500, { error: 'server' })],
    ['a body that is not JSON', (_q, _b, response) => response.writeHead(200).end('<html>')],
    ['JSON that is not an object', json(200, ['a'])],
    ['a connection cut before the answer', (request) => request.socket.destroy()],
  ];
  for (const [name, behaviour] of failures) {
    it(`${name} fails with "OAuth delegation failed:" (rule 4)`, async () => {
      reply = behaviour;
      const error = await make()
        .authenticate('x')
        .then(
          () => assert.fail('accepted'),
          (caught: unknown) => caught,
        );
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.code, 'delegation_failed');
      assert.match(error.message, /^OAuth delegation failed: /);
    });
  }

  it('an endpoint nobody listens on fails with the same prefix (rule 4)', async () => {
    const closed = new OAuthDelegationAuthenticator({
      exchangeEndpoint: 'http://127.0.0.1:1/token',
      clientId: 'c',
      clientSecret: 's',
    });
    await assert.rejects(closed.authenticate('x'), /^AuthenticationError: OAuth delegation failed: /);
  });

  it('advertises oauth2 with its exchange endpoint; refresh returns the same context (rule 5)', async () => {
    const oauth = make();
    assert.equal(oauth.scheme.type, 'oauth2');
    assert.equal(oauth.scheme.scheme, null);
    assert.deepEqual(oauth.scheme.metadata, { exchange_endpoint: endpoint });
    reply = json(200, { sub: 'a' });
    const context = await oauth.authenticate('x');
    assert.equal(await oauth.refreshToken(context), context);
  });

  for (const [name, options] of [
    ['a relative endpoint', { exchangeEndpoint: '/token', clientId: 'c', clientSecret: 's' }],
    ['a non-http endpoint', { exchangeEndpoint: 'ftp://x/token', clientId: 'c', clientSecret: 's' }],
    ['no client id', { exchangeEndpoint: 'http://x/token', clientId: '', clientSecret: 's' }],
    ['no client secret', { exchangeEndpoint: 'http://x/token', clientId: 'c', clientSecret: '' }],
  ] as const) {
    it(`refuses to be built with ${name}`, () => {
      assert.throws(() => new OAuthDelegationAuthenticator(options), ConfigError);
    });
  }
});
