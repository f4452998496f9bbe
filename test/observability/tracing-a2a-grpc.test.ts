// The SERVER spans of A2A's gRPC binding are named as OpenTelemetry's RPC conventions name gRPC
// calls, `lf.a2a.v1.A2AService/<Method>`, with rpc.system 'grpc', rpc.service and rpc.method,
// and continue the caller's W3C trace context sent as call metadata.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
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
});
