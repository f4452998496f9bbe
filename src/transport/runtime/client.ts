// Calls go straight to the target's dispatcher in this process. Payloads still cross as JSON
// text, so the size checks match the network transports and caller and target never share
// objects. Query parameters are discarded.
import type { InboundEvent, InboundReply, OutboundCall, TransportClient } from '../binding.js';
import type { Dispatcher } from '../dispatcher.js';
import { routeKey, type InboundRequest } from '../endpoint.js';
import { EndpointError } from '../endpoint-error.js';
import { TransportConnectionError } from '../errors.js';
import { remoteErrorFrom } from '../outbound.js';
import { findTarget } from './registry.js';

/** The unary route a stream falls back to when the target cannot stream. */
const TASK_SUBMIT = routeKey('POST', '/tasks/');

export class RuntimeClient implements TransportClient {
  async send(call: OutboundCall): Promise<InboundReply> {
    const target = this.target(call);
    try {
      const outcome = await target.unary(inbound(call));
      if (outcome.kind === 'html') return { value: outcome.html, bytes: Buffer.byteLength(outcome.html) };
      return { value: JSON.parse(outcome.encoded.text), bytes: outcome.encoded.bytes };
    } catch (error) {
      throw this.remote(error, call);
    }
  }

  async *stream(call: OutboundCall): AsyncGenerator<InboundEvent> {
    const target = this.target(call);
    const streamKey = routeKey(call.spec.method, call.spec.path);
    if (!target.endpoints.has(streamKey) && target.endpoints.has(TASK_SUBMIT)) {
      yield* this.synthesized(target, call);
      return;
    }
    let events;
    try {
      events = await target.openStream(inbound(call), undefined, { holdSlot: false });
    } catch (error) {
      throw this.remote(error, call);
    }
    for await (const frame of events) {
      if (frame.ok) {
        yield { id: call.requestId, ok: true, result: JSON.parse(frame.encoded.text), final: frame.final, bytes: frame.encoded.bytes };
      } else {
        yield { id: call.requestId, ok: false, error: frame.error, final: true, bytes: 0 };
      }
    }
  }

  async close(): Promise<void> {}

  /** A target without a stream endpoint: submit through the unary route, yield one final event. */
  private async *synthesized(target: Dispatcher, call: OutboundCall): AsyncGenerator<InboundEvent> {
    const submit = target.endpoints.get(TASK_SUBMIT)!;
    let outcome;
    try {
      outcome = await target.unary({ ...inbound(call), method: 'POST', path: '/tasks/' }, submit);
    } catch (error) {
      throw this.remote(error, call);
    }
    const task = outcome.kind === 'json' ? JSON.parse(outcome.encoded.text) : null;
    const result = { type: 'task_completed', task_id: task?.id ?? null, task };
    yield { id: call.requestId, ok: true, result, final: true, bytes: outcome.kind === 'json' ? outcome.encoded.bytes : 0 };
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

  private remote(error: unknown, call: OutboundCall) {
    if (error instanceof EndpointError) return remoteErrorFrom(error.toObject(call.requestId), call.url, call.requestId);
    return error;
  }
}

function inbound(call: OutboundCall): InboundRequest {
  return {
    method: call.spec.method,
    path: call.spec.path,
    data: call.body ? JSON.parse(call.body.text) : undefined,
    params: {},
    requestId: call.requestId,
    idempotencyKey: call.idempotencyKey,
    credentials: null,
    signal: call.signal,
    receivedBytes: call.body?.bytes ?? 0,
  };
}
