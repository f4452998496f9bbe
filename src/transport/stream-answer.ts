// A unary route's answer that is a stream after all. A protocol that carries unary calls and
// streams over one route (A2A's JSON-RPC: SendMessage and SendStreamingMessage both POST /)
// learns which it serves only once it has read the body; its unary handler then answers a
// StreamAnswer, and the dispatcher serves the events as it serves a stream's (a stream slot,
// the credentials' expiry, each event measured against max_event_bytes), which the http
// transport writes as text/event-stream.
import type { ErrorObject } from './endpoint-error.js';
import type { StreamItem } from './endpoint.js';

export class StreamAnswer {
  constructor(
    /** The events, in order; the one marked final closes the stream. */
    readonly items: AsyncIterable<StreamItem>,
    /**
     * The last event for a failure the pipeline meets once the stream is open (credentials
     * that expired, an event over the limit), in the route's own protocol.
     */
    readonly failureEvent: (error: ErrorObject) => unknown,
    /**
     * Called when the stream is refused before its first item is read (no stream slot came,
     * the credentials had expired): a generator never started cannot clean up by itself.
     */
    readonly abandon: () => void = () => undefined,
    /** The SSE event name of that failure event; absent, a plain message. */
    readonly failureEventName?: string,
  ) {}
}
