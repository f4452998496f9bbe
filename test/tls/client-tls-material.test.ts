// Clients given TLS in memory (a trusted CA, a client certificate and key, a server name) on
// every secure scheme, with certificates made at test time; an AgentClient calls a protected
// agent over TLS with `auth` and `tls` and nothing else; a grpcs failure reads as one line.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ApiKeyAuthenticator } from '../../src/auth/api-key.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ConfigError } from '../../src/core/errors.js';
import { TransportConnectionError } from '../../src/transport/errors.js';
import { createTransport } from '../../src/transport/factory.js';
import type { Transport, TransportOptions } from '../../src/transport/transport.js';
import { makeTestCertificates, type TestCertificates } from '../support/certificates.js';
import { echoTask, ops, table } from '../support/transport-fixtures.js';

const SECURE = [
  ['http', 'https'],
  ['sse', 'https'],
  ['websocket', 'wss'],
  ['grpc', 'grpcs'],
] as const;

let certs: TestCertificates;
let pem: (file: string) => Buffer;
before(() => {
  certs = makeTestCertificates();
  pem = (file) => readFileSync(file);
});
after(() => certs.remove());

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => assert.fail(`expected a failure, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
}

for (const [name, scheme] of SECURE) {
  describe(`${name} client TLS in memory over ${scheme}://`, { concurrency: 1 }, () => {
    const started: Transport[] = [];
    const open = async (options: TransportOptions) => {
      const transport = await createTransport(name, `${scheme}://127.0.0.1:0`, options);
      await transport.start(table(echoTask()));
      started.push(transport);
      return transport;
    };
    const call = async (url: string, options: TransportOptions) => {
      const client = await createTransport(name, url, { timeout: 10, retry: { maxAttempts: 1 }, ...options });
      started.push(client);
      return client.unary(ops.sendTask, { id: 'tls' });
    };
    after(async () => {
      for (const transport of started.reverse()) await transport.stop().catch(() => undefined);
    });

    let server: Transport;
    let mutual: Transport;
    let otherHost: Transport;
    before(async () => {
      server = await open({ tls: certs.server });
      mutual = await open({ tls: { ...certs.server, cafile: certs.ca.certfile, requireClientCert: true } });
      otherHost = await open({ tls: certs.otherHost });
    });

    it('trusts a CA given as a Buffer, and as a PEM string', async () => {
      assert.deepEqual(await call(server.url, { tls: { ca: pem(certs.ca.certfile) } }), { id: 'tls', state: 'completed' });
      const text = pem(certs.ca.certfile).toString('utf8');
      assert.deepEqual(await call(server.url, { tls: { ca: text } }), { id: 'tls', state: 'completed' });
    });

    it('mutual TLS: a client certificate and key in memory are accepted; without them the server refuses', async () => {
      const material = { ca: pem(certs.ca.certfile), cert: pem(certs.client.certfile), key: pem(certs.client.keyfile) };
      assert.deepEqual(await call(mutual.url, { tls: material }), { id: 'tls', state: 'completed' });
      const refused = await rejection(call(mutual.url, { tls: { ca: pem(certs.ca.certfile) } }));
      assert.ok(refused instanceof Error, String(refused));
    });

    it('servername: the certificate is checked against the name given, not the URL host', async () => {
      const strict = await rejection(call(otherHost.url, { tls: { ca: pem(certs.ca.certfile) } }));
      assert.ok(strict instanceof TransportConnectionError, String(strict));
      const named = { tls: { ca: pem(certs.ca.certfile), servername: 'other.invalid' } };
      assert.deepEqual(await call(otherHost.url, named), { id: 'tls', state: 'completed' });
    });

    it('an untrusted server fails in one line, with no dangling note', async () => {
      const error = await rejection(call(server.url, { tls: { ca: pem(certs.untrustedCa.certfile) } }));
      assert.ok(error instanceof TransportConnectionError, String(error));
      assert.equal(error.retryable, false);
      assert.doesNotMatch(error.message, /\n|Resolution note/);
      assert.match(error.message, /certificate/);
    });
  });
}

describe('the tls option is checked', () => {
  const rows: ReadonlyArray<readonly [string, unknown, RegExp]> = [
    ['cert without key', { cert: 'PEM' }, /tls\.key: cert and key must be given together/],
    ['ca and cafile', { ca: 'PEM', cafile: '/x' }, /tls\.ca: give ca or cafile, not both/],
    ['a ca that is not PEM text or bytes', { ca: 42 }, /tls\.ca: must be a PEM string or Buffer/],
    ['an empty servername', { servername: '' }, /tls\.servername: must be a non-empty host name/],
  ];
  for (const [title, tls, message] of rows) {
    it(title, async () => {
      await assert.rejects(
        createTransport('http', 'https://127.0.0.1:1', { tls: tls as TransportOptions['tls'] }),
        (error: Error) => {
          assert.ok(error instanceof ConfigError, String(error));
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /PEM["']|42/);
          return true;
        },
      );
    });
  }
});

describe('AgentClient: a protected agent over TLS, with auth and tls only', () => {
  for (const [transport, scheme] of SECURE) {
    it(`over ${scheme} (${transport})`, async (t) => {
      const agent = new AgentServer({
        name: 'secure',
        transport,
        url: `${scheme}://127.0.0.1:0`,
        transportOptions: { tls: { ...certs.server, cafile: certs.ca.certfile, requireClientCert: true } },
        authenticator: new ApiKeyAuthenticator({ validKeys: { 'k-1': [] } }),
      });
      await agent.start();
      t.after(() => agent.stop());
      const tls = { ca: pem(certs.ca.certfile), cert: pem(certs.client.certfile), key: pem(certs.client.keyfile) };
      const client = new AgentClient(agent.url, { transport, protocol: 'parley', auth: { apiKey: 'k-1' }, tls });
      t.after(() => client.close());
      assert.equal((await client.sendTask('over tls')).state, 'completed');
      assert.equal((await client.getCard()).name, 'secure');
    });
  }
});
