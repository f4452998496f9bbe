// Calls go straight to the target's dispatcher in this process. Payloads are measured as their
// JSON would be (core/json/encoded.ts DeferredJson), so the size checks and byte counts match the network
// transports, but no text is written unless read: each side gets its own copy of the other's
// value, made by the sender in the walk that measures it (core/json/measure.ts: plain JSON copied,
// strings shared; the text is written and parsed when the value is not plain JSON), and caller
// and target never share an object. Query parameters
// are discarded, except for an operation whose request is its query
// (registry discovery): there they are the request itself. A stream to a target without that
// stream endpoint goes to the unary operation its spec names as `fallback`, when the target's
// endpoint for it says how its answer becomes the final event.
import type { FallbackRoute } from '../../../generated/operations/spec.js';
import type { InboundEvent, InboundReply, OutboundCall, TransportClient } from '../binding.js';
import type { Dispatcher, StreamFrame, UnaryOutcome } from '../dispatcher.js';
import { Inbound, NO_PARAMS, routeKey, type Endpoint, type InboundRequest } from '../endpoint.js';
import { EndpointError } from '../endpoint-error.js';
import { TransportConnectionError } from '../errors.js';
import { remoteErrorFrom } from '../wire-errors.js';
import { findTarget } from './directory.js';
import { extractCredentials } from '../../auth/credentials.js';
import type { EncodedJson } from '../../core/json/encoded.js';
import type { LazyAbort } from '../../core/lazy-abort.js';
import { jsonValueTooDeep, MAX_JSON_DEPTH } from '../../core/json/depth.js';

/** In-process work cannot be interrupted, but the caller can stop waiting for it. */
function untilAborted<T>(work: Promise<T>, cancellation: LazyAbort): Promise<T> {
  if (cancellation.aborted) return Promise.reject(cancellation.reason);
  return new Promise((resolve, reject) => {
    const stopListening = cancellation.onAbort(reject);
    work.then(
      (value) => {
        stopListening();
        resolve(value);
      },
      (error: unknown) => {
        stopListening();
        reject(error);
      },
    );
  });
}

export class RuntimeClient implements TransportClient {
  readonly inProcess = true;

  async send(call: OutboundCall): Promise<InboundReply> {
    const target = this.target(call);
    const endpoint = this.endpoint(target, call);
    const request = this.inbound(target, call);
    try {
      const outcome = await untilAborted(target.unary(request, endpoint), call.cancellation);
      if (outcome.kind === 'text') return { value: outcome.text, bytes: Buffer.byteLength(outcome.text) };
      // The copy the target made for this caller (a replay from the idempotency cache has only the text).
      return { value: ownCopy(outcome.value, outcome.encoded), bytes: outcome.encoded.bytes };
    } catch (error) {
      throw this.remote(error, call);
    }
  }

  stream(call: OutboundCall): AsyncIterable<InboundEvent> {
    const target = this.target(call);
    const fallback = call.spec.fallback;
    if (fallback && !target.endpoints.has(routeKey(call.spec.method, call.spec.path))) {
      const submit = target.endpoints.get(routeKey(fallback.method, fallback.path));
      if (submit?.finalEvent) return this.synthesized(target, call, fallback, submit, submit.finalEvent);
    }
    const endpoint = this.endpoint(target, call);
    // A plain iterator mapping the target's frames, opened at the first read: one
    // async-generator layer less per event.
    let frames: Promise<AsyncGenerator<StreamFrame, void, undefined>> | null = null;
    let opened: AsyncGenerator<StreamFrame, void, undefined> | null = null;
    // Opened inside a promise, so a refused body rejects the first read instead of throwing.
    const open = () =>
      (frames ??= Promise.resolve()
        .then(() => target.openStream(this.inbound(target, call), endpoint, { holdSlot: false }))
        .then(
          (generator) => (opened = generator),
          (error: unknown) => {
            throw this.remote(error, call);
          },
        ));
    const toEvent = (step: IteratorResult<StreamFrame, void>): IteratorResult<InboundEvent, void> => {
      if (step.done) return { value: undefined, done: true };
      const frame = step.value;
      const event: InboundEvent = frame.ok
        ? {
            id: call.requestId,
            ok: true,
            result: ownCopy(frame.copy, frame.encoded),
            final: frame.final,
            bytes: frame.encoded.bytes,
          }
        : { id: call.requestId, ok: false, error: frame.error, final: true, bytes: 0 };
      return { value: event, done: false };
    };
    // The caller's abort or deadline ends its wait at once, as it would on a network wire. The
    // target is told by closing its frames; that waits behind a pending step, so it is not awaited.
    const step = (pending: Promise<IteratorResult<InboundEvent, void>>) =>
      untilAborted(pending, call.cancellation).catch((error: unknown) => {
        if (call.cancellation.aborted) frames?.then((generator) => generator.return()).catch(ignore);
        throw error;
      });
    const events: AsyncIterableIterator<InboundEvent> = {
      next: () => step(opened ? opened.next().then(toEvent) : open().then((generator) => generator.next().then(toEvent))),
      return: async () => {
        if (frames) await (await frames.catch(() => null))?.return();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => events,
    };
    return events;
  }

  async close(): Promise<void> {}

  /**
   * A target without the stream endpoint: the call goes to the unary operation the spec names
   * as the stream's fallback, and that endpoint makes the one final event from its answer.
   */
  private async *synthesized(
    target: Dispatcher,
    call: OutboundCall,
    route: FallbackRoute,
    submit: Endpoint,
    finalEvent: (answer: unknown) => unknown,
  ): AsyncGenerator<InboundEvent> {
    let outcome: UnaryOutcome;
    try {
      outcome = await untilAborted(target.unary(this.inbound(target, call, route.method, route.path), submit), call.cancellation);
    } catch (error) {
      throw this.remote(error, call);
    }
    const answer = outcome.kind === 'json' ? ownCopy(outcome.value, outcome.encoded) : outcome.text;
    const bytes = outcome.kind === 'json' ? outcome.encoded.bytes : Buffer.byteLength(outcome.text);
    yield { id: call.requestId, ok: true, result: finalEvent(answer), final: true, bytes };
  }

  private target(call: OutboundCall): Dispatcher {
    const target = findTarget(call.url);
    if (!target) {
      throw new TransportConnectionError(`no runtime transport is started at ${call.url}`, {
        url: call.url,
        requestId: call.requestId,
      });
    }
    return target;
  }

  /**
   * Methods are an HTTP idea: in-process, a route that is not in the table is simply unknown
   * (404), even where another method exists on the same path. The target's dispatcher never
   * sees the call, so it is counted on the target here, as a network server counts the
   * requests it refuses. Found here, the endpoint is handed to the dispatcher, which then
   * need not look it up again.
   */
  private endpoint(target: Dispatcher, call: OutboundCall): Endpoint {
    const endpoint = target.endpoints.get(routeKey(call.spec.method, call.spec.path));
    if (endpoint) return endpoint;
    const refused = new EndpointError('not_found', `no endpoint for ${call.spec.method} ${call.spec.path}`);
    this.refuse(target, call, refused);
    throw this.remote(refused, call);
  }

  /**
   * The target's view of the call. A body nested past the limit every network wire holds it
   * to is refused the same way here, and counted on the target as a refused request.
   */
  private inbound(target: Dispatcher, call: OutboundCall, method = call.spec.method, path = call.spec.path): InboundRequest {
    // The copy the caller made for the target on a first attempt, within the depth limit by
    // construction; parsed text is checked here.
    const copied = call.body !== null && call.bodyValue !== undefined;
    const data = copied ? call.bodyValue : call.body ? JSON.parse(call.body.text) : undefined;
    if (!copied && jsonValueTooDeep(data)) {
      const refused = EndpointError.tooDeep('request body', MAX_JSON_DEPTH);
      this.refuse(target, call, refused);
      throw this.remote(refused, call);
    }
    const fields = {
      method,
      path,
      data,
      params: call.spec.query ? call.params : NO_PARAMS,
      requestId: call.requestId,
      idempotencyKey: call.idempotencyKey,
      credentials: credentialsOf(call),
      receivedBytes: call.body?.bytes ?? 0,
      trace: call.trace ?? undefined,
      inProcess: true,
    };
    return new Inbound(fields, call);
  }

  /** Counts (and logs) a call the target refused before its dispatcher saw it, as a network server would. */
  private refuse(target: Dispatcher, call: OutboundCall, error: EndpointError): void {
    const sent = Buffer.byteLength(JSON.stringify(error.toObject(call.requestId)));
    const { method, path } = call.spec;
    target.countRefused(call.body?.bytes ?? 0, sent, { requestId: call.requestId, method, path, error });
  }

  /**
   * A handler that failed (`internal`) is not worth another attempt in-process; a target that
   * says it is busy or unavailable (429, 503, ...) keeps the usual retryable status rule.
   */
  private remote(error: unknown, call: OutboundCall) {
    if (!(error instanceof EndpointError)) return error;
    const object = error.toObject(call.requestId);
    return remoteErrorFrom(object, call.url, call.requestId, undefined, error.code === 'internal' ? false : undefined);
  }
}

/** The caller's credential, found in its headers where a network server would look. */
function credentialsOf(call: OutboundCall): string | null {
  const { headers } = call;
  if (Object.keys(headers).length === 0) return null;
  return extractCredentials((name) => callHeader(headers, name), noQuery);
}

/** A header by its lowercase name; a caller's own headers may be spelled in any case. */
function callHeader(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  if (headers[name] !== undefined) return headers[name];
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

function noQuery(): undefined {
  return undefined;
}

/** The caller's copy of an answer or an event: the one the target made, else its text parsed. */
function ownCopy(copy: unknown, encoded: EncodedJson): unknown {
  return copy === undefined ? JSON.parse(encoded.text) : copy;
}

function ignore(): void {}
