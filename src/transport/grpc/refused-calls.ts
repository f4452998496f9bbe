// Counting the SvcTransport calls that never reach the dispatcher, as the http transport
// counts the requests it refuses, so the metrics show every call that arrived. Connect refuses
// some before any service code runs (a message that is neither protobuf nor JSON, a truncated
// frame, ProtoJSON that does not fit the envelope, a message over the receive limit, a client
// gone mid-message); the service refuses others itself (an envelope without method or path, an
// unknown route, a call cancelled while it waited for a slot). What reaches dispatcher.unary
// or openStream is counted there, so it must not be counted here.
//
// Each call gets a tally, carried to the service in connect's per-call context values (the one
// way from a universal handler into a service implementation). The wrapper adds up the body's
// bytes as connect reads them; once the handler has answered, the service has decided (connect
// waits for the first response message, and the service hands the call to the dispatcher or
// refuses it before that), so a call not marked dispatched is counted as refused.
import type { ContextKey, HandlerContext } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import type { Dispatcher } from '../dispatcher.js';
import type { ConnectModule } from './load.js';
import { isByteStream } from './passthrough-json.js';

export class CallTally {
  /** Bytes of the request body read so far, frame prefixes included. */
  received = 0;
  /** Set just before the call goes to dispatcher.unary or openStream, which count it. */
  dispatched = false;
  /** Size of the error the service answered with when it refused the call itself. */
  errorBytes = 0;
}

export class RefusedCalls {
  private readonly key: ContextKey<CallTally | null>;

  constructor(
    private readonly connect: ConnectModule,
    private readonly dispatcher: Dispatcher,
  ) {
    this.key = connect.createContextKey<CallTally | null>(null, { description: 'parley call tally' });
  }

  /** The tally of a call; a throwaway one for a call that did not come through `counting`. */
  tally(context: HandlerContext): CallTally {
    return context.values.get(this.key) ?? new CallTally();
  }

  /** Wraps a SvcTransport handler so each of its calls has a tally and refusals are counted. */
  counting(handler: UniversalHandler): UniversalHandler {
    const counted = async (request: UniversalServerRequest): Promise<UniversalServerResponse> => {
      const tally = new CallTally();
      const contextValues = request.contextValues ?? this.connect.createContextValues();
      contextValues.set(this.key, tally);
      const body = isByteStream(request.body) ? tallied(request.body, tally) : request.body;
      let response: UniversalServerResponse | undefined;
      try {
        response = await handler({ ...request, body, contextValues });
        return response;
      } finally {
        if (!tally.dispatched) this.dispatcher.countRefused(tally.received, tally.errorBytes || statusMessageBytes(response));
      }
    };
    return Object.assign(counted, handler);
  }
}

/** The body as connect reads it, each chunk's size added to the tally (no generator layer). */
function tallied(body: AsyncIterable<Uint8Array>, tally: CallTally): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = body[Symbol.asyncIterator]();
      const count = (step: IteratorResult<Uint8Array>) => {
        if (!step.done) tally.received += step.value.byteLength;
        return step;
      };
      return {
        next: () => iterator.next().then(count),
        return: (value?: unknown) => iterator.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
      };
    },
  };
}

/** The size of a refusal connect answered: its status message, in the trailers. */
function statusMessageBytes(response: UniversalServerResponse | undefined): number {
  return Buffer.byteLength(response?.trailer?.get('grpc-message') ?? '');
}
