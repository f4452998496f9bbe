// grpc.health.v1.Health, following the transport's lifecycle: every known service is SERVING
// while the transport is ready and NOT_SERVING once it stops. Known services are "" (the
// server as a whole) and svc.transport.v1.SvcTransport. Check of any other name fails with
// NOT_FOUND; Watch of one sends SERVICE_UNKNOWN and stays open, as the standard says. Watch
// streams every change and ends after the NOT_SERVING of a stop. Never authenticated.
import type { sendUnaryData, ServerUnaryCall, ServerWritableStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  type HealthCheckRequest,
} from '../../../generated/proto/grpc/health/v1/health_pb.js';
import { callStatusOf, type ReportEscaped } from './call-status.js';
import type { GrpcJsModule } from './load.js';

export { ServingStatus };

export class HealthState {
  private readonly statuses = new Map<string, ServingStatus>();
  private waiters: Array<() => void> = [];
  private stopped = false;

  constructor(services: readonly string[]) {
    for (const service of services) this.statuses.set(service, ServingStatus.NOT_SERVING);
  }

  get closed(): boolean {
    return this.stopped;
  }

  /** The status of a known service, or undefined. */
  get(service: string): ServingStatus | undefined {
    return this.statuses.get(service);
  }

  all(): ReadonlyMap<string, ServingStatus> {
    return this.statuses;
  }

  /** Sets every known service to `status` and wakes the watchers. */
  setAll(status: ServingStatus): void {
    for (const service of this.statuses.keys()) this.statuses.set(service, status);
    this.wake();
  }

  /** The transport stops: NOT_SERVING for all, then watchers end after sending it. */
  close(): void {
    this.setAll(ServingStatus.NOT_SERVING);
    this.stopped = true;
    this.wake();
  }

  /** Resolves at the next change, at close, or when `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        signal.removeEventListener('abort', done);
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.waiters.push(done);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

export function createHealthService(grpc: GrpcJsModule, state: HealthState, report: ReportEscaped): UntypedServiceImplementation {
  const check = (call: ServerUnaryCall<HealthCheckRequest, unknown>, callback: sendUnaryData<unknown>): void => {
    const status = state.get(call.request.service);
    if (status === undefined) {
      callback({ code: grpc.status.NOT_FOUND, details: `unknown service ${JSON.stringify(call.request.service)}` });
      return;
    }
    callback(null, { status });
  };

  const list = (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): void => {
    const statuses: Record<string, { status: ServingStatus }> = {};
    for (const [service, status] of state.all()) statuses[service] = { status };
    callback(null, { statuses });
  };

  const follow = async (call: ServerWritableStream<HealthCheckRequest, unknown>): Promise<void> => {
    const left = new AbortController();
    call.once('cancelled', () => left.abort());
    let sent: ServingStatus | undefined;
    for (;;) {
      const status = state.get(call.request.service) ?? ServingStatus.SERVICE_UNKNOWN;
      if (status !== sent) {
        sent = status;
        call.write({ status });
        // Re-check before waiting: a change may have happened while the client read.
        continue;
      }
      if (state.closed || left.signal.aborted) break;
      await state.changed(left.signal);
    }
    if (!left.signal.aborted) call.end();
  };

  const watch = (call: ServerWritableStream<HealthCheckRequest, unknown>): void => {
    follow(call).catch((error: unknown) => call.emit('error', callStatusOf(error, report)));
  };

  return { check, list, watch };
}
