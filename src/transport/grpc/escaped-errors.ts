// The SvcTransport service with its escaped errors reported. Connect already ends a call whose
// handler throws with INTERNAL and keeps serving; what it does not do is tell anyone. A
// ConnectError is a status the service chose (UNAUTHENTICATED, CANCELLED, INVALID_ARGUMENT)
// and passes as it is; anything else escaped, and is logged before connect answers it.
import type { HandlerContext } from '@connectrpc/connect';
import { reportEscapedError } from '../escaped-error.js';
import type { TransportHandlers } from './transport-service.js';

/** The same handlers, reporting what escapes them; for both message shapes the service speaks. */
export function reportingEscapedErrors<Request, Response>(
  service: TransportHandlers<Request, Response>,
): TransportHandlers<Request, Response> {
  const report = (error: unknown): never => {
    if (!(error instanceof Error && error.name === 'ConnectError')) reportEscapedError('a gRPC call handler', error);
    throw error;
  };
  return {
    invoke: (request: Request, context: HandlerContext) => service.invoke(request, context).catch(report),
    async *stream(request: Request, context: HandlerContext): AsyncGenerator<Response> {
      try {
        yield* service.stream(request, context);
      } catch (error) {
        report(error);
      }
    },
  };
}
