// Reads the TLS files named in the configuration into node:tls options. Key material is read
// here, at start, and never serialized.
import { readFileSync } from 'node:fs';
import type { SecureContextOptions } from 'node:tls';
import { ConfigError } from '../core/errors.js';
import type { TlsMaterial } from './tls-material.js';
import type { Tls } from './tls-settings.js';

export interface ServerTlsOptions extends SecureContextOptions {
  requestCert: boolean;
  rejectUnauthorized: boolean;
  minVersion: 'TLSv1.2';
}

export function serverTlsOptions(tls: Tls | null, url: string): ServerTlsOptions {
  if (!tls?.certfile || !tls.keyfile) {
    throw new ConfigError('tls', tls, `a secure server URL (${url}) needs tls.certfile and tls.keyfile`);
  }
  return {
    cert: readFileSync(tls.certfile),
    key: readFileSync(tls.keyfile),
    ca: tls.cafile ? readFileSync(tls.cafile) : undefined,
    requestCert: tls.requireClientCert,
    rejectUnauthorized: tls.requireClientCert,
    minVersion: 'TLSv1.2',
  };
}

export interface ClientTlsOptions extends SecureContextOptions {
  checkServerIdentity?: () => undefined;
  /** The name to send as SNI and check the certificate against, when it is not the URL's host. */
  servername?: string;
}

/** A client's node:tls options: the files of the configuration, or the material given in memory. */
export function clientTlsOptions(tls: Tls | null, material: TlsMaterial | null = null): ClientTlsOptions {
  if (!tls && !material) return {};
  const ca = material?.ca ?? (tls?.cafile ? readFileSync(tls.cafile) : undefined);
  const cert = material?.cert ?? (tls?.certfile ? readFileSync(tls.certfile) : undefined);
  const key = material?.key ?? (tls?.keyfile ? readFileSync(tls.keyfile) : undefined);
  return {
    ...(ca !== undefined && { ca: ca as SecureContextOptions['ca'] }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
    ...(material?.servername !== undefined && { servername: material.servername }),
    // Host name checks can be switched off; the CA chain is still verified.
    ...(tls && !tls.checkHostname ? { checkServerIdentity: () => undefined } : {}),
  };
}
