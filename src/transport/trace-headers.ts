// A request's W3C trace context as the wires carry it: two strings, moved as they are. Servers
// read them (headers, metadata, the websocket frame's `trace`), clients write them; only the
// tracer (src/observability/tracing.ts) parses them, and ignores what does not parse.
import { TRACEPARENT_HEADER, TRACESTATE_HEADER } from './wire-names.js';

export interface TraceHeaders {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** The trace context among a request's headers or metadata; undefined without a traceparent. */
export function traceHeadersFrom(header: (name: string) => string | null | undefined): TraceHeaders | undefined {
  const traceparent = header(TRACEPARENT_HEADER);
  if (!traceparent) return undefined;
  const tracestate = header(TRACESTATE_HEADER);
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** Adds a call's trace context to the headers (or metadata) it is sent with. */
export function writeTraceHeaders(headers: Record<string, string | number>, trace: TraceHeaders | null): void {
  if (!trace) return;
  headers[TRACEPARENT_HEADER] = trace.traceparent;
  if (trace.tracestate) headers[TRACESTATE_HEADER] = trace.tracestate;
}
