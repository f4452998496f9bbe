// The TLS section of the transport configuration: its option and resolved types (generated from
// the schema, with each field's documentation) and the rules that tie its fields together.
// Per-field rules and defaults are applied from the generated table before these run.
import { ConfigError } from '../core/errors.js';
import type { Tls } from '../../generated/config/transport-config.js';

export type { Tls, TlsOptions } from '../../generated/config/transport-config.js';

/** Applies the cross-field rules to a TLS section whose fields are already checked. */
export function resolveTls(tls: Tls): Tls {
  if ((tls.certfile === null) !== (tls.keyfile === null)) {
    throw new ConfigError('tls.keyfile', tls.keyfile, 'certfile and keyfile must be given together');
  }
  if (tls.requireClientCert && tls.cafile === null) {
    throw new ConfigError('tls.cafile', null, 'requireClientCert needs a cafile to trust client certificates');
  }
  return tls;
}
