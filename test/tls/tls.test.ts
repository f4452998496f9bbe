// TLS and mutual TLS on every networked transport (spec: TLS and mutual TLS), with
// certificates made at test time. Each row is one rule or one attack; after the attacks every
// server still serves a trusted client.
import assert from 'node:assert/strict';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { connect as netConnect } from 'node:net';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ResolvedConfig } from '../../src/transport/config.js';
import { ConfigError } from '../../src/core/errors.js';
import { TransportConnectionError, TransportError } from '../../src/transport/errors.js';
import { createTransport } from '../../src/transport/factory.js';
import type { Transport, TransportOptions } from '../../src/transport/transport.js';
import { makeTestCertificates, type TestCertificates } from '../support/certificates.js';
import { echoTask, ops, table } from '../support/transport-fixtures.js';

const SECURE: ReadonlyArray<readonly [name: string, scheme: string, plain: string]> = [
  ['http', 'https', 'http'],
  ['sse', 'https', 'http'],
  ['websocket', 'wss', 'ws'],
  ['grpc', 'grpcs', 'grpc'],
];

let certs: TestCertificates;
before(() => {
  certs = makeTestCertificates();
});
after(() => certs.remove());

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => assert.fail(`expected a failure, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
}

for (const [name, scheme, plain] of SECURE) {
  describe(`${name} over ${scheme}://`, { concurrency: 1 }, () => {
    const started: Transport[] = [];
    const open = async (url: string, options: TransportOptions, endpoints = table(echoTask())) => {
      const transport = await createTransport(name, url, { timeout: 10, ...options });
      if (endpoints) await transport.start(endpoints);
      started.push(transport);
      return transport;
    };
    const caller = (url: string, options: TransportOptions) => open(url, options, null as never);
    const call = (client: Transport, id = 'tls') => client.unary(ops.sendTask, { id });
    after(async () => {
      for (const transport of started.reverse()) await transport.stop().catch(() => undefined);
    });

    let server: Transport;
    let mutual: Transport;
    before(async () => {
      server = await open(`${scheme}://127.0.0.1:0`, { tls: certs.server });
      mutual = await open(`${scheme}://127.0.0.1:0`, {
        tls: { ...certs.server, cafile: certs.ca.certfile, requireClientCert: true },
      });
    });

    it('serves a client that trusts its CA through cafile', async () => {
      assert.match(server.url, new RegExp(`^${scheme}://127\\.0\\.0\\.1:\\d+$`));
      assert.deepEqual(await call(await caller(server.url, { tls: { cafile: certs.ca.certfile } })), {
        id: 'tls',
        state: 'completed',
      });
    });

    it('a client with only the system roots refuses the test CA: a connection error, not retryable', async () => {
      const error = await rejection(call(await caller(server.url, {})));
      assert.ok(error instanceof TransportConnectionError, String(error));
      assert.equal(error.retryable, false);
    });

    it('a certificate for another host is refused, and accepted with checkHostname off (the CA still checked)', async () => {
      const other = await open(`${scheme}://127.0.0.1:0`, { tls: certs.otherHost });
      const strict = await rejection(call(await caller(other.url, { tls: { cafile: certs.ca.certfile } })));
      assert.ok(strict instanceof TransportConnectionError, String(strict));
      const relaxed = await caller(other.url, { tls: { cafile: certs.ca.certfile, checkHostname: false } });
      assert.deepEqual(await call(relaxed), { id: 'tls', state: 'completed' });
      const untrusted = await rejection(
        call(await caller(other.url, { tls: { cafile: certs.untrustedCa.certfile, checkHostname: false } })),
      );
      assert.ok(untrusted instanceof TransportConnectionError, 'checkHostname off never turns off the CA check');
    });

    it('an expired server certificate is refused even with checkHostname off', async () => {
      const expired = await open(`${scheme}://127.0.0.1:0`, { tls: certs.expired });
      const error = await rejection(
        call(await caller(expired.url, { tls: { cafile: certs.ca.certfile, checkHostname: false } })),
      );
      assert.ok(error instanceof TransportConnectionError, String(error));
    });

    it('mutual TLS: a client certificate signed by the CA is served', async () => {
      const client = await caller(mutual.url, { tls: { cafile: certs.ca.certfile, ...certs.client } });
      assert.deepEqual(await call(client), { id: 'tls', state: 'completed' });
    });

    it('mutual TLS: a client without a certificate is refused', async () => {
      const error = await rejection(call(await caller(mutual.url, { tls: { cafile: certs.ca.certfile } })));
      assert.ok(error instanceof TransportError, String(error));
    });

    it('mutual TLS: a client certificate from an untrusted CA is refused', async () => {
      const client = await caller(mutual.url, { tls: { cafile: certs.ca.certfile, ...certs.untrustedClient } });
      const error = await rejection(call(client));
      assert.ok(error instanceof TransportError, String(error));
    });

    it('a TLS 1.1-only client is refused (while the same client reaches a TLS 1.1 server)', async () => {
      const legacy = {
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT@SECLEVEL=0',
        ca: readFileSync(certs.ca.certfile),
      } as const;
      // The control: this client can speak TLS 1.1 at all on this machine.
      const old = createTlsServer({ ...readPair(certs.server), minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' }, (socket) =>
        socket.end(),
      );
      await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
      try {
        const version = await new Promise<string>((resolve, reject) => {
          const socket = tlsConnect(
            { ...legacy, host: '127.0.0.1', port: (old.address() as { port: number }).port, servername: 'localhost' },
            () => {
              resolve(socket.getProtocol() ?? '');
              socket.destroy();
            },
          );
          socket.on('error', reject);
        });
        assert.equal(version, 'TLSv1.1');
      } finally {
        old.close();
      }
      const port = Number(new URL(server.url).port);
      const error = await new Promise<Error | null>((resolve) => {
        const socket = tlsConnect({ ...legacy, host: '127.0.0.1', port, servername: 'localhost' }, () => {
          socket.destroy();
          resolve(null);
        });
        socket.on('error', resolve);
      });
      assert.ok(error, 'the handshake must fail');
      assert.match(String((error as NodeJS.ErrnoException).code ?? error.message), /PROTOCOL|VERSION|ALERT|SSL/i);
    });

    it(`a plain ${plain}:// client on the ${scheme}:// port fails cleanly`, async () => {
      const error = await rejection(call(await caller(server.url.replace(`${scheme}://`, `${plain}://`), {})));
      assert.ok(error instanceof TransportError, String(error));
    });

    it(`a ${scheme}:// client on a plain ${plain}:// port fails cleanly`, async () => {
      const insecure = await open(`${plain}://127.0.0.1:0`, {});
      const error = await rejection(
        call(await caller(insecure.url.replace(`${plain}://`, `${scheme}://`), { tls: { cafile: certs.ca.certfile } })),
      );
      assert.ok(error instanceof TransportError, String(error));
    });

    it('garbage on the TLS port is dropped without harming the server', async () => {
      const port = Number(new URL(server.url).port);
      await new Promise<void>((resolve) => {
        const socket = netConnect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n\u0000\u0001\u0002'));
        socket.on('close', () => resolve());
        socket.on('error', () => undefined);
        socket.resume();
      });
    });

    it('after every attack the servers still serve trusted clients', async () => {
      assert.deepEqual(await call(await caller(server.url, { tls: { cafile: certs.ca.certfile } }), 'after'), {
        id: 'after',
        state: 'completed',
      });
      const client = await caller(mutual.url, { tls: { cafile: certs.ca.certfile, ...certs.client } });
      assert.deepEqual(await call(client, 'after'), { id: 'after', state: 'completed' });
    });
  });
}

function readPair(pair: { certfile: string; keyfile: string }) {
  return { cert: readFileSync(pair.certfile), key: readFileSync(pair.keyfile) };
}

describe('TLS settings (spec rules)', () => {
  it('a secure server URL without certfile and keyfile is refused at start (ValueError)', async () => {
    for (const [name, scheme] of SECURE) {
      const transport = await createTransport(name, `${scheme}://127.0.0.1:0`, {});
      await assert.rejects(transport.start(table(echoTask())), ConfigError, `${name}`);
    }
  });

  for (const [rule, tls, field] of [
    ['certfile without keyfile', { certfile: '/x/cert.pem' }, 'tls.keyfile'],
    ['keyfile without certfile', { keyfile: '/x/key.pem' }, 'tls.keyfile'],
    ['requireClientCert without cafile', { certfile: '/c', keyfile: '/k', requireClientCert: true }, 'tls.cafile'],
  ] as const) {
    it(`${rule} is a ValueError (ConfigError naming ${field})`, () => {
      assert.throws(
        () => new ResolvedConfig({ tls }),
        (error: unknown) => error instanceof ConfigError && error.field === field,
      );
    });
  }

  it('an unreadable certificate file fails the start with the OS error', async () => {
    const transport = await createTransport('http', 'https://127.0.0.1:0', {
      tls: { certfile: '/nonexistent/cert.pem', keyfile: '/nonexistent/key.pem' },
    });
    await assert.rejects(transport.start(table(echoTask())), (error: NodeJS.ErrnoException) => error.code === 'ENOENT');
  });

  it('serializes paths and flags only, never certificate or key bytes', () => {
    const config = new ResolvedConfig({
      tls: { ...certs.server, cafile: certs.ca.certfile, requireClientCert: true, checkHostname: false },
    });
    const serialized = JSON.stringify(config.toJSON());
    assert.deepEqual(config.toJSON().tls, {
      certfile: certs.server.certfile,
      keyfile: certs.server.keyfile,
      cafile: certs.ca.certfile,
      require_client_cert: true,
      check_hostname: false,
    });
    assert.doesNotMatch(serialized, /BEGIN|PRIVATE KEY/);
  });
});
