// TLS given in memory rather than as files, for clients: a trusted CA, a client certificate and
// key (mutual TLS), and the server name to send and check. These sit beside the serializable
// file settings (tls-settings.ts) in the same `tls` option, and are taken out of it before the
// configuration is resolved: certificate and key bytes are never part of the serialized form.
import { ConfigError } from '../core/errors.js';
import type { TlsOptions } from './tls-settings.js';

export type Pem = string | Buffer;

export interface TlsMaterial {
  /** Trusted CA certificates (PEM), in place of the system roots; or give `cafile`. */
  readonly ca?: Pem | readonly Pem[];
  /** The client certificate chain (PEM) for mutual TLS, with `key`; or give `certfile`. */
  readonly cert?: Pem;
  /** The private key (PEM) of `cert`; or give `keyfile`. */
  readonly key?: Pem;
  /** The name sent as SNI and checked against the server's certificate, in place of the URL's host. */
  readonly servername?: string;
}

/** The `tls` option a transport takes: the file settings of the configuration, and the in-memory material. */
export type TransportTlsOptions = TlsOptions & TlsMaterial;

const MATERIAL_KEYS = ['ca', 'cert', 'key', 'servername'] as const;

/** Splits the `tls` option into the configuration's settings and the checked material (null when none). */
export function splitTlsOption(tls: TransportTlsOptions | null | undefined): {
  settings: TlsOptions | null | undefined;
  material: TlsMaterial | null;
} {
  if (tls === null || tls === undefined || typeof tls !== 'object') return { settings: tls, material: null };
  const { ca, cert, key, servername, ...settings } = tls;
  if (MATERIAL_KEYS.every((name) => tls[name] === undefined)) return { settings, material: null };
  if (ca !== undefined && !isPemList(ca))
    throw new ConfigError('tls.ca', '(PEM)', 'must be a PEM string or Buffer, or a list of them');
  if (cert !== undefined && !isPem(cert)) throw new ConfigError('tls.cert', '(PEM)', 'must be a PEM string or Buffer');
  if (key !== undefined && !isPem(key)) throw new ConfigError('tls.key', '(hidden)', 'must be a PEM string or Buffer');
  if ((cert === undefined) !== (key === undefined))
    throw new ConfigError('tls.key', '(hidden)', 'cert and key must be given together');
  if (ca !== undefined && settings.cafile) throw new ConfigError('tls.ca', '(PEM)', 'give ca or cafile, not both');
  if (cert !== undefined && settings.certfile)
    throw new ConfigError('tls.cert', '(PEM)', 'give cert and key, or certfile and keyfile, not both');
  if (servername !== undefined && (typeof servername !== 'string' || servername === '')) {
    throw new ConfigError('tls.servername', servername, 'must be a non-empty host name');
  }
  return { settings, material: Object.freeze({ ca, cert, key, servername }) };
}

function isPem(value: unknown): value is Pem {
  return (typeof value === 'string' && value !== '') || (Buffer.isBuffer(value) && value.length > 0);
}

function isPemList(value: unknown): boolean {
  return isPem(value) || (Array.isArray(value) && value.length > 0 && value.every(isPem));
}
