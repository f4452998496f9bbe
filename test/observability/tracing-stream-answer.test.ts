// A unary route that answers with a stream (StreamAnswer: A2A's SendStreamingMessage over
// JSON-RPC, message:stream over HTTP+JSON) keeps its SERVER span open until the stream ends, so
// the span's duration and status are the stream's: open while events still flow, closed with
// `parley.stream.outcome` completed, failed (a failure event) or cancelled (the client left),
// and `parley.stream.events`, the events sent.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { AgentHandler } from '../../src/agent/handler.js';
import { userMessage, startA2aAgent } from '../a2a/support.js';
import { deferred } from '../support/async.js';
import { exporter, only, spansOf, useTracingSdk } from '../support/tracing-sdk.js';
import { waitFor } from '../support/transport-fixtures.js';

useTracingSdk();

/** Streams a status, then waits for `release` before it answers (or the caller leaves). */
function heldHandler(release: Promise<void>): AgentHandler {
  return async function* ({ input, signal }) {
    yield { type: 'task_progress', progress: 0.5 } as never;
    await new Promise<void>((resolve) => {
      void release.then(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return `echo: ${input}`;
  };
}

/** Opens a streaming call and hands back its reader once the first SSE event has arrived. */
async function openStream(url: string, route: 'jsonrpc' | 'rest', signal?: AbortSignal) {
  const message = userMessage('hello');
  const [path, body] =
    route === 'jsonrpc'
      ? ['/', { jsonrpc: '2.0', id: 'r-1', method: 'SendStreamingMessage', params: { message } }]
      : ['/a2a/rest/message:stream', { message }];
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal,
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert.equal(first.done, false, 'a first event');
  return { reader, first: new TextDecoder().decode(first.value) };
}

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const step = await reader.read();
    if (step.done) return text;
    text += decoder.decode(step.value, { stream: true });
  }
}

const ROUTES = [
  ['jsonrpc', 'parley a2a/SendStreamingMessage'],
  ['rest', 'parley a2aRestSendStreamingMessage'],
] as const;

describe('the SERVER span of a unary route answered as a stream', () => {
  for (const [route, name] of ROUTES) {
    test(`${route}: open while the stream is, ended completed with the events counted`, async (t) => {
      const release = deferred();
      const { url } = await startA2aAgent(t, { tracing: true, handler: heldHandler(release.promise) });
      const { reader } = await openStream(url, route);
      assert.equal(spansOf(SpanKind.SERVER, name).length, 0, 'no span has ended while the stream is open');
      release.resolve();
      const rest = await drain(reader);
      assert.match(rest, /COMPLETED/);
      const served = only(spansOf(SpanKind.SERVER, name), 'the stream span');
      assert.equal(served.attributes['parley.stream.outcome'], 'completed');
      assert.ok(Number(served.attributes['parley.stream.events']) >= 3, 'task, status and completion events');
      assert.equal(served.attributes['error.type'], undefined);
      assert.notEqual(served.status.code, SpanStatusCode.ERROR);
    });

    test(`${route}: a client that leaves mid-stream ends the span cancelled`, async (t) => {
      const release = deferred();
      const { url } = await startA2aAgent(t, { tracing: true, handler: heldHandler(release.promise) });
      const abort = new AbortController();
      const { reader } = await openStream(url, route, abort.signal);
      abort.abort();
      await reader.cancel().catch(() => undefined);
      await waitFor(() => spansOf(SpanKind.SERVER, name).length > 0, 'the stream span to end');
      const served = only(spansOf(SpanKind.SERVER, name), 'the stream span');
      assert.equal(served.attributes['parley.stream.outcome'], 'cancelled');
      assert.equal(served.attributes['error.type'], 'cancelled');
      assert.notEqual(served.status.code, SpanStatusCode.ERROR, 'a caller leaving is no server fault');
      release.resolve();
    });
  }

  test('jsonrpc: an event over max_event_bytes ends the stream with a failure event and the span failed', async (t) => {
    const handler: AgentHandler = async function* () {
      yield { type: 'task_progress', progress: 0.5 } as never;
      return 'x'.repeat(4096);
    };
    const { url } = await startA2aAgent(t, {
      tracing: true,
      handler,
      transportOptions: { limits: { maxEventBytes: 2048 } },
    });
    const { reader, first } = await openStream(url, 'jsonrpc');
    const text = first + (await drain(reader));
    assert.match(text, /"error"/);
    const served = only(spansOf(SpanKind.SERVER, 'parley a2a/SendStreamingMessage'), 'the stream span');
    assert.equal(served.attributes['parley.stream.outcome'], 'failed');
    assert.equal(typeof served.attributes['error.type'], 'string');
    assert.ok(exporter.getFinishedSpans().length >= 1);
  });
});
