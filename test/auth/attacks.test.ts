// Authentication under attack, on every networked transport (issue 15's attack table; spec:
// Authentication, server-side flow and the WebSocket and gRPC rules; Errors, the 401 and
// UNAUTHENTICATED rows). Each row is refused and the handler never runs; after all of them an
// authenticated caller is still served. Routes are matched exactly as written, on every wire:
// no percent-decoding, no dot-segment resolution, no case folding, so a path that is not a
// route's own text reaches no handler, public or not (docs/security.md, "What a route is").
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { JwtAuthenticator } from '../../src/auth/jwt.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { jsonClient, unaryCall } from '../support/grpc-peers.js';

const KEY = 'sk_test_0123456789abcdef';
const SECRET = 'attack-suite-secret-0123456789abcdef';
const TASK = { id: 'attack', messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] };

/** What a caller sends: the route, and credentials in any slot. */
interface Attempt {
  readonly path?: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly query?: string;
}

/** A refusal (status 401/404/405 or a gRPC code name), or `served` when a handler could have run. */
type Outcome = { refused: true; status: number | string } | { refused: false };

type Probe = (attempt: Attempt) => Promise<Outcome>;

function httpProbe(base: string, defaultPath: string): Probe {
  return (attempt) =>
    new Promise((resolve, reject) => {
      const url = new URL(base);
      const path = (attempt.path ?? defaultPath) + (attempt.query ? `?${attempt.query}` : '');
      const body = JSON.stringify(TASK);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: attempt.method ?? 'POST',
          path,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...attempt.headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode! < 300 ? { refused: false } : { refused: true, status: res.statusCode! }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

function websocketProbe(base: string): Probe {
  return (attempt) =>
    new Promise((resolve, reject) => {
      const url = `${base}/${attempt.query ? `?${attempt.query}` : ''}`;
      const socket = new WebSocket(url, { headers: attempt.headers ?? {} });
      socket.on('error', () => undefined);
      socket.once('unexpected-response', (_request, response) => {
        response.resume();
        socket.terminate();
        resolve({ refused: true, status: response.statusCode ?? 0 });
      });
      socket.once('open', () => {
        socket.send(
          JSON.stringify({ id: 'r1', method: attempt.method ?? 'POST', path: attempt.path ?? '/tasks/', data: TASK, params: {} }),
        );
        socket.once('message', (data) => {
          const frame = JSON.parse(String(data));
          socket.terminate();
          resolve(frame.ok ? { refused: false } : { refused: true, status: frame.error?.status ?? 0 });
        });
      });
      setTimeout(() => reject(new Error('websocket probe got no answer')), 10_000).unref();
    });
}

function grpcProbe(closers: Array<() => unknown>, base: string): Probe {
  const client = jsonClient({ after: (fn) => closers.push(fn) }, base);
  return async (attempt) => {
    const envelope = {
      id: 'r1',
      method: attempt.method ?? 'POST',
      path: (attempt.path ?? '/tasks/') + (attempt.query ? `?${attempt.query}` : ''),
      data: TASK,
      params: {},
    };
    const metadata = Object.fromEntries(Object.entries(attempt.headers ?? {}).map(([key, value]) => [key.toLowerCase(), value]));
    try {
      const answer = await unaryCall(client, 'Invoke', envelope, metadata);
      return answer.ok ? { refused: false } : { refused: true, status: answer.error?.status ?? 0 };
    } catch (error) {
      return { refused: true, status: (error as { code: number }).code };
    }
  };
}

const TRANSPORTS = [
  { name: 'http', url: 'http://127.0.0.1:0' },
  { name: 'sse', url: 'http://127.0.0.1:0' },
  { name: 'websocket', url: 'ws://127.0.0.1:0' },
  { name: 'grpc', url: 'grpc://127.0.0.1:0' },
] as const;

const GRPC_UNAUTHENTICATED = 16;

async function token(claims: Record<string, unknown>, secret = SECRET, alg = 'HS256'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
}

const b64url = (text: string) => Buffer.from(text).toString('base64url');

for (const transport of TRANSPORTS) {
  describe(`attacks on ${transport.name}`, { concurrency: 1 }, () => {
    let runs = 0;
    let principal: string | undefined;
    const agents: AgentServer[] = [];
    const closers: Array<() => unknown> = [];
    const start = async (authenticator: Authenticator) => {
      const agent = new AgentServer({
        name: 'guarded',
        transport: transport.name,
        url: transport.url,
        authenticator,
        handler: async ({ input, request }) => {
          runs++;
          principal = request.security?.principal_id;
          return input;
        },
      });
      await agent.start();
      agents.push(agent);
      return agent;
    };
    let keyed: Probe;
    let jwt: Probe;
    before(async () => {
      const a = await start(new ApiKeyAuthenticator({ validKeys: { [KEY]: [] } }));
      const b = await start(
        new JwtAuthenticator({ secret: SECRET, issuer: 'parley-tests', audience: 'agents', leewaySeconds: 5 }),
      );
      const probe = (agent: AgentServer): Probe =>
        transport.name === 'websocket'
          ? websocketProbe(agent.url)
          : transport.name === 'grpc'
            ? grpcProbe(closers, agent.url)
            : httpProbe(agent.url, transport.name === 'sse' ? '/tasks/stream' : '/tasks/');
      keyed = probe(a);
      jwt = probe(b);
    });
    after(async () => {
      for (const close of closers) await close();
      for (const agent of agents) await agent.stop();
    });

    const refusedWith401 = async (probe: () => Probe, attempt: Attempt) => {
      const before = runs;
      const outcome = await probe()(attempt);
      assert.equal(outcome.refused, true, 'refused');
      if (outcome.refused) assert.equal(outcome.status, transport.name === 'grpc' ? GRPC_UNAUTHENTICATED : 401);
      assert.equal(runs, before, 'the handler never ran');
    };

    const keyRows: Array<[string, Attempt]> = [
      ['no credentials', {}],
      ['an empty X-API-Key', { headers: { 'X-API-Key': '' } }],
      ['a whitespace-only X-API-Key', { headers: { 'X-API-Key': '   ' } }],
      ['an Authorization prefix with no key', { headers: { Authorization: 'ApiKey ' } }],
      ['a wrong key', { headers: { 'X-API-Key': 'sk_test_wrong' } }],
      ['a prefix of the key', { headers: { 'X-API-Key': KEY.slice(0, -1) } }],
      ['the key with more after it', { headers: { 'X-API-Key': `${KEY}0` } }],
      ['the key in another case', { headers: { 'X-API-Key': KEY.toUpperCase() } }],
      [
        'a wrong Authorization with the right X-API-Key (Authorization wins)',
        { headers: { Authorization: 'ApiKey nope', 'X-API-Key': KEY } },
      ],
      ['a wrong X-API-Key with the right key in the query', { headers: { 'X-API-Key': 'nope' }, query: `api_key=${KEY}` }],
      ['a wrong api_key with the right token (api_key comes first)', { query: `api_key=nope&token=${KEY}` }],
    ];
    if (transport.name === 'grpc') keyRows.splice(9, 2); // gRPC reads metadata only, never a query string.
    for (const [name, attempt] of keyRows) {
      it(`API key: ${name} is refused`, () => refusedWith401(() => keyed, attempt));
    }

    it('API key: the right key in each slot is served (the rows above fail for their own reason)', async () => {
      const slots: Attempt[] = [
        { headers: { 'X-API-Key': KEY } },
        { headers: { Authorization: `ApiKey ${KEY}` } },
        { headers: { Authorization: `apikey ${KEY}` } },
        ...(transport.name === 'grpc'
          ? []
          : [{ query: `api_key=${KEY}` }, { query: `apikey=${KEY}` }, { query: `token=${KEY}` }]),
      ];
      for (const attempt of slots) {
        principal = undefined;
        assert.deepEqual(await keyed(attempt), { refused: false }, JSON.stringify(attempt));
        assert.equal(principal, `api-key-${KEY.slice(0, 8)}`, 'the authenticated context reaches the handler');
      }
    });

    const now = Math.floor(Date.now() / 1000);
    const good = { sub: 'alice', iss: 'parley-tests', aud: 'agents' };
    const jwtRows: Array<[string, () => Promise<string> | string]> = [
      ['alg none', () => `${b64url('{"alg":"none"}')}.${b64url(JSON.stringify(good))}.`],
      ['an HS512 token to the HS256 verifier', () => token(good, SECRET, 'HS512')],
      ['a token signed with another secret', () => token(good, 'another-secret-0123456789abcdef')],
      [
        'a changed payload under the old signature',
        async () => {
          const [head, , signature] = (await token(good)).split('.');
          return `${head}.${b64url(JSON.stringify({ ...good, sub: 'admin' }))}.${signature}`;
        },
      ],
      ['an expired token', () => token({ ...good, exp: now - 60 })],
      ['nbf in the future', () => token({ ...good, nbf: now + 60 })],
      ['iat in the future beyond the leeway', () => token({ ...good, iat: now + 60 })],
      ['a wrong issuer', () => token({ ...good, iss: 'someone-else' })],
      ['a wrong audience', () => token({ ...good, aud: 'others' })],
      ['an audience list without ours', () => token({ ...good, aud: ['x', 'y'] })],
      ['two segments', async () => (await token(good)).split('.').slice(0, 2).join('.')],
      ['four segments', async () => `${await token(good)}.x`],
    ];
    for (const [name, make] of jwtRows) {
      it(`JWT: ${name} is refused`, async () =>
        refusedWith401(() => jwt, { headers: { Authorization: `Bearer ${await make()}` } }));
    }

    it('JWT: a valid token is served, and the handler sees its principal', async () => {
      assert.deepEqual(await jwt({ headers: { Authorization: `Bearer ${await token({ ...good, exp: now + 600 })}` } }), {
        refused: false,
      });
      assert.equal(principal, 'alice');
    });

    // Path tricks: the public /healthz must not lend its openness to a protected route.
    const paths = [
      '//healthz/../tasks/',
      '/healthz/../tasks/',
      '/healthz%2F..%2Ftasks/',
      '/healthz/%2e%2e/tasks/',
      '/tasks/.',
      '/TASKS/',
      '/Tasks/',
      '/tasks/%2e',
      '/./tasks/',
      '/tasks//',
      '/healthz#/tasks/',
    ];
    for (const path of paths) {
      it(`path trick ${path} reaches no handler without credentials`, async () => {
        const before = runs;
        const outcome = await keyed({ path });
        assert.equal(outcome.refused, true);
        assert.equal(runs, before);
      });
    }
    it('a query string naming a public route does not make a protected route public', async () => {
      if (transport.name !== 'grpc') return refusedWith401(() => keyed, { query: 'x=/healthz&path=/healthz' });
      // An envelope path may not carry a query string at all (docs/wire.md): refused before auth.
      const before = runs;
      assert.deepEqual(await keyed({ query: 'x=/healthz&path=/healthz' }), { refused: true, status: 400 });
      assert.equal(runs, before);
    });

    it('after every attack, an authenticated caller is still served', async () => {
      const before = runs;
      assert.deepEqual(await keyed({ headers: { 'X-API-Key': KEY } }), { refused: false });
      assert.equal(runs, before + 1);
    });
  });
}
