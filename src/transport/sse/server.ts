// The sse server: the http server, with task streams written as `text/event-stream`. Every
// unary route, limit and deadline is http's; only the stream route's answer differs. That answer
// is opened with the dispatcher first, so a refused stream (authentication, validation, unknown
// route) is still a plain JSON HTTP error; only then does the event stream start
// (../http/event-stream.ts). Each frame carries a response envelope with `jsonrpc` added
// (written by ../envelope.ts, as every wire's are).
import type { ServerResponse } from 'node:http';
import type { BindingContext } from '../binding.js';
import type { Dispatcher, StreamFrame } from '../dispatcher.js';
import type { Endpoint, InboundRequest } from '../endpoint.js';
import { toEndpointError } from '../endpoint-error.js';
import { envelopeHead, errorEnvelope, okEnvelope } from '../envelope.js';
import { writeEventStream } from '../http/event-stream.js';
import { writeError, type StreamWriter } from '../http/request-listener.js';
import { HttpServer } from '../http/server.js';

export class SseServer extends HttpServer {
  constructor(context: BindingContext) {
    super(context, { streamWriter: writeSseStream });
  }
}

/** A task stream's answer as `text/event-stream`; also what an agent mounted in an app streams with. */
export const writeSseStream: StreamWriter = async (
  dispatcher: Dispatcher,
  endpoint: Endpoint,
  request: InboundRequest,
  res: ServerResponse,
): Promise<void> => {
  let frames: AsyncGenerator<StreamFrame, void, undefined>;
  try {
    frames = await dispatcher.openStream(request, endpoint);
  } catch (error) {
    writeError(res, toEndpointError(error), request.requestId);
    return;
  }
  const head = envelopeHead(request.requestId, true);
  // The event's JSON text was encoded (and size-checked) once; it goes into the envelope as is.
  await writeEventStream(dispatcher, request, frames, res, (frame) =>
    frame.ok ? okEnvelope(head, frame.encoded.text, frame.final) : errorEnvelope(head, frame.error),
  );
};
