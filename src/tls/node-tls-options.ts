// Reads the TLS files named in the configuration into node:tls options. Key material is read
// here, at start, and never serialized.
import { readFileSync } from 'node:fs';
import type { SecureContextOptions } from 'node:tls';
import { ConfigError } from '../core/errors.js';
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
}

export function clientTlsOptions(tls: Tls | null): ClientTlsOptions {
  if (!tls) return {};
  return {
    cert: tls.certfile ? readFileSync(tls.certfile) : undefined,
    key: tls.keyfile ? readFileSync(tls.keyfile) : undefined,
    ca: tls.cafile ? readFileSync(tls.cafile) : undefined,
    // Host name checks can be switched off; the CA chain is still verified.
    ...(tls.checkHostname ? {} : { checkServerIdentity: () => undefined }),
  };
}
