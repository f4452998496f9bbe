// The JSON-RPC binding's streams (SendStreamingMessage, SubscribeToTask): each StreamResponse
// the handler yields becomes one server-sent event holding a JSON-RPC response with the
// request's id, and the stream ends after the event that closes it (a final or interrupted
// status). The first event is awaited before the stream opens, so a refusal (bad params, an
// unknown task) is still a plain JSON-RPC error, which A2A clients read from a body that is not
// an event stream. A failure later is the stream's last event, a JSON-RPC error.
import type { JsonObject } from '@bufbuild/protobuf';
import type { StreamItem } from '../../transport/endpoint.js';
import type { ErrorObject } from '../../transport/endpoint-error.js';
import { StreamAnswer } from '../../transport/stream-answer.js';
import { A2aError } from '../errors/a2a-error.js';
import { positionOf } from '../handler/event-positions.js';
import { asA2aError } from '../handler/failures.js';
import { closesStream } from '../model/stream-responses.js';
import { rpcFailure, rpcResult, type RpcId } from './envelope.js';

export async function openRpcStream(id: RpcId, events: AsyncIterable<JsonObject>): Promise<StreamAnswer> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new A2aError('internalError', 'the stream ended before its first event');
  return new StreamAnswer(
    rpcEvents(id, first.value, iterator),
    (error) => failureEvent(id, error),
    // Refused before the events were read: the handler's stream stops (its task is canceled).
    () => void iterator.return?.()?.catch(() => undefined),
  );
}

async function* rpcEvents(id: RpcId, first: JsonObject, rest: AsyncIterator<JsonObject>): AsyncGenerator<StreamItem> {
  let event = first;
  try {
    for (;;) {
      const final = closesStream(event);
      const eventId = positionOf(event);
      yield eventId === undefined ? { result: rpcResult(id, event), final } : { result: rpcResult(id, event), final, eventId };
      if (final) return;
      const step = await rest.next();
      // Ending without a closing status: the pipeline answers that as the stream's failure.
      if (step.done) return;
      event = step.value;
    }
  } catch (error) {
    yield { result: rpcFailure(id, asA2aError(error)), final: true };
  } finally {
    // The caller left, or the stream is over: the handler's side stops too.
    await rest.return?.();
  }
}

/** A failure the pipeline met once the stream was open (credentials that expired, an event too large). */
function failureEvent(id: RpcId, error: ErrorObject): unknown {
  return rpcFailure(id, new A2aError('internalError', error.message, { reason: error.code }));
}
