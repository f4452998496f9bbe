// What an agent advertises about its authentication (spec: Authentication > Advertised schemes,
// Authenticator contract; SecurityScheme wire form). Each built-in authenticator puts one entry
// under `securitySchemes` in the native card, keyed by scheme, with exactly the four wire fields;
// the card needs credentials over the wire; and a custom authenticator missing a member is refused
// when the server is built.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validate } from '../../generated/validators/index.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { advertisedSchemes } from '../../src/agent/agent-card.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { BasicAuthenticator } from '../../src/auth/basic.js';
import { JwtAuthenticator } from '../../src/auth/jwt.js';
import { OAuthDelegationAuthenticator } from '../../src/auth/oauth-delegation.js';
import { ConfigError } from '../../src/core/errors.js';

const ROWS: { name: string; authenticator: Authenticator; key: string; type: string; scheme: string | null; metadata: object }[] =
  [
    {
      name: 'API key',
      authenticator: new ApiKeyAuthenticator({ validKeys: { 'key-0123456789': [] } }),
      key: 'apiKey',
      type: 'apiKey',
      scheme: null,
      metadata: {},
    },
    {
      name: 'Basic',
      authenticator: new BasicAuthenticator({ validCredentials: { alice: 'wonderland' } }),
      key: 'basic',
      type: 'http',
      scheme: 'basic',
      metadata: {},
    },
    {
      name: 'JWT',
      authenticator: new JwtAuthenticator({
        secret: 'shh',
        algorithm: 'HS384',
        issuer: 'https://issuer.test',
        audience: 'agents',
      }),
      key: 'bearer',
      type: 'http',
      scheme: 'bearer',
      metadata: { algorithms: ['HS256', 'HS384', 'HS512'], issuer: 'https://issuer.test', audience: 'agents' },
    },
    {
      name: 'OAuth delegation',
      authenticator: new OAuthDelegationAuthenticator({
        exchangeEndpoint: 'https://auth.test/token',
        clientId: 'agent',
        clientSecret: 'secret',
      }),
      key: 'oauth2',
      type: 'oauth2',
      scheme: null,
      metadata: { exchange_endpoint: 'https://auth.test/token' },
    },
  ];

describe('advertised schemes', () => {
  for (const row of ROWS) {
    test(`${row.name}: one entry keyed ${row.key}, with the four wire fields, and a valid card`, async (t) => {
      const agent = new AgentServer({
        name: 'guarded',
        transport: 'runtime',
        url: `runtime://schemes-${process.pid}-${row.key}`,
        authenticator: row.authenticator,
      });
      await agent.start();
      t.after(() => agent.stop());
      const card = agent.getCard();
      assert.deepEqual(Object.keys(card.securitySchemes ?? {}), [row.key]);
      const advertised = card.securitySchemes![row.key]!;
      assert.deepEqual(Object.keys(advertised).sort(), ['description', 'metadata', 'scheme', 'type']);
      assert.equal(advertised.type, row.type);
      assert.equal(advertised.scheme, row.scheme);
      assert.deepEqual(advertised.metadata, row.metadata);
      assert.ok((advertised.description ?? '').length > 0);
      const result = validate('agent-card', JSON.parse(JSON.stringify(card)));
      assert.ok(result.valid, JSON.stringify(result));
      assert.deepEqual(advertisedSchemes(row.authenticator), [{ key: row.key, scheme: advertised }]);
    });
  }

  test('no authenticator, no schemes', () => {
    assert.deepEqual(advertisedSchemes(null), []);
  });

  test("editing a card leaves the authenticator's scheme as it was", async (t) => {
    const jwt = new JwtAuthenticator({ secret: 'shh' });
    const agent = new AgentServer({
      name: 'guarded',
      transport: 'runtime',
      url: `runtime://schemes-${process.pid}-copy`,
      authenticator: jwt,
    });
    await agent.start();
    t.after(() => agent.stop());
    const card = agent.getCard();
    (card.securitySchemes!.bearer!.metadata!.algorithms as string[]).push('none');
    assert.deepEqual(jwt.scheme.metadata!.algorithms, ['HS256', 'HS384', 'HS512']);
    assert.deepEqual(agent.getCard().securitySchemes!.bearer!.metadata!.algorithms, ['HS256', 'HS384', 'HS512']);
  });

  test('over http the native card needs the key, and then lists the scheme', async (t) => {
    const agent = new AgentServer({
      name: 'guarded',
      transport: 'http',
      url: 'http://127.0.0.1:0',
      authenticator: new ApiKeyAuthenticator({ validKeys: { 'key-0123456789': [] } }),
    });
    await agent.start();
    t.after(() => agent.stop());
    const refused = await fetch(`${agent.url}/.well-known/agent.json`);
    assert.equal(refused.status, 401);
    await refused.arrayBuffer();
    const answered = await fetch(`${agent.url}/.well-known/agent.json`, { headers: { 'x-api-key': 'key-0123456789' } });
    assert.equal(answered.status, 200);
    const card = (await answered.json()) as { securitySchemes?: Record<string, unknown> };
    assert.deepEqual(Object.keys(card.securitySchemes ?? {}), ['apiKey']);
  });
});

describe('a custom authenticator', () => {
  const complete: Authenticator = {
    scheme: { type: 'http', scheme: 'bearer', description: 'custom', metadata: {} },
    authenticate: async (token) => ({
      principal_id: 'p',
      token,
      expires_at: null,
      issued_at: new Date().toISOString(),
      metadata: {},
    }),
    refreshToken: async (context) => context,
  };
  const without = (member: keyof Authenticator) => {
    const copy: Partial<Authenticator> = { ...complete };
    delete copy[member];
    return copy as Authenticator;
  };

  for (const member of ['scheme', 'authenticate', 'refreshToken'] as const) {
    test(`without ${member} is refused with a ConfigError naming it`, () => {
      assert.throws(
        () => new AgentServer({ name: 'a', transport: 'runtime', authenticator: without(member) }),
        (error: unknown) =>
          error instanceof ConfigError && error.field === 'authenticator' && String(error.value).includes(member),
      );
    });
  }

  test('with an authenticateNow that is not a function is refused, naming it', () => {
    const odd = { ...complete, authenticateNow: 'yes' } as unknown as Authenticator;
    assert.throws(
      () => new AgentServer({ name: 'a', transport: 'runtime', authenticator: odd }),
      (error: unknown) => error instanceof ConfigError && String(error.value).includes('authenticateNow'),
    );
    assert.ok(
      new AgentServer({
        name: 'a',
        transport: 'runtime',
        authenticator: { ...complete, authenticateNow: () => complete.authenticate('x') },
      }),
    );
  });

  test('with a null scheme is refused', () => {
    const nullScheme = { ...complete, scheme: null } as unknown as Authenticator;
    assert.throws(() => new AgentServer({ name: 'a', transport: 'runtime', authenticator: nullScheme }), ConfigError);
  });

  test('a class instance with all three members (methods on the prototype) is accepted', () => {
    class Custom {
      readonly scheme = complete.scheme;
      authenticate(token: string) {
        return complete.authenticate(token);
      }
      refreshToken(context: Parameters<Authenticator['refreshToken']>[0]) {
        return complete.refreshToken(context);
      }
    }
    assert.ok(new AgentServer({ name: 'a', transport: 'runtime', authenticator: new Custom() }));
  });
});
