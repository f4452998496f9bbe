// parley's own implementation of the pipeline's hooks (transport/hooks.ts): a request line per
// request through the server's logger, and OpenTelemetry spans when `tracing` is on. The
// servers and clients that compose a transport hand this object to it; a transport made
// directly takes it as its `hooks` option. A constant, so installing it allocates nothing.
import type { TransportHooks } from '../transport/hooks.js';
import { RequestLog } from './request-log.js';
import { loadTracing } from './tracing.js';

export const observabilityHooks: TransportHooks = {
  requestLog: (logger, transport) => new RequestLog(logger, transport),
  loadTracing,
};
