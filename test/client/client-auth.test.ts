// Clients calling protected servers with the `auth` option and no authenticator of their own:
// an API key, an opaque bearer token, Basic credentials and a signed JWT (from a function, so
// rotation is seen), against an AgentServer and a RegistryServer on every transport. Wrong or
// missing credentials are refused with the wire's 401 (UNAUTHENTICATED on grpc).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import type { AgentCard } from '../../generated/types/index.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { BasicAuthenticator } from '../../src/auth/basic.js';
import type { ClientAuth } from '../../src/auth/client-auth.js';
import { JwtAuthenticator } from '../../src/auth/jwt.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { RegistryClient } from '../../src/client/registry-client.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { RegistryServer } from '../../src/registry/registry-server.js';
import { TransportRemoteError } from '../../src/transport/errors.js';
import { createTransport } from '../../src/transport/factory.js';

const SECRET = 'a-test-secret-of-at-least-32-bytes!!';
const TRANSPORTS = ['http', 'sse', 'websocket', 'grpc', 'runtime'] as const;
type Name = (typeof TRANSPORTS)[number];

let counter = 0;
function listenUrl(transport: Name): string {
  const scheme = { http: 'http', sse: 'http', websocket: 'ws', grpc: 'grpc' } as Record<string, string>;
  return transport === 'runtime' ? `runtime://client-auth-${process.pid}-${++counter}` : `${scheme[transport]}://127.0.0.1:0`;
}

function signJwt(subject: string): Promise<string> {
  return new SignJWT({ sub: subject })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));
}

interface Scheme {
  readonly name: string;
  readonly authenticator: () => Authenticator;
  readonly good: () => Promise<ClientAuth>;
  readonly wrong: () => Promise<ClientAuth>;
}

const SCHEMES: readonly Scheme[] = [
  {
    name: 'api key',
    authenticator: () => new ApiKeyAuthenticator({ validKeys: { 'key-good': [] } }),
    good: async () => ({ apiKey: 'key-good' }),
    wrong: async () => ({ apiKey: 'key-wrong' }),
  },
  {
    name: 'opaque bearer token',
    authenticator: () => new ApiKeyAuthenticator({ validKeys: { 'token-good': [] } }),
    good: async () => ({ bearer: 'token-good' }),
    wrong: async () => ({ bearer: 'token-wrong' }),
  },
  {
    name: 'basic',
    authenticator: () => new BasicAuthenticator({ validCredentials: { ada: 'pass:word' } }),
    good: async () => ({ basic: { user: 'ada', password: 'pass:word' } }),
    wrong: async () => ({ basic: { user: 'ada', password: 'nope' } }),
  },
  {
    name: 'JWT bearer from a function',
    authenticator: () => new JwtAuthenticator({ secret: SECRET }),
    good: async () => ({ bearer: () => signJwt('ada') }),
    wrong: async () => ({ bearer: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl' }),
  },
];

/** The refusal each wire gives for missing or wrong credentials. */
function assertUnauthenticated(error: unknown, transport: Name): void {
  assert.ok(error instanceof TransportRemoteError, `expected a remote error, got ${String(error)}`);
  assert.equal(error.statusCode, transport === 'grpc' ? 'UNAUTHENTICATED' : 401, error.message);
  assert.equal(error.retryable, false);
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => assert.fail(`expected a refusal, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
}

function card(url: string): AgentCard {
  return {
    name: 'listed',
    description: 'a listed agent',
    url,
    version: '1.0.0',
    capabilities: {},
    skills: [],
  } as unknown as AgentCard;
}

for (const transport of TRANSPORTS) {
  describe(`auth option over ${transport}`, { concurrency: 1 }, () => {
    for (const scheme of SCHEMES) {
      describe(scheme.name, () => {
        let agent: AgentServer;
        let registry: RegistryServer;
        const clients: Array<{ close(): Promise<void> }> = [];
        const agentClient = async (auth?: ClientAuth) => {
          const client = new AgentClient(agent.url, { transport, protocol: 'parley', ...(auth && { auth }) });
          clients.push(client);
          return client;
        };
        const registryClient = (auth?: ClientAuth) => {
          const client = new RegistryClient(registry.url, { transport, ...(auth && { auth }) });
          clients.push(client);
          return client;
        };
        before(async () => {
          agent = new AgentServer({
            name: 'guarded',
            transport,
            url: listenUrl(transport),
            authenticator: scheme.authenticator(),
          });
          registry = new RegistryServer({ transport, url: listenUrl(transport), authenticator: scheme.authenticator() });
          await agent.start();
          await registry.start();
        });
        after(async () => {
          for (const client of clients) await client.close();
          await agent.stop();
          await registry.stop();
        });

        it('AgentClient: the right credentials are served, unary and streaming', async () => {
          const client = await agentClient(await scheme.good());
          const task = await client.sendTask('hello');
          assert.equal(task.state, 'completed');
          if (transport === 'http') return; // plain http has no task streams
          const events = [];
          for await (const event of client.streamTask('hello again')) events.push(event.type);
          assert.equal(events.at(-1), 'task_completed');
        });

        it('AgentClient: wrong or missing credentials are refused with the 401 shape', async () => {
          assertUnauthenticated(await refusal((await agentClient(await scheme.wrong())).sendTask('hi')), transport);
          assertUnauthenticated(await refusal((await agentClient()).sendTask('hi')), transport);
        });

        it('RegistryClient: register and discover with the right credentials, refused with wrong ones', async () => {
          const url = `http://127.0.0.1:1/${scheme.name.replaceAll(' ', '-')}`;
          const good = registryClient(await scheme.good());
          const status = await good.register(card(url));
          assert.equal(status.error, undefined, status.status);
          assert.deepEqual(
            (await good.discover({ name: 'listed' })).map((listed) => listed.url),
            [url],
          );
          const refused = await registryClient(await scheme.wrong()).register(card(url));
          assertUnauthenticated(refused.error, transport);
          assertUnauthenticated(await refusal(registryClient().discover()), transport);
        });
      });
    }
  });
}

describe('the generated typed clients over createTransport', () => {
  it('AgentOperationsClient sends auth from the transport options, with no authenticator', async (t) => {
    const agent = new AgentServer({
      name: 'typed',
      transport: 'sse',
      url: 'http://127.0.0.1:0',
      authenticator: new BasicAuthenticator({ validCredentials: { ci: 'pw' } }),
    });
    await agent.start();
    t.after(() => agent.stop());
    const transport = await createTransport('sse', agent.url, { auth: { basic: { user: 'ci', password: 'pw' } } });
    t.after(() => transport.stop());
    const typed = new AgentOperationsClient(transport);
    assert.equal((await typed.getCard()).name, 'typed');
    assert.equal((await typed.sendTask({ id: 'typed-1', messages: [] })).state, 'completed');
  });
});

describe('a bearer token function', () => {
  for (const transport of ['http', 'websocket', 'grpc'] as const) {
    it(`is asked again before each call over ${transport}, so a rotated token is sent (and a revoked one refused)`, async (t) => {
      const agent = new AgentServer({
        name: 'rotating',
        transport,
        url: listenUrl(transport),
        authenticator: new ApiKeyAuthenticator({ validKeys: { 'first-token': [], 'second-token': [] } }),
      });
      await agent.start();
      t.after(() => agent.stop());
      let current = 'first-token';
      let asked = 0;
      const client = new AgentClient(agent.url, {
        transport,
        protocol: 'parley',
        auth: {
          bearer: async () => {
            asked++;
            return current;
          },
        },
      });
      t.after(() => client.close());
      assert.equal((await client.sendTask('one')).state, 'completed');
      assert.equal(asked, 1);
      current = 'second-token';
      assert.equal((await client.sendTask('two')).state, 'completed');
      assert.equal(asked, 2);
      current = 'revoked-token';
      assertUnauthenticated(await refusal(client.sendTask('three')), transport);
      current = 'second-token';
      assert.equal((await client.sendTask('four')).state, 'completed');
    });
  }

  it('a token function that fails fails the call with its own error; a bad value is named, never echoed', async (t) => {
    const agent = new AgentServer({ name: 'guarded', transport: 'http', url: 'http://127.0.0.1:0' });
    await agent.start();
    t.after(() => agent.stop());
    const failing = new AgentClient(agent.url, {
      protocol: 'parley',
      auth: {
        bearer: () => {
          throw new Error('token service down');
        },
      },
    });
    t.after(() => failing.close());
    await assert.rejects(failing.sendTask('x'), /token service down/);
    const blank = new AgentClient(agent.url, { protocol: 'parley', auth: { bearer: () => 'secret-text\nsplit' } });
    t.after(() => blank.close());
    const error = await refusal(blank.sendTask('x'));
    assert.ok(error instanceof InvalidArgumentError);
    assert.match(error.message, /the token that auth\.bearer returned must be/);
    assert.doesNotMatch(error.message, /secret-text/);
  });
});

describe('the auth option is checked when the client is built', () => {
  const rows: ReadonlyArray<readonly [string, unknown, RegExp]> = [
    ['two kinds at once', { apiKey: 'k', bearer: 't' }, /exactly one of apiKey, bearer or basic/],
    ['none', {}, /exactly one of apiKey, bearer or basic/],
    ['an unknown kind', { token: 't' }, /auth\.token is not an option/],
    ['a blank key', { apiKey: ' ' }, /auth\.apiKey must be a non-empty string/],
    ['a user with a colon', { basic: { user: 'a:b', password: 'p' } }, /auth\.basic\.user must be/],
    ['a password that is not a string', { basic: { user: 'a', password: 1 } }, /auth\.basic\.password must be a string/],
  ];
  for (const [name, auth, message] of rows) {
    it(name, async () => {
      const client = new AgentClient('http://127.0.0.1:1', { protocol: 'parley', auth: auth as ClientAuth });
      await assert.rejects(
        client.transport(),
        (error: Error) => error instanceof InvalidArgumentError && message.test(error.message),
      );
    });
  }

  it('auth with credentials is refused; RegistryClient apiKey with auth too', async () => {
    const client = new AgentClient('http://127.0.0.1:1', { auth: { apiKey: 'k' }, credentials: 'k' });
    await assert.rejects(client.transport(), /give auth, or credentials with an authenticator, not both/);
    assert.throws(() => new RegistryClient('http://127.0.0.1:1', { apiKey: 'k', auth: { apiKey: 'k' } }), InvalidArgumentError);
  });
});
