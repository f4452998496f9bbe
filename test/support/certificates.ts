// Certificates made at test time with Debian's openssl (installed by .ci/run), in a temporary
// folder removed after the tests: a CA, a server certificate for 127.0.0.1 and localhost, one
// for another host, an expired one, a client certificate, and a second CA nobody trusts with a
// client certificate of its own; or, for a test that only needs a TLS server, just a CA and its
// server certificate. No key material is ever committed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface KeyPair {
  readonly certfile: string;
  readonly keyfile: string;
}

export interface TestCertificates {
  readonly dir: string;
  /** The CA that signs everything below except the untrusted client. */
  readonly ca: KeyPair;
  /** Server certificate for IP 127.0.0.1 and DNS localhost. */
  readonly server: KeyPair;
  /** Server certificate, signed by the CA, for other.invalid only. */
  readonly otherHost: KeyPair;
  /** Server certificate for 127.0.0.1 whose validity ended yesterday. */
  readonly expired: KeyPair;
  /** Client certificate signed by the CA. */
  readonly client: KeyPair;
  /** A CA nobody trusts, and a client certificate it signed. */
  readonly untrustedCa: KeyPair;
  readonly untrustedClient: KeyPair;
  remove(): void;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): KeyPair {
  const pair = { certfile: join(dir, `${name}.pem`), keyfile: join(dir, `${name}.key`) };
  openssl([
    'req',
    '-x509',
    ...EC,
    '-days',
    '2',
    '-subj',
    `/CN=parley test ${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    pair.keyfile,
    '-out',
    pair.certfile,
  ]);
  return pair;
}

function makeLeaf(dir: string, name: string, ca: KeyPair, extensions: string, days = 2): KeyPair {
  const pair = { certfile: join(dir, `${name}.pem`), keyfile: join(dir, `${name}.key`) };
  const csr = join(dir, `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, extensions);
  openssl(['req', '-new', ...EC, '-subj', `/CN=${name}`, '-keyout', pair.keyfile, '-out', csr]);
  openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca.certfile,
    '-CAkey',
    ca.keyfile,
    '-CAcreateserial',
    '-days',
    String(days),
    '-extfile',
    ext,
    '-out',
    pair.certfile,
  ]);
  return pair;
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'parley-certs-'));
  const serverExt = (names: string) => `subjectAltName=${names}\nextendedKeyUsage=serverAuth\n`;
  const clientExt = 'extendedKeyUsage=clientAuth\n';
  const ca = makeCa(dir, 'ca');
  const untrustedCa = makeCa(dir, 'untrusted-ca');
  return {
    dir,
    ca,
    server: makeLeaf(dir, 'server', ca, serverExt('IP:127.0.0.1,DNS:localhost')),
    otherHost: makeLeaf(dir, 'other-host', ca, serverExt('DNS:other.invalid')),
    // openssl 3.0 takes a negative validity: the certificate ended a day before it was made.
    expired: makeLeaf(dir, 'expired', ca, serverExt('IP:127.0.0.1,DNS:localhost'), -1),
    client: makeLeaf(dir, 'client', ca, clientExt),
    untrustedCa,
    untrustedClient: makeLeaf(dir, 'untrusted-client', untrustedCa, clientExt),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Whether openssl runs here: a test that needs certificates is skipped without it. */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface ServerCertificate {
  /** The server's certificate (for 127.0.0.1 and localhost) and key. */
  readonly server: KeyPair;
  /** The CA that signed it: a client that trusts this file trusts the server. */
  readonly cafile: string;
  remove(): void;
}

/** A CA and one server certificate it signed, for a test that serves over TLS (two openssl runs). */
export function makeServerCertificate(): ServerCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'parley-server-cert-'));
  const ca = makeCa(dir, 'ca');
  return {
    server: makeLeaf(dir, 'server', ca, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'),
    cafile: ca.certfile,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
