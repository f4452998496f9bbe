// The SERVER spans of A2A's gRPC binding are named as OpenTelemetry's RPC conventions name gRPC
// calls, `lf.a2a.v1.A2AService/<Method>`, with rpc.system 'grpc', rpc.service and rpc.method,
// and continue the caller's W3C trace context sent as call metadata.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type * as grpc from '@grpc/grpc-js';
import { grpcJsStub, metadataOf, startGrpcA2aAgent, unaryCall, userMessage } from '../a2a/grpc/support.js';
import { exporter, useTracingSdk } from '../support/tracing-sdk.js';

useTracingSdk();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('A2A gRPC binding: spans', () => {
  test('each call is a SERVER span named after its method, in the trace the caller sent', async (t) => {
    const { target } = await startGrpcA2aAgent(t, { tracing: true });
    const stub = grpcJsStub(t, target);
    const traced = metadataOf({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
    await unaryCall(stub, 'SendMessage', { message: userMessage('hello') }, traced);
    await unaryCall(stub, 'GetTask', { id: 'nope' });
    const served = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    const send = served.find((span) => span.name === 'lf.a2a.v1.A2AService/SendMessage');
    assert.ok(send, `spans: ${served.map((span) => span.name).join(', ')}`);
    assert.equal(send.attributes['rpc.system'], 'grpc');
    assert.equal(send.attributes['rpc.service'], 'lf.a2a.v1.A2AService');
    assert.equal(send.attributes['rpc.method'], 'SendMessage');
    assert.equal(send.attributes['parley.transport'], 'grpc');
    assert.equal(send.spanContext().traceId, TRACE_ID);
    assert.equal(send.parentSpanContext?.spanId, PARENT_ID);
    const get = served.find((span) => span.name === 'lf.a2a.v1.A2AService/GetTask');
    assert.ok(get, 'the GetTask span');
    assert.equal(get.attributes['rpc.method'], 'GetTask');
  });

  test('a server stream that ends with its source (no final event on gRPC) ends its span completed, not cancelled', async (t) => {
    const { target } = await startGrpcA2aAgent(t, { tracing: true });
    const stub = grpcJsStub(t, target);
    const events = await new Promise<unknown[]>((resolve, reject) => {
      const received: unknown[] = [];
      const call = stub.SendStreamingMessage(
        { message: userMessage('streamed') },
        metadataOf(),
      ) as grpc.ClientReadableStream<unknown>;
      call.on('data', (event) => received.push(event));
      call.on('error', reject);
      call.on('end', () => resolve(received));
    });
    assert.ok(events.length >= 2, 'the task and its terminal status');
    const served = exporter
      .getFinishedSpans()
      .filter((span) => span.kind === SpanKind.SERVER && span.name === 'lf.a2a.v1.A2AService/SendStreamingMessage');
    assert.equal(served.length, 1, 'one stream span');
    const [span] = served;
    assert.equal(span!.attributes['parley.stream.outcome'], 'completed');
    assert.equal(span!.attributes['parley.stream.events'], events.length);
    assert.equal(span!.attributes['error.type'], undefined);
    assert.notEqual(span!.status.code, SpanStatusCode.ERROR);
  });
});
