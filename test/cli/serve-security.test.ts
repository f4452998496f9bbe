// `parley serve agent` with authentication and TLS, run from the build (dist/, so `npm run build`
// first) in a child process as a user would: API keys, Basic and JWT from flags, files and the
// environment; https and grpcs with certificates made by openssl at test time, mutual TLS; a
// --config file, valid and broken; and the usage errors, each one line with exit status 2.
// Requests cross real sockets with fetch, node:https and AgentClient.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { AgentClient } from '../../src/client/agent-client.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { makeTestCertificates, type TestCertificates } from '../support/certificates.js';
import { assertNoStackTrace, scratchDir, untilServing } from './run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

type Env = Readonly<Record<string, string>>;

/** The environment without any PARLEY_ variable of the test runner's, plus `extra`. */
function environment(extra: Env): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PARLEY_')));
  return { ...env, ...extra };
}

interface Server {
  readonly url: string;
  stderr(): string;
}

const started: ChildProcessWithoutNullStreams[] = [];

/** Starts the built CLI and resolves with the URL of its `ready` line. */
async function serve(args: readonly string[], env: Env = {}): Promise<Server> {
  const child = spawn(process.execPath, [MAIN, 'serve', 'agent', ...args], { cwd: ROOT, env: environment(env), stdio: 'pipe' });
  started.push(child);
  const { url, stderr } = await untilServing(child);
  return { url, stderr };
}

/** Runs the built CLI to its end (for commands that fail before serving). */
async function run(args: readonly string[], env: Env = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, 'serve', 'agent', ...args], { cwd: ROOT, env: environment(env), stdio: 'pipe' });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  const result = { code, stdout, stderr };
  assertNoStackTrace(result);
  return result;
}

/** One usage error: exit 2, nothing served, one `parley: ...` line matching `pattern`. */
async function assertUsageError(args: readonly string[], pattern: RegExp, env: Env = {}): Promise<string> {
  const result = await run(args, env);
  assert.equal(result.code, 2, `exit status of ${args.join(' ')}\nstderr: ${result.stderr}`);
  assert.equal(result.stdout, '', 'no ready line');
  assert.equal(result.stderr.split('\n').filter(Boolean).length, 1, result.stderr);
  assert.match(result.stderr, pattern);
  return result.stderr;
}

const TASK = JSON.stringify({ id: 'task-1', messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] });

/** POST /tasks/ the way curl would; the status, and the error code when refused. */
async function postTask(url: string, headers: Record<string, string> = {}): Promise<{ status: number; code?: string }> {
  const response = await fetch(`${url}/tasks/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: TASK,
  });
  const body = (await response.json()) as { error?: { code: string } };
  return { status: response.status, ...(body.error && { code: body.error.code }) };
}

const LISTEN = ['--url', 'http://127.0.0.1:0'];

after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

// The timeouts only guard against a hang.
describe('parley serve agent: authentication', { concurrency: 6, timeout: 120_000 }, () => {
  it('--api-key (repeated): 401 without a key or with a wrong one; either key works, by header or Authorization', async () => {
    const server = await serve([...LISTEN, '--api-key', 'old-key-0123', '--api-key', 'new-key-4567']);
    assert.deepEqual(await postTask(server.url), { status: 401, code: 'unauthenticated' });
    assert.deepEqual(await postTask(server.url, { 'x-api-key': 'wrong-key' }), { status: 401, code: 'unauthenticated' });
    assert.equal((await postTask(server.url, { 'x-api-key': 'old-key-0123' })).status, 200);
    assert.equal((await postTask(server.url, { authorization: 'ApiKey new-key-4567' })).status, 200);
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200, '/healthz stays public');
    await health.arrayBuffer();
  });

  it('--api-key-file and PARLEY_API_KEYS; the command line replaces the environment', async () => {
    const { dir, cleanup } = scratchDir({ keys: '# rotated 2026-11\nfile-key-1\n\nfile-key-2, file-key-3\n' });
    after(cleanup);
    const fromFile = await serve([...LISTEN, '--api-key-file', join(dir, 'keys')], { PARLEY_API_KEYS: 'env-key-1' });
    for (const key of ['file-key-1', 'file-key-2', 'file-key-3'])
      assert.equal((await postTask(fromFile.url, { 'x-api-key': key })).status, 200, key);
    assert.equal((await postTask(fromFile.url, { 'x-api-key': 'env-key-1' })).status, 401);
    assert.equal((await postTask(fromFile.url, { 'x-api-key': '# rotated 2026-11' })).status, 401, 'comments are not keys');

    const fromEnv = await serve(LISTEN, { PARLEY_API_KEYS: 'env-key-1,env-key-2\nenv-key-3' });
    for (const key of ['env-key-1', 'env-key-2', 'env-key-3'])
      assert.equal((await postTask(fromEnv.url, { 'x-api-key': key })).status, 200, key);
    assert.equal((await postTask(fromEnv.url)).status, 401);
  });

  it('--basic and --basic-file: the listed users with their passwords, nobody else', async () => {
    const { dir, cleanup } = scratchDir({ users: 'carol:pass,with:colons\n' });
    after(cleanup);
    const server = await serve([...LISTEN, '--basic', 'alice:wonderland', '--basic-file', join(dir, 'users')]);
    const basic = (pair: string) => ({ authorization: `Basic ${Buffer.from(pair).toString('base64')}` });
    assert.equal((await postTask(server.url, basic('alice:wonderland'))).status, 200);
    assert.equal((await postTask(server.url, basic('carol:pass,with:colons'))).status, 200);
    assert.deepEqual(await postTask(server.url, basic('alice:looking-glass')), { status: 401, code: 'unauthenticated' });
    assert.equal((await postTask(server.url)).status, 401);
  });

  it('--jwt-secret-file with --jwt-issuer: a token signed with the secret and issuer passes, others do not', async () => {
    const { dir, cleanup } = scratchDir({ secret: 'a-long-shared-secret\n' });
    after(cleanup);
    const server = await serve([...LISTEN, '--jwt-secret-file', join(dir, 'secret'), '--jwt-issuer', 'https://issuer.test']);
    const sign = (secret: string, issuer: string) =>
      new SignJWT({ sub: 'user-1' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(issuer)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    assert.equal((await postTask(server.url, bearer(await sign('a-long-shared-secret', 'https://issuer.test')))).status, 200);
    assert.equal(
      (await postTask(server.url, bearer(await sign('a-long-shared-secret', 'https://other.test')))).status,
      401,
      'issuer',
    );
    assert.equal((await postTask(server.url, bearer(await sign('another-secret', 'https://issuer.test')))).status, 401, 'secret');
    const card = (await (
      await fetch(`${server.url}/.well-known/agent.json`, {
        headers: bearer(await sign('a-long-shared-secret', 'https://issuer.test')),
      })
    ).json()) as {
      securitySchemes: Record<string, { metadata: { issuer: string } }>;
    };
    assert.equal(card.securitySchemes.bearer!.metadata.issuer, 'https://issuer.test');
  });

  it('--jwt-secret on the command line, and PARLEY_JWT_SECRET', async () => {
    const token = await new SignJWT({ sub: 'user-2' })
      .setProtectedHeader({ alg: 'HS512' })
      .sign(new TextEncoder().encode('s3cret'));
    const flag = await serve([...LISTEN, '--jwt-secret', 's3cret', '--jwt-algorithm', 'HS512']);
    const env = await serve([...LISTEN, '--jwt-algorithm', 'HS512'], { PARLEY_JWT_SECRET: 's3cret' });
    for (const server of [flag, env]) {
      assert.equal((await postTask(server.url, { authorization: `Bearer ${token}` })).status, 200);
      assert.equal((await postTask(server.url)).status, 401);
    }
  });

  it('a lower source of another kind is ignored with a one-line note', async () => {
    const server = await serve([...LISTEN, '--api-key', 'cli-key-1'], { PARLEY_JWT_SECRET: 'unused' });
    assert.equal((await postTask(server.url, { 'x-api-key': 'cli-key-1' })).status, 200);
    assert.match(
      server.stderr(),
      /^parley: note: JWT authentication from the environment is ignored: the command line configures API key\n$/,
    );
  });
});

describe('parley serve agent: TLS', { concurrency: 4, timeout: 120_000 }, () => {
  let certs: TestCertificates;
  before(() => {
    certs = makeTestCertificates();
  });
  after(() => certs.remove());

  const tlsFlags = () => ['--tls-cert', certs.server.certfile, '--tls-key', certs.server.keyfile];

  it('https with --tls-cert and --tls-key; a plain http request to it fails', async () => {
    const server = await serve(['--url', 'https://127.0.0.1:0', ...tlsFlags()]);
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const client = new AgentClient(server.url, { tls: { cafile: certs.ca.certfile } });
    after(() => client.close());
    const task = await client.sendTask('over tls');
    assert.equal(task.state, 'completed');
    await assert.rejects(fetch(`${server.url.replace('https:', 'http:')}/healthz`));
  });

  it('grpcs with an API key', async () => {
    const server = await serve(['--transport', 'grpc', '--url', 'grpcs://127.0.0.1:0', ...tlsFlags(), '--api-key', 'grpc-key-1']);
    assert.match(server.url, /^grpcs:\/\//);
    const authenticator = new ApiKeyAuthenticator({ validKeys: { 'grpc-key-1': [] } });
    const good = new AgentClient(server.url, { tls: { cafile: certs.ca.certfile }, authenticator, credentials: 'grpc-key-1' });
    const bad = new AgentClient(server.url, {
      tls: { cafile: certs.ca.certfile },
      authenticator: new ApiKeyAuthenticator({ validKeys: { nope: [] } }),
      credentials: 'nope',
    });
    after(() => Promise.all([good.close(), bad.close()]));
    assert.equal((await good.sendTask('over grpcs')).state, 'completed');
    await assert.rejects(
      bad.sendTask('refused'),
      (error: { statusCode?: unknown; code?: unknown }) =>
        error.statusCode === 'UNAUTHENTICATED' && error.code === 'unauthenticated',
    );
  });

  it('--require-client-cert: a client without a certificate is refused, one with a CA-signed certificate served', async () => {
    const server = await serve([
      '--url',
      'https://127.0.0.1:0',
      ...tlsFlags(),
      '--tls-ca',
      certs.ca.certfile,
      '--require-client-cert',
    ]);
    const get = (withCert: boolean) =>
      new Promise<number>((resolve, reject) => {
        const request = httpsRequest(`${server.url}/healthz`, {
          ca: readFileSync(certs.ca.certfile),
          ...(withCert && { cert: readFileSync(certs.client.certfile), key: readFileSync(certs.client.keyfile) }),
        });
        request.on('response', (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on('error', reject);
        request.end();
      });
    assert.equal(await get(true), 200);
    await assert.rejects(get(false));
  });
});

describe('parley serve agent --config', { concurrency: 4, timeout: 120_000 }, () => {
  let certs: TestCertificates;
  before(() => {
    certs = makeTestCertificates();
  });
  after(() => certs.remove());

  it('a valid file: name, url, transport config with TLS and an API key file, paths relative to the file; flags override it', async () => {
    const { dir, cleanup } = scratchDir({ keys: 'config-key-1\n' });
    after(cleanup);
    writeFileSync(join(dir, 'server.pem'), readFileSync(certs.server.certfile));
    writeFileSync(join(dir, 'server.key'), readFileSync(certs.server.keyfile));
    const config = {
      name: 'from-file',
      url: 'https://127.0.0.1:0',
      transport_config: { max_connections: 64, tls: { certfile: 'server.pem', keyfile: 'server.key' } },
      auth: { api_key: { keys_file: 'keys' } },
    };
    writeFileSync(join(dir, 'parley.json'), JSON.stringify(config));
    const server = await serve(['--config', join(dir, 'parley.json')]);
    assert.match(server.url, /^https:\/\//);
    const authenticator = new ApiKeyAuthenticator({ validKeys: { 'config-key-1': [] } });
    const client = new AgentClient(server.url, {
      tls: { cafile: certs.ca.certfile },
      authenticator,
      credentials: 'config-key-1',
    });
    after(() => client.close());
    assert.equal((await client.getCard()).name, 'from-file');

    const overridden = await serve(['--config', join(dir, 'parley.json'), '--name', 'from-flag', '--api-key', 'flag-key-1']);
    const flagClient = new AgentClient(overridden.url, {
      tls: { cafile: certs.ca.certfile },
      authenticator: new ApiKeyAuthenticator({ validKeys: { 'flag-key-1': [] } }),
      credentials: 'flag-key-1',
    });
    after(() => flagClient.close());
    assert.equal((await flagClient.getCard()).name, 'from-flag');
  });

  it('transport_config.allowed_origins: a listed browser origin is answered, another refused with 403', async () => {
    const config = { url: 'http://127.0.0.1:0', transport_config: { allowed_origins: ['http://localhost:5173'] } };
    const { dir, cleanup } = scratchDir({ 'parley.json': JSON.stringify(config) });
    after(cleanup);
    const server = await serve(['--config', join(dir, 'parley.json')]);
    const statusFrom = (origin: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${server.url}/.well-known/agent.json`, { headers: { origin }, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    assert.equal(await statusFrom('http://localhost:5173'), 200);
    assert.equal(await statusFrom('https://elsewhere.example'), 403);
  });

  const broken: readonly { what: string; config: unknown; pointer: string }[] = [
    {
      what: 'an allowed origin with a path',
      config: { transport_config: { allowed_origins: ['http://app.example/x'] } },
      pointer: '/transport_config/allowed_origins',
    },
    {
      what: 'a transport setting of the wrong type',
      config: { transport_config: { max_connections: 'many' } },
      pointer: '/transport_config/max_connections',
    },
    {
      what: 'a misspelt transport setting',
      config: { transport_config: { keepalive_intervall: 5 } },
      pointer: '/transport_config/keepalive_intervall',
    },
    {
      what: 'a cross-field rule',
      config: { transport_config: { tls: { certfile: 'a.pem' } } },
      pointer: '/transport_config/tls/keyfile',
    },
    { what: 'an unknown top-level key', config: { nmae: 'typo' }, pointer: '/nmae' },
    { what: 'two authenticator kinds', config: { auth: { api_key: { keys: ['k'] }, jwt: { secret: 's' } } }, pointer: '/auth' },
    {
      what: 'a bad JWT leeway',
      config: { auth: { jwt: { secret: 's', leeway_seconds: -1 } } },
      pointer: '/auth/jwt/leeway_seconds',
    },
    { what: 'a name that is not a string', config: { name: 7 }, pointer: '/name' },
  ];
  for (const row of broken) {
    it(`refuses ${row.what}, naming ${row.pointer}`, async () => {
      const { dir, cleanup } = scratchDir({ 'parley.json': JSON.stringify(row.config) });
      after(cleanup);
      const stderr = await assertUsageError(['--config', join(dir, 'parley.json')], /^parley: /);
      assert.ok(stderr.includes(`: ${row.pointer} `), stderr);
    });
  }

  it('refuses a file that is not JSON, and one that is missing', async () => {
    const { dir, cleanup } = scratchDir({ 'parley.json': '{"name": ' });
    after(cleanup);
    await assertUsageError(['--config', join(dir, 'parley.json')], /is not JSON/);
    await assertUsageError(['--config', join(dir, 'absent.json')], /cannot read .*absent\.json: no such file or directory/);
  });
});

describe('parley serve agent: usage errors', { concurrency: 6, timeout: 120_000 }, () => {
  const rows: readonly { args: string[]; pattern: RegExp; env?: Env }[] = [
    {
      args: ['--api-key', 'k', '--basic', 'u:p'],
      pattern: /configures API key and Basic authentication; an agent takes one kind at a time/,
    },
    {
      args: [],
      env: { PARLEY_API_KEYS: 'k', PARLEY_JWT_SECRET: 's' },
      pattern: /the environment configures API key and JWT authentication/,
    },
    {
      args: ['--url', 'https://127.0.0.1:0'],
      pattern: /https:\/\/127\.0\.0\.1:0 is a secure URL: give --tls-cert FILE and --tls-key FILE/,
    },
    { args: ['--transport', 'grpc', '--url', 'grpcs://127.0.0.1:0'], pattern: /grpcs:\/\/127\.0\.0\.1:0 is a secure URL/ },
    {
      args: ['--url', 'https://127.0.0.1:0', '--tls-cert', 'c.pem'],
      pattern: /is a secure URL: give --tls-cert FILE and --tls-key FILE/,
    },
    {
      args: ['--url', 'http://127.0.0.1:0', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'],
      pattern: /TLS settings need a secure URL/,
    },
    {
      args: ['--url', 'https://127.0.0.1:0', '--tls-cert', 'absent.pem', '--tls-key', 'absent.key'],
      pattern: /--tls-cert: cannot read absent\.pem/,
    },
    { args: ['--jwt-issuer', 'https://issuer.test', ...LISTEN], pattern: /--jwt-issuer.*need a JWT secret/ },
    { args: ['--jwt-secret', 's', '--jwt-leeway', 'soon'], pattern: /--jwt-leeway must be a whole number of seconds/ },
    { args: ['--jwt-secret', 's', '--jwt-algorithm', 'RS256'], pattern: /--jwt-algorithm must be one of HS256, HS384, HS512/ },
    { args: ['--basic', 'no-colon-here'], pattern: /--basic \(occurrence 1\): expected USER:PASSWORD/ },
    { args: ['--api-key-file', 'absent-keys'], pattern: /--api-key-file: cannot read absent-keys/ },
    { args: ['--api-key', ''], pattern: /--api-key needs a value/ },
  ];
  for (const row of rows) {
    it(`${[...Object.keys(row.env ?? {}), ...row.args].join(' ') || '(nothing)'}`, async () => {
      const stderr = await assertUsageError(row.args, row.pattern, row.env);
      for (const secret of ['no-colon-here']) assert.ok(!stderr.includes(secret), 'a secret is never repeated');
    });
  }

  it('--require-client-cert without --tls-ca', async () => {
    const certs = makeTestCertificates();
    after(() => certs.remove());
    await assertUsageError(
      [
        '--url',
        'https://127.0.0.1:0',
        '--tls-cert',
        certs.server.certfile,
        '--tls-key',
        certs.server.keyfile,
        '--require-client-cert',
      ],
      /--require-client-cert needs --tls-ca FILE/,
    );
  });
});
