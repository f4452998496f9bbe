// One log line per served request, the same fields on every transport: the request-ended hook
// (transport/hooks.ts) that the shared dispatcher calls (and, for requests refused before it, the
// transport that refused them):
//
//   request_id   the correlation id (X-Svc-Request-ID, the envelope id); null when none was read
//   msg          `request` (unary) or `stream` (written when the stream ends)
//   transport    http, sse, websocket, grpc, runtime
//   operation    the operation's name (sendTask, readyz, ...); null when no route matched
//   method, path the route asked for (never the query string, which may carry a credential);
//                null for a message that could not be read as a request
//   status       the HTTP-like status: 200 when served, the error's status otherwise (what the
//                http transport answers; other wires carry the same number in their error
//                object), 499 for a stream its client left before the end
//   error        the error code when it failed (not_found, unauthenticated, client_closed, ...)
//   duration_ms  from the request's arrival at the dispatcher (or transport) to its answer
//   principal    the authenticated caller's principal_id, when there is one
//   events       streams: the events sent
//
// Never headers, credentials, query strings or bodies. Served requests log at info, 4xx at
// warn, 5xx at error.
import type { SecurityContext } from '../../generated/types/index.js';
import type { TransportName } from '../transport/capabilities.js';
import type { InboundRequest } from '../transport/endpoint.js';
import type { LineLevel, Logger, RequestEndedHook, RequestEnding, Refusal } from '../transport/hooks.js';

const SERVED: RequestEnding = { status: 200 };

/** The request-ended hook of a server that logs (installed by observability/hooks.ts). */
export class RequestLog implements RequestEndedHook {
  constructor(
    private readonly logger: Logger,
    private readonly transport: TransportName,
  ) {}

  /** A unary request's line; `ending` null when it was served. */
  unary(
    request: InboundRequest,
    operation: string | null,
    startedAt: number,
    security: SecurityContext | null,
    ending: RequestEnding | null,
  ): void {
    const { requestId, method, path } = request;
    this.write('request', { requestId, method, path, operation, startedAt, security, ending: ending ?? SERVED });
  }

  /** A stream's line, once it has ended (or was refused before its first event). */
  stream(
    request: InboundRequest,
    operation: string | null,
    startedAt: number,
    security: SecurityContext | null,
    ending: RequestEnding | null,
    events: number,
  ): void {
    const { requestId, method, path } = request;
    this.write('stream', { requestId, method, path, operation, startedAt, security, ending: ending ?? SERVED }, events);
  }

  refused(refusal: Refusal): void {
    const { requestId, method, path, operation = null, startedAt = performance.now(), error } = refusal;
    this.write('request', { requestId, method, path, operation, startedAt, security: null, ending: error });
  }

  private write(message: 'request' | 'stream', line: LineSource, events?: number): void {
    const level = levelOf(line.ending.status);
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: RequestFields = {
      request_id: line.requestId,
      transport: this.transport,
      operation: line.operation,
      method: line.method,
      path: line.path,
      status: line.ending.status,
      error: line.ending.code,
      duration_ms: Math.round((performance.now() - line.startedAt) * 1000) / 1000,
      principal: line.security?.principal_id,
    };
    this.logger[level](events === undefined ? fields : { ...fields, events }, message);
  }
}

/** What a line is made from, whichever kind of request it is about. */
interface LineSource {
  readonly requestId: string | null;
  readonly method: string | null;
  readonly path: string | null;
  readonly operation: string | null;
  readonly startedAt: number;
  readonly security: SecurityContext | null;
  readonly ending: RequestEnding;
}

/** The fields of a request line; pino leaves out the undefined ones (`error`, `principal`). */
interface RequestFields {
  readonly request_id: string | null;
  readonly transport: TransportName;
  readonly operation: string | null;
  readonly method: string | null;
  readonly path: string | null;
  readonly status: number;
  readonly error: string | undefined;
  readonly duration_ms: number;
  readonly principal: string | undefined;
}

function levelOf(status: number): LineLevel {
  return status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
}
