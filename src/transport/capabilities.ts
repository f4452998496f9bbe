// What each transport can do; the health payload reports it.
import type { Health } from '../../generated/types/index.js';

export type Capabilities = Health['capabilities'];
export type TransportName = Health['transport'];

export const CAPABILITIES: Readonly<Record<TransportName, Capabilities>> = Object.freeze({
  http: { networked: true, streaming: false, tls: true, bidirectional: false, persistent_connections: true },
  sse: { networked: true, streaming: true, tls: true, bidirectional: false, persistent_connections: true },
  websocket: { networked: true, streaming: true, tls: true, bidirectional: true, persistent_connections: true },
  grpc: { networked: true, streaming: true, tls: true, bidirectional: false, persistent_connections: true },
  runtime: { networked: false, streaming: true, tls: false, bidirectional: false, persistent_connections: false },
});
