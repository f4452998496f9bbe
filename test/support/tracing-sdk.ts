// The OpenTelemetry SDK registered the way an application registers it, for the tracing tests:
// a tracer provider with an in-memory exporter, the AsyncLocalStorage context manager and the
// W3C propagator, set for the whole file and cleared after it; the exporter is emptied before
// each test. Plus the queries the tests make of the finished spans.
import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';
import { context, propagation, type SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export const exporter = new InMemorySpanExporter();

/** Registers the SDK for the calling test file (call it once, at the top level). */
export function useTracingSdk(): void {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  before(() => {
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  after(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());
}

/** The finished spans of `kind` named `name`, in the order they ended. */
export function spansOf(kind: SpanKind, name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.kind === kind && span.name === name);
}

export function only(spans: ReadableSpan[], what: string): ReadableSpan {
  assert.equal(spans.length, 1, `one ${what} (got ${spans.length})`);
  return spans[0]!;
}

/** Asserts `child` is a direct child of `parent` in the same trace. */
export function assertChild(child: ReadableSpan, parent: ReadableSpan, what: string): void {
  assert.equal(child.spanContext().traceId, parent.spanContext().traceId, `${what}: same trace`);
  assert.equal(child.parentSpanContext?.spanId, parent.spanContext().spanId, `${what}: parent`);
}

/** The finished spans of `kind` whose parent is `parent` (a root span when null). */
export function childrenOf(kind: SpanKind, parent: ReadableSpan | null): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((span) => span.kind === kind && span.parentSpanContext?.spanId === parent?.spanContext().spanId);
}

/** Runs `work` inside an active span of the application's own, as instrumented code would. */
export function inAppSpan<T>(work: () => Promise<T>, name = 'app work'): Promise<T> {
  return trace.getTracer('app').startActiveSpan(name, async (span) => {
    try {
      return await work();
    } finally {
      span.end();
    }
  });
}
