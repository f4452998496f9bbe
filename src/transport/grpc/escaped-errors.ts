// The SvcTransport service with its escaped errors reported. Connect already ends a call whose
// handler throws with INTERNAL and keeps serving; what it does not do is tell anyone. A
// ConnectError is a status the service chose (UNAUTHENTICATED, CANCELLED, INVALID_ARGUMENT)
// and passes as it is; anything else escaped, and is logged before connect answers it.
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { InvokeRequest, StreamRequest, SvcTransport } from '../../../generated/proto/svc/transport/v1/transport_pb.js';
import { reportEscapedError } from '../escaped-error.js';
import type { ResponseEnvelope } from './envelope.js';

type Service = ServiceImpl<typeof SvcTransport>;

export function reportingEscapedErrors(service: Service): Service {
  const report = (error: unknown): never => {
    if (!(error instanceof Error && error.name === 'ConnectError')) reportEscapedError('a gRPC call handler', error);
    throw error;
  };
  return {
    invoke: (request: InvokeRequest, context: HandlerContext) => (service.invoke(request, context) as Promise<ResponseEnvelope>).catch(report),
    async *stream(request: StreamRequest, context: HandlerContext): AsyncGenerator<ResponseEnvelope> {
      try {
        yield* service.stream(request, context) as AsyncIterable<ResponseEnvelope>;
      } catch (error) {
        report(error);
      }
    },
  };
}
