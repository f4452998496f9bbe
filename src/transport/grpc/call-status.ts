// The status a SvcTransport call ends with when its handler throws. A CallStatus is a status
// the service chose (UNAUTHENTICATED, CANCELLED, INVALID_ARGUMENT) and passes as it is;
// anything else escaped (a bug, or input no check foresaw): it is logged, and the call alone
// ends with INTERNAL, without the error's text, which is for the log and not for the peer.
import { CallStatus, GrpcStatus } from './errors.js';

/** Where an escaped error goes: Dispatcher.reportEscaped (the server's log, else stderr). */
export type ReportEscaped = (where: string, error: unknown) => void;

export function callStatusOf(error: unknown, report: ReportEscaped): CallStatus {
  if (error instanceof CallStatus) return error;
  report('a gRPC call handler', error);
  return new CallStatus(GrpcStatus.INTERNAL, 'the server failed while handling the call');
}
