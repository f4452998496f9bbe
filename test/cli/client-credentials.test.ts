// The client commands calling protected servers over TLS, as a user runs them: agents and
// registries in this process (an API key one, a bearer JWT one, a Basic one, all on https with
// mutual TLS, certificates made at test time), the `parley` command in a child process with
// --api-key, --token or --basic (and their -file and environment forms) and --ca, --cert,
// --key. Wrong credentials and missing certificates fail with exit 1 and one line; mistakes in
// the flags are usage errors (exit 2). `serve agent --metrics` serves its metrics.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import { BasicAuthenticator } from '../../src/auth/basic.js';
import { JwtAuthenticator } from '../../src/auth/jwt.js';
import { RegistryServer } from '../../src/registry/registry-server.js';
import { makeTestCertificates, type TestCertificates } from '../support/certificates.js';
import { type CliResult, runCli, scratchDir, untilServing } from './run-cli.js';

const SECRET = 'cli-test-secret-of-at-least-32-bytes!';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/** The environment without any credential variable a developer may have set. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^PARLEY_(REGISTRY_)?(API_KEY|TOKEN|BASIC)$/.test(name)) delete env[name];
  return { ...env, ...extra };
}

interface Kind {
  readonly name: string;
  readonly authenticator: () => Authenticator;
  /** The flag and its value. */
  readonly flag: readonly [string, string];
  /** The same credential as a -file flag's file contents, and as an environment variable. */
  readonly file: readonly [string, string];
  readonly env: string;
  readonly wrong: readonly [string, string];
}

let certs: TestCertificates;
let jwt: string;
let scratch: { dir: string; cleanup: () => void };
let kinds: Kind[];

before(async () => {
  certs = makeTestCertificates();
  scratch = scratchDir();
  jwt = await new SignJWT({ sub: 'cli-user' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('30m')
    .sign(new TextEncoder().encode(SECRET));
  kinds = [
    {
      name: 'api key',
      authenticator: () => new ApiKeyAuthenticator({ validKeys: { 'cli-key-1': [] } }),
      flag: ['--api-key', 'cli-key-1'],
      file: ['--api-key-file', '# the key\ncli-key-1\n'],
      env: 'API_KEY',
      wrong: ['--api-key', 'cli-key-2'],
    },
    {
      name: 'bearer JWT',
      authenticator: () => new JwtAuthenticator({ secret: SECRET }),
      flag: ['--token', jwt],
      file: ['--token-file', `${jwt}\n`],
      env: 'TOKEN',
      wrong: ['--token', `${jwt.slice(0, -4)}AAAA`],
    },
    {
      name: 'basic',
      authenticator: () => new BasicAuthenticator({ validCredentials: { ada: 'p@ss:word' } }),
      flag: ['--basic', 'ada:p@ss:word'],
      file: ['--basic-file', 'ada:p@ss:word\n'],
      env: 'BASIC',
      wrong: ['--basic', 'ada:nope'],
    },
  ];
});
after(() => {
  certs.remove();
  scratch.cleanup();
});

const mutualTls = () => ({ ...certs.server, cafile: certs.ca.certfile, requireClientCert: true });
const tlsFlags = () => ['--ca', certs.ca.certfile, '--cert', certs.client.certfile, '--key', certs.client.keyfile];
const cli = (args: readonly string[], env = cleanEnv()) => runCli(args, { cwd: scratch.dir, env });

function assertOk(result: CliResult, what: string): void {
  assert.equal(result.code, 0, `${what}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}

/** Exit 1 with one `parley: ...` line on stderr matching `reason`. */
function assertRefused(result: CliResult, reason: RegExp): void {
  assert.equal(result.code, 1, `stdout: ${result.stdout}\nstderr: ${result.stderr}`);
  const lines = result.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, /^parley: /);
  assert.match(lines[0]!, reason);
}

describe('client commands against protected agents and registries over mutual TLS', { concurrency: 1, timeout: 600_000 }, () => {
  const servers: Array<{ stop(): Promise<void> }> = [];
  const agents = new Map<string, AgentServer>();
  const registries = new Map<string, RegistryServer>();
  before(async () => {
    for (const kind of kinds) {
      const agent = new AgentServer({
        name: `guarded-${kind.env.toLowerCase()}`,
        transport: 'http',
        url: 'https://127.0.0.1:0',
        transportOptions: { tls: mutualTls() },
        authenticator: kind.authenticator(),
      });
      const registry = new RegistryServer({
        transport: 'http',
        url: 'https://127.0.0.1:0',
        transportOptions: { tls: mutualTls() },
        authenticator: kind.authenticator(),
      });
      await agent.start();
      await registry.start();
      servers.push(agent, registry);
      agents.set(kind.name, agent);
      registries.set(kind.name, registry);
    }
  });
  after(async () => {
    for (const server of servers) await server.stop();
  });

  const agentCommands = (url: string) =>
    [
      ['send', url, 'hello'],
      ['stream', url, 'hello'],
      ['card', url],
      ['health', url],
    ] as const;

  for (const index of [0, 1, 2]) {
    it(`each agent command with the flag, its -file form and the environment (kind ${index + 1})`, async () => {
      const kind = kinds[index]!;
      const url = agents.get(kind.name)!.url;
      const file = join(scratch.dir, `secret-${index}`);
      writeFileSync(file, kind.file[1]);
      for (const command of agentCommands(url)) {
        assertOk(await cli([...command, ...kind.flag, ...tlsFlags()]), `${command[0]} ${kind.flag[0]}`);
      }
      assertOk(await cli(['send', url, 'from a file', kind.file[0], file, ...tlsFlags()]), kind.file[0]);
      const fromEnv = cleanEnv({ [`PARLEY_${kind.env}`]: kind.flag[1] });
      assertOk(await cli(['card', url, ...tlsFlags()], fromEnv), `PARLEY_${kind.env}`);
      assertRefused(await cli(['send', url, 'hi', ...kind.wrong, ...tlsFlags()]), /401|[Ii]nvalid|failed/);
      assertRefused(await cli(['send', url, 'hi', ...tlsFlags()]), /failed/);
    });

    it(`each registry command with the flag, its -file form and PARLEY_REGISTRY_ (kind ${index + 1})`, async () => {
      const kind = kinds[index]!;
      const url = registries.get(kind.name)!.url;
      const agentUrl = `http://127.0.0.1:1/cli-${index}`;
      const card = join(scratch.dir, `card-${index}.json`);
      writeFileSync(card, JSON.stringify({ name: `listed-${index}`, description: 'listed', url: agentUrl, version: '1.0.0' }));
      const file = join(scratch.dir, `registry-secret-${index}`);
      writeFileSync(file, kind.file[1]);
      assertOk(await cli(['register', url, '--card', card, ...kind.flag, ...tlsFlags()]), `register ${kind.flag[0]}`);
      const found = await cli(['discover', url, '--json', kind.file[0], file, ...tlsFlags()]);
      assertOk(found, `discover ${kind.file[0]}`);
      assert.deepEqual(
        (JSON.parse(found.stdout) as Array<{ url: string }>).map((listed) => listed.url),
        [agentUrl],
      );
      const fromEnv = cleanEnv({ [`PARLEY_REGISTRY_${kind.env}`]: kind.flag[1] });
      assertOk(await cli(['unregister', url, agentUrl, ...tlsFlags()], fromEnv), `unregister PARLEY_REGISTRY_${kind.env}`);
      // An agent's variable is never sent to a registry.
      const agentsVariable = cleanEnv({ [`PARLEY_${kind.env}`]: kind.flag[1] });
      assertRefused(await cli(['discover', url, ...tlsFlags()], agentsVariable), /401|credentials|failed/);
      assertRefused(await cli(['discover', url, ...kind.wrong, ...tlsFlags()]), /401|[Ii]nvalid|failed/);
    });
  }

  it('TLS: without --ca the server is not trusted; without --cert/--key a mutual-TLS server refuses; each in one line', async () => {
    const kind = kinds[0]!;
    const url = agents.get(kind.name)!.url;
    assertRefused(await cli(['card', url, ...kind.flag]), /certificate/);
    assertRefused(await cli(['card', url, ...kind.flag, '--ca', certs.ca.certfile]), /failed/);
    assertOk(await cli(['card', url, ...kind.flag, ...tlsFlags(), '--servername', 'localhost']), '--servername');
    assertRefused(
      await cli(['card', url, ...kind.flag, ...tlsFlags(), '--servername', 'other.invalid']),
      /other\.invalid|certificate|altnames/i,
    );
  });

  it('serve agent --registry joins a protected mutual-TLS registry with --registry-token-file and --registry-ca/-cert/-key', async (t) => {
    const registry = registries.get('bearer JWT')!;
    const file = join(scratch.dir, 'registry-token');
    writeFileSync(file, `${jwt}\n`);
    const child = spawn(
      process.execPath,
      [
        '--import',
        TSX,
        MAIN,
        'serve',
        'agent',
        '--url',
        'http://127.0.0.1:0',
        '--name',
        'joiner',
        '--log-level',
        'silent',
        '--registry',
        registry.url,
        '--registry-token-file',
        file,
        '--registry-ca',
        certs.ca.certfile,
        '--registry-cert',
        certs.client.certfile,
        '--registry-key',
        certs.client.keyfile,
      ],
      { cwd: ROOT, env: cleanEnv({ PARLEY_DEBUG: '' }), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    t.after(() => child.kill('SIGKILL'));
    const serving = await untilServing(child);
    assert.match(serving.stdout(), new RegExp(`^registered with ${registry.url}$`, 'm'), serving.stderr());
    const found = await cli(['discover', registry.url, '--name', 'joiner', '--json', '--token', jwt, ...tlsFlags()]);
    assertOk(found, 'discover the joiner');
    assert.deepEqual(
      (JSON.parse(found.stdout) as Array<{ url: string }>).map((listed) => listed.url),
      [serving.url],
    );
    child.kill('SIGTERM');
    assert.equal(await serving.exited, 0, serving.stderr());
  });

  it('over wss and grpcs too: send with --token, --ca, --cert and --key', async () => {
    for (const [transport, scheme] of [
      ['websocket', 'wss'],
      ['grpc', 'grpcs'],
    ] as const) {
      const agent = new AgentServer({
        name: `guarded-${transport}`,
        transport,
        url: `${scheme}://127.0.0.1:0`,
        transportOptions: { tls: mutualTls() },
        authenticator: new JwtAuthenticator({ secret: SECRET }),
      });
      await agent.start();
      try {
        assertOk(await cli(['send', agent.url, 'hello', '--token', jwt, ...tlsFlags()]), `${scheme} --token`);
        assertOk(await cli(['stream', agent.url, 'hello', '--token', jwt, ...tlsFlags()]), `${scheme} stream`);
        assertRefused(await cli(['send', agent.url, 'hello', ...tlsFlags()]), /UNAUTHENTICATED|401|failed/);
      } finally {
        await agent.stop();
      }
    }
  });
});

describe('mistakes in the credential and TLS flags are usage errors, in the command flags', { concurrency: 4 }, () => {
  const rows: ReadonlyArray<readonly [string, readonly string[], RegExp, Record<string, string>?]> = [
    [
      'two kinds',
      ['card', 'https://127.0.0.1:1', '--api-key', 'a', '--token', 'b'],
      /^parley: card: give one kind of credentials, not --api-key and --token$/m,
    ],
    [
      'a flag and its file',
      ['send', 'https://127.0.0.1:1', 'x', '--token', 'a', '--token-file', 'f'],
      /give --token or --token-file, not both/,
    ],
    ['basic without a colon', ['card', 'https://127.0.0.1:1', '--basic', 'ada'], /--basic: expected USER:PASSWORD/],
    [
      'a token with a space',
      ['card', 'https://127.0.0.1:1', '--token', 'a b'],
      /--token: expected a token of visible characters/,
    ],
    ['--cert without --key', ['health', 'https://127.0.0.1:1', '--cert', 'c.pem'], /--cert FILE and --key FILE go together/],
    [
      'TLS flags on a plain URL',
      ['discover', 'http://127.0.0.1:1', '--ca', 'ca.pem'],
      /--ca needs a secure URL \(https, wss or grpcs\), not http:/,
    ],
    ['an unreadable --ca', ['card', 'https://127.0.0.1:1', '--ca', 'missing.pem'], /--ca: cannot read missing\.pem \(ENOENT\)/],
    ['a missing token file', ['stream', 'https://127.0.0.1:1', 'x', '--token-file', 'none'], /--token-file: cannot read none/],
    [
      'two variables',
      ['card', 'https://127.0.0.1:1'],
      /the environment sets PARLEY_API_KEY and PARLEY_TOKEN/,
      { PARLEY_API_KEY: 'a', PARLEY_TOKEN: 'b' },
    ],
    [
      'an unknown transport',
      ['card', 'http://127.0.0.1:1', '--transport', 'carrier-pigeon'],
      /--transport must be http, sse, websocket or grpc/,
    ],
    [
      'a URL with no transport',
      ['unregister', 'ftp://x', 'http://a'],
      /give an http\(s\), ws\(s\) or grpc\(s\) URL, or --transport NAME/,
    ],
    [
      '--protocol a2a on sse',
      ['send', 'http://127.0.0.1:1', 'x', '--transport', 'sse', '--protocol', 'a2a'],
      /--protocol a2a needs the http transport, not --transport sse/,
    ],
    [
      'registry flags without --registry',
      ['serve', 'agent', '--registry-token', 't'],
      /^parley: serve agent: --registry-token needs --registry URL or registry\.url$/m,
    ],
    [
      '--metrics on grpc without --metrics-url',
      ['serve', 'agent', '--transport', 'grpc', '--metrics'],
      /--metrics with --transport grpc needs --metrics-url URL/,
    ],
  ];
  for (const [name, args, message, env] of rows) {
    it(name, async () => {
      const result = await cli(args, cleanEnv(env));
      assert.equal(result.code, 2, `stdout: ${result.stdout}\nstderr: ${result.stderr}`);
      assert.equal(result.stderr.split('\n').filter(Boolean).length, 1, result.stderr);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /options\.|auth\.|tls\./);
    });
  }
});

describe('serve --metrics', { timeout: 120_000 }, () => {
  for (const [role, transport, extra] of [
    ['agent', 'http', []],
    ['agent', 'grpc', ['--metrics-url', 'http://127.0.0.1:0']],
    ['registry', 'websocket', ['--metrics-url', 'http://127.0.0.1:0', '--db', ':memory:']],
  ] as const) {
    it(`serve ${role} --transport ${transport} ${extra.join(' ')}: prints where the metrics are, and serves them`, async (t) => {
      const listen = { http: 'http://127.0.0.1:0', grpc: 'grpc://127.0.0.1:0', websocket: 'ws://127.0.0.1:0' }[transport];
      const child = spawn(
        process.execPath,
        [
          '--import',
          TSX,
          MAIN,
          'serve',
          role,
          '--transport',
          transport,
          '--url',
          listen,
          '--metrics',
          '--log-level',
          'silent',
          ...extra,
        ],
        { cwd: ROOT, env: cleanEnv({ PARLEY_DEBUG: '' }), stdio: ['pipe', 'pipe', 'pipe'] },
      );
      t.after(() => child.kill('SIGKILL'));
      const serving = await untilServing(child);
      const address = /^metrics (\S+)$/m.exec(serving.stdout())?.[1];
      assert.ok(address, serving.stdout());
      assert.match(address, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      if (transport === 'http') assert.equal(address, `${serving.url}/metrics`);
      const scraped = await fetch(address);
      assert.equal(scraped.status, 200);
      assert.match(await scraped.text(), /^parley_requests_started_total/m);
      child.kill('SIGTERM');
      assert.equal(await serving.exited, 0, serving.stderr());
    });
  }
});
