// The HTTP+JSON binding's streams (SendStreamingMessage, SubscribeToTask): server-sent events
// whose `data` is each StreamResponse the handler yields, in ProtoJSON, as A2A's section 11.7
// writes them; the stream ends after the event that closes it (a final or interrupted status).
// The first event is awaited before the stream opens, so a refusal (bad fields, an unknown or
// finished task) is still an ordinary HTTP error with the binding's error body. A failure later
// is the stream's last event, that same error body ({"error": {...}}), named `event: error`.
import type { JsonObject } from '@bufbuild/protobuf';
import type { StreamItem } from '../../transport/endpoint.js';
import type { ErrorObject } from '../../transport/endpoint-error.js';
import { StreamAnswer } from '../../transport/stream-answer.js';
import { A2aError } from '../errors/a2a-error.js';
import { asA2aError } from '../handler/failures.js';
import { closesStream } from '../model/stream-responses.js';
import { restErrorBody } from './errors.js';

/**
 * The SSE name of the event that carries a failure: the official SDK's REST client (and its
 * server) tell an error from a StreamResponse by it, the body alone being ambiguous.
 */
const ERROR_EVENT = 'error';

export async function openRestStream(events: AsyncIterable<JsonObject>): Promise<StreamAnswer> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new A2aError('internalError', 'the stream ended before its first event');
  return new StreamAnswer(
    restEvents(first.value, iterator),
    failureEvent,
    // Refused before the events were read: the handler's stream stops (its task is canceled).
    () => void iterator.return?.()?.catch(() => undefined),
    ERROR_EVENT,
  );
}

async function* restEvents(first: JsonObject, rest: AsyncIterator<JsonObject>): AsyncGenerator<StreamItem> {
  let event = first;
  try {
    for (;;) {
      const final = closesStream(event);
      yield { result: event, final };
      if (final) return;
      const step = await rest.next();
      // Ending without a closing status: the pipeline answers that as the stream's failure.
      if (step.done) return;
      event = step.value;
    }
  } catch (error) {
    yield { result: restErrorBody(asA2aError(error)), final: true, eventName: ERROR_EVENT };
  } finally {
    // The caller left, or the stream is over: the handler's side stops too.
    await rest.return?.();
  }
}

/** A failure the pipeline met once the stream was open (credentials that expired, an event too large). */
function failureEvent(error: ErrorObject): unknown {
  return restErrorBody(new A2aError('internalError', error.message, { reason: error.code }));
}
