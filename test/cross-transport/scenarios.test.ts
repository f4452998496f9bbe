// One table of scenarios, each run over all five transports (spec: Transport wire formats,
// Events, Health payload, Errors, Limits). Every scenario starts a real AgentServer (or a bare
// endpoint table) and talks to it through AgentClient with the transport named explicitly,
// since http and sse share a scheme. Where a scenario differs on one transport, the spec says
// so, and the reason sits next to the difference. No assertion is timed: "running" tasks are
// handlers that wait on promises the test controls; test timeouts only turn hangs into failures.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { agentOperations } from '../../generated/operations/agent.js';
import type { StateResult, StreamEvent } from '../../generated/types/index.js';
import type { AgentHandler } from '../../src/agent/handler.js';
import { routeKey, type Endpoint } from '../../src/transport/endpoint.js';
import { EndpointError } from '../../src/transport/endpoint-error.js';
import {
  TransportConnectionError,
  type TransportError,
  TransportLimitError,
  TransportProtocolError,
  TransportRemoteError,
} from '../../src/transport/errors.js';
import { createTransport } from '../../src/transport/factory.js';
import {
  Fixture,
  TRANSPORTS,
  assertError,
  assertValid,
  collect,
  deferred,
  failure,
  historyStates,
  listenUrl,
  texts,
  uniqueId,
  untilAborted,
  userTask,
  type TransportKind,
} from '../support/cross-transport.js';
import { SPEC_CAPABILITIES, SPEC_METRIC_NAMES } from '../support/spec-tables.js';

interface Scenario {
  readonly name: string;
  /** Transports the scenario does not apply to, each with the spec's reason. */
  readonly skip?: Partial<Record<TransportKind, string>>;
  /** Per-transport test timeout in ms (a hang guard, never an assertion). Default 60 s: a loaded machine's slow start must not trip it. */
  readonly timeout?: number;
  run(f: Fixture): Promise<void>;
}

/**
 * What a client that talked to a server before it stopped gets on its next call.
 *   http, sse: the request goes out on the pooled keep-alive socket the server is closing,
 *              before the client has read the close: "socket hang up", an HTTP-layer
 *              disconnect, so TransportProtocolError (retryable). Had the pool already
 *              dropped the socket, the new connect would be refused: TransportConnectionError.
 *   websocket: the server's close handshake ends before stop() returns; the client reconnects
 *              and is refused: TransportConnectionError.
 *   grpc:      the session got GOAWAY; the new one is refused (UNAVAILABLE): TransportConnectionError.
 *   runtime:   no connection to lose; no started target at the URL: TransportConnectionError.
 */
const STALE_CLIENT_ERRORS: Readonly<Record<TransportKind, ReadonlyArray<typeof TransportError>>> = {
  http: [TransportProtocolError, TransportConnectionError],
  sse: [TransportProtocolError, TransportConnectionError],
  websocket: [TransportConnectionError],
  grpc: [TransportConnectionError],
  runtime: [TransportConnectionError],
};

/**
 * Waits until `condition` holds, checking between turns of the event loop. Not a timed
 * assertion: it gives up only when the test ends (its timeout aborts `signal`), so a
 * condition that never holds fails the test instead of spinning forever.
 */
async function until(condition: () => boolean, signal: AbortSignal): Promise<void> {
  while (!condition()) {
    signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Retry at once: the scenarios count attempts, they never wait for them. */
const FAST_RETRY = { maxAttempts: 3, initialBackoff: 0, maxBackoff: 0, jitter: 0 };

/** Text that is not ASCII, in a task body (idempotency keys stay ASCII: the ids are UUIDs). */
const TEXT = 'héllo wörld ✓ 世界';

const scenarios: Scenario[] = [
  {
    name: 'submit: the task completes, the artifact echoes the text, the state history is recorded',
    async run(f) {
      const agent = await f.agent();
      const client = f.client(agent.url);
      const id = uniqueId();
      const done = await client.sendTask(userTask(id, TEXT));
      assertValid('task', done);
      assert.equal(done.id, id);
      assert.equal(done.state, 'completed');
      assert.deepEqual(historyStates(done), ['submitted', 'working', 'completed']);
      assert.deepEqual(
        done.messages!.map((message) => message.role),
        ['user', 'agent'],
      );
      assert.deepEqual(texts(done.messages![1]!.parts), [TEXT]);
      assert.equal(done.artifacts!.length, 1);
      assert.equal(done.artifacts![0]!.kind, 'result');
      assert.deepEqual(texts(done.artifacts![0]!.parts), [TEXT]);
    },
  },

  {
    name: 'long texts come back whole, answered and streamed: escapes, other scripts, a frozen part',
    async run(f) {
      // Long text parts are written apart from the rest of the task (core/json/long-strings.ts).
      const quoted = 'say "hi" \\ then\nnext line; '.repeat(4_000);
      const other = `${TEXT} 👍 `.repeat(5_000);
      const frozen = Object.freeze({ type: 'text', content: 'a frozen part. '.repeat(6_000) });
      const handler: AgentHandler = ({ input }) => ({
        text: input,
        artifacts: [{ kind: 'diagnostic', parts: [{ type: 'text', content: other }, frozen] }],
      });
      const agent = await f.agent({ handler });
      const client = f.client(agent.url);
      const answered = await client.sendTask(userTask(uniqueId(), quoted));
      const finished = [answered];
      if (f.kind !== 'http') {
        const events = await collect<StreamEvent>(client.streamTask(userTask(uniqueId(), quoted)));
        const completed = events.at(-1)!;
        assert.equal(completed.type, 'task_completed');
        finished.push((completed as Extract<StreamEvent, { type: 'task_completed' }>).task);
      }
      for (const task of finished) {
        assertValid('task', task);
        assert.deepEqual(texts(task.messages![0]!.parts), [quoted]);
        assert.deepEqual(texts(task.messages![1]!.parts), [quoted]);
        assert.deepEqual(texts(task.artifacts![1]!.parts), [other, frozen.content]);
      }
    },
  },

  {
    name: 'stream: events validate as stream-event and the stream ends with the final task_completed',
    async run(f) {
      let calls = 0;
      const handler: AgentHandler = async function* ({ input }) {
        calls++;
        // An LLM sub-event may carry final true for its step without closing the task stream (spec: Events).
        yield { type: 'task_llm_stream', delta: input, final: true, model: 'm' };
        return { text: input };
      };
      const agent = await f.agent({ handler });
      const client = f.client(agent.url);
      const id = uniqueId();
      if (f.kind === 'http') {
        // Spec (Events, Endpoints): the task stream "does not exist on plain http"; the client
        // says so instead of calling a route the server lacks.
        const error = await failure(collect(client.streamTask(userTask(id, TEXT))));
        assertError(error, TransportProtocolError, 'streaming_unsupported');
        assert.equal(error.retryable, false);
        assert.equal(calls, 0);
        return;
      }
      const events = await collect<StreamEvent>(client.streamTask(userTask(id, TEXT)));
      for (const event of events) {
        assertValid('stream-event', event);
        assert.equal(event.task_id, id);
      }
      const types = events.map((event) => event.type);
      assert.equal(types.filter((type) => type === 'task_completed').length, 1, `one task_completed in ${types}`);
      assert.equal(types.at(-1), 'task_completed', `task_completed is last in ${types}`);
      const llm = events.find((event) => event.type === 'task_llm_stream') as any;
      assert.ok(llm, `an llm event in ${types}`);
      assert.equal(llm.final, true);
      assert.equal(llm.delta, TEXT);
      const completed = events.at(-1) as any;
      assert.equal(completed.state, 'completed');
      assert.equal(completed.task.id, id);
      assert.deepEqual(historyStates(completed.task), ['submitted', 'working', 'completed']);
      assert.deepEqual(texts(completed.task.artifacts[0].parts), [TEXT]);
      assert.equal(calls, 1);
      const metrics = (await client.transport()).health().metrics;
      assert.equal(metrics.streams_started, 1);
      assert.equal(metrics.streams_completed, 1);
      assert.equal(metrics.streams_failed, 0);
      assert.equal(metrics.active_streams, 0);
    },
  },

  {
    name: 'stream events: one stream carries every event type the engine emits, in order, with its shape',
    skip: { http: 'plain http has no task stream (spec: Events)' },
    async run(f) {
      let calls = 0;
      // Every way a handler emits (docs/agents.md): generator yields, emit(), tool(), message(),
      // artifact(); the engine adds task_status first and task_completed last.
      const handler: AgentHandler = async function* (ctx) {
        calls++;
        yield { type: 'task_llm_stream', delta: 'Let me ', final: false, model: 'm' };
        // An LLM sub-event may carry final true for its model step without closing the task
        // stream (spec: Events): everything below must still arrive.
        ctx.emit({ type: 'task_llm_stream', delta: 'look.', final: true, model: 'm' });
        yield { type: 'task_tool_call', tool_call: { call_id: 'call-lookup', name: 'lookup', arguments: { term: ctx.input } } };
        // Tool output is normalized to JSON and sent as call_id, result, error (spec: Events).
        yield {
          type: 'task_tool_result',
          tool_result: {
            call_id: 'call-lookup',
            result: { found: ctx.input, at: new Date(0), tags: new Set(['x']), skip: undefined },
          },
        };
        const failed = await ctx
          .tool({ call_id: 'call-broken', name: 'broken', arguments: {} }, () => {
            throw new RangeError('tool exploded');
          })
          .then(
            () => 'no error',
            (error: Error) => error.message,
          );
        ctx.message(`lookup: ${failed}`);
        ctx.artifact({
          kind: 'data',
          name: 'lookup.json',
          media_type: 'application/json',
          parts: [{ type: 'data', content: { found: ctx.input } }],
        });
      };
      const agent = await f.agent({ handler });
      const client = f.client(agent.url);
      const id = uniqueId();
      const events = await collect<StreamEvent>(client.streamTask(userTask(id, TEXT)));
      for (const event of events) {
        assertValid('stream-event', event);
        assert.equal(event.task_id, id, `${event.type} carries the task id`);
      }
      assert.deepEqual(
        events.map((event) => event.type),
        [
          'task_status',
          'task_llm_stream',
          'task_llm_stream',
          'task_tool_call',
          'task_tool_result',
          'task_tool_call',
          'task_tool_result',
          'task_message',
          'task_artifact',
          'task_completed',
        ],
      );
      const [status, llm, llmFinal, lookup, lookupResult, broken, brokenResult, message, artifact, completed] = events as any[];
      assert.equal(status.state, 'working');
      assert.equal(status.task.id, id);
      assert.deepEqual(historyStates(status.task), ['submitted', 'working']);
      assert.deepEqual([llm.delta, llm.final, llm.model], ['Let me ', false, 'm']);
      assert.deepEqual([llmFinal.delta, llmFinal.final, llmFinal.model], ['look.', true, 'm']);
      assert.deepEqual(lookup.tool_call, { call_id: 'call-lookup', name: 'lookup', arguments: { term: TEXT } });
      assert.deepEqual(lookupResult.tool_result, {
        call_id: 'call-lookup',
        result: { found: TEXT, at: '1970-01-01T00:00:00.000Z', tags: ['x'] },
        error: null,
      });
      assert.deepEqual(broken.tool_call, { call_id: 'call-broken', name: 'broken', arguments: {} });
      assert.deepEqual(brokenResult.tool_result, { call_id: 'call-broken', result: null, error: 'tool exploded' });
      assert.equal(message.message.role, 'agent');
      assert.deepEqual(texts(message.message.parts), ['lookup: tool exploded']);
      assert.equal(artifact.artifact.kind, 'data');
      assert.equal(artifact.artifact.name, 'lookup.json');
      assert.equal(artifact.artifact.media_type, 'application/json');
      assert.deepEqual(artifact.artifact.parts, [{ type: 'data', content: { found: TEXT } }]);
      // The final event carries the finished task, with what the stream showed attached.
      assert.equal(completed.state, 'completed');
      assertValid('task', completed.task);
      assert.equal(completed.task.state, 'completed');
      assert.deepEqual(historyStates(completed.task), ['submitted', 'working', 'completed']);
      assert.deepEqual(completed.task.messages.at(-1), message.message);
      assert.deepEqual(completed.task.artifacts, [artifact.artifact]);
      assert.equal(calls, 1);
      const metrics = (await client.transport()).health().metrics;
      assert.equal(metrics.streams_completed, 1);
      assert.equal(metrics.streams_failed, 0);
    },
  },

  {
    name: 'cancel: a second caller cancels a running task while the first waits for it',
    async run(f) {
      const started = deferred();
      let calls = 0;
      const handler: AgentHandler = async ({ signal }) => {
        calls++;
        started.resolve();
        return untilAborted(signal);
      };
      const agent = await f.agent({ handler });
      const first = f.client(agent.url);
      const second = f.client(agent.url);
      const id = uniqueId();
      const pending = first.sendTask(userTask(id, 'long job'));
      await started.promise;
      const canceled = await second.cancel(id, 'changed my mind');
      assertValid('task', canceled);
      assert.equal(canceled.id, id);
      assert.equal(canceled.state, 'canceled');
      assert.deepEqual(historyStates(canceled), ['submitted', 'working', 'canceled']);
      assert.equal(canceled.metadata!.state_history!.at(-1)!.reason, 'changed my mind');
      // The waiting submission resolves (not an error) with the canceled task.
      const submitted = await pending;
      assert.equal(submitted.state, 'canceled');
      assert.deepEqual(submitted.metadata!.state_history, canceled.metadata!.state_history);
      assert.equal(calls, 1);
    },
  },

  {
    name: 'idempotent replay: the same task id twice (and concurrently, and from another caller) runs the handler once',
    async run(f) {
      const started = deferred();
      const release = deferred();
      let calls = 0;
      const handler: AgentHandler = async ({ input }) => {
        calls++;
        started.resolve();
        await release.promise;
        return { text: `${input} #${calls}` };
      };
      const agent = await f.agent({ handler });
      const client = f.client(agent.url);
      const other = f.client(agent.url);
      const task = userTask(uniqueId(), 'once');
      const firstCall = client.sendTask(structuredClone(task));
      await started.promise;
      // A concurrent duplicate waits for the owner's result (spec: Idempotency and correlation).
      // The owner is released only once the server has counted the duplicate, so the duplicate
      // really arrives while the owner runs (released at once, it would arrive after the owner
      // finished, and get the stored result instead).
      const concurrent = other.sendTask(structuredClone(task));
      await until(() => agent.transport.health().metrics.requests_started >= 2, f.signal);
      assert.equal(calls, 1, 'the duplicate did not run the handler');
      release.resolve();
      const first = await firstCall;
      assert.equal(first.state, 'completed');
      assert.equal(first.id, task.id);
      assert.deepEqual(texts(first.artifacts![0]!.parts), ['once #1']);
      assert.deepEqual(await concurrent, first, "the duplicate got the owner's result");
      // Later duplicates get the stored result, from the same caller and from another one.
      assert.deepEqual(await client.sendTask(structuredClone(task)), first);
      assert.deepEqual(await other.sendTask(structuredClone(task)), first);
      assert.equal(calls, 1);
    },
  },

  {
    name: 'limit on request: over max_request_bytes fails with TransportLimitError before anything is sent',
    async run(f) {
      let calls = 0;
      const agent = await f.agent({ handler: () => void calls++ });
      const client = f.client(agent.url, { limits: { maxRequestBytes: 256 }, retry: FAST_RETRY });
      const error = await failure(client.sendTask(userTask(uniqueId(), 'x'.repeat(1_000))));
      assertError(error, TransportLimitError, 'payload_too_large');
      assert.equal(error.retryable, false);
      assert.equal(error.limit, 256);
      assert.ok(error.size > 256, `size ${error.size}`);
      assert.equal(calls, 0);
      const clientMetrics = (await client.transport()).health().metrics;
      assert.equal(clientMetrics.bytes_sent, 0, 'nothing was sent');
      assert.equal(clientMetrics.retries, 0);
      assert.equal(agent.transport.health().metrics.requests_started, 0, 'the server saw nothing');
      // A request under the limit still goes through on the same client.
      assert.equal((await client.sendTask(userTask(uniqueId(), 'ok'))).state, 'completed');
    },
  },

  {
    name: 'limit on request: over the server max_request_bytes is refused before the handler runs, not retried',
    async run(f) {
      let calls = 0;
      const agent = await f.agent({ handler: () => void calls++, transportOptions: { limits: { maxRequestBytes: 512 } } });
      const client = f.client(agent.url, { retry: FAST_RETRY });
      const error = await failure(client.sendTask(userTask(uniqueId(), 'x'.repeat(1_000))));
      // Spec (Limits): checked "before server reply" too; a payload over its limit is a
      // TransportLimitError on every wire (http: 413 body; websocket: frame or envelope check;
      // grpc: envelope check inside the derived message length; runtime: serialized check).
      assertError(error, TransportLimitError, 'payload_too_large');
      assert.equal(error.retryable, false);
      assert.equal(calls, 0);
      assert.equal((await client.transport()).health().metrics.retries, 0);
      // The connection is still usable for a request that fits.
      assert.equal((await client.sendTask(userTask(uniqueId(), 'ok'))).state, 'completed');
      assert.equal(calls, 1);
    },
  },

  {
    name: 'limit on response: over the server max_response_bytes fails, and is not retried',
    async run(f) {
      let calls = 0;
      const agent = await f.agent({
        handler: ({ input }) => {
          calls++;
          return { text: input };
        },
        transportOptions: { limits: { maxResponseBytes: 512 } },
      });
      const client = f.client(agent.url, { retry: FAST_RETRY });
      const error = await failure(client.sendTask(userTask(uniqueId(), 'y'.repeat(600))));
      // Spec (Transport error taxonomy): a response over its byte limit is a TransportLimitError,
      // never retryable, whichever side measured it. The server's error object, with the limit
      // and the size, crosses every wire the same way.
      assertError(error, TransportLimitError, 'response_too_large');
      assert.equal(error.retryable, false);
      assert.equal(error.limit, 512);
      assert.ok(error.size > 512, `size ${error.size}`);
      assert.equal(calls, 1, 'the handler ran once: no retry');
      assert.equal((await client.transport()).health().metrics.retries, 0);
      // Small answers still fit.
      assert.equal((await client.describeState()).operation, 'describe');
    },
  },

  {
    name: 'limit on response: over the client max_response_bytes fails with TransportLimitError, not retried',
    async run(f) {
      let calls = 0;
      const agent = await f.agent({
        handler: ({ input }) => {
          calls++;
          return { text: input };
        },
      });
      const client = f.client(agent.url, { limits: { maxResponseBytes: 512 }, retry: FAST_RETRY });
      const error = await failure(client.sendTask(userTask(uniqueId(), 'z'.repeat(600))));
      assertError(error, TransportLimitError);
      assert.equal(error.retryable, false);
      assert.equal(calls, 1);
      assert.equal((await client.transport()).health().metrics.retries, 0);
    },
  },

  {
    name: 'limit on event: over the server max_event_bytes fails the stream with TransportLimitError',
    // Spec (Events): there is no event channel on plain http, so there is no event to limit.
    skip: { http: 'plain http has no task stream (spec: Events)' },
    async run(f) {
      // Every event carries the task, so a long text makes each one too large; a short one fits.
      let calls = 0;
      const agent = await f.agent({
        handler: ({ input }) => {
          calls++;
          return { text: input };
        },
        transportOptions: { limits: { maxEventBytes: 2_000 } },
      });
      const client = f.client(agent.url, { retry: FAST_RETRY });
      const error = await failure(collect(client.streamTask(userTask(uniqueId(), 'e'.repeat(3_000)))));
      assertError(error, TransportLimitError, 'response_too_large');
      assert.equal(error.retryable, false);
      assert.equal(error.limit, 2_000);
      const metrics = (await client.transport()).health().metrics;
      assert.equal(metrics.streams_started, 1, 'a stream is never retried');
      assert.equal(metrics.streams_failed, 1);
      assert.equal(metrics.active_streams, 0);
      assert.ok(calls <= 1, `the handler ran ${calls} times`);
      // The transport still serves streams whose events fit.
      const events = await collect<StreamEvent>(client.streamTask(userTask(uniqueId(), 'ok')));
      assert.equal(events.at(-1)!.type, 'task_completed');
    },
  },

  {
    name: 'limit on event: over the client max_event_bytes fails the stream with TransportLimitError',
    skip: { http: 'plain http has no task stream (spec: Events)' },
    async run(f) {
      const agent = await f.agent();
      const client = f.client(agent.url, { limits: { maxEventBytes: 300 } });
      const error = await failure(collect(client.streamTask(userTask(uniqueId(), 'e'.repeat(400)))));
      assertError(error, TransportLimitError);
      assert.equal(error.retryable, false);
      const metrics = (await client.transport()).health().metrics;
      assert.equal(metrics.streams_failed, 1);
      assert.equal(metrics.active_streams, 0);
    },
  },

  {
    name: 'unknown endpoint: a path the server lacks is a remote not_found (404)',
    async run(f) {
      let calls = 0;
      const agent = await f.agent({ handler: () => void calls++ });
      const client = f.client(agent.url, { retry: FAST_RETRY });
      const transport = await client.transport();
      const error = await failure(transport.unary({ ...agentOperations.sendTask, path: '/nope' }, userTask(uniqueId(), 'x')));
      // http/sse: HTTP 404 with an error body; websocket and grpc: an `ok: false` envelope whose
      // error object carries status 404 (grpc keeps gRPC status codes for the transport layer);
      // runtime: "Unknown runtime endpoint: remote error with status 404" (spec: Errors).
      assertError(error, TransportRemoteError, 'not_found');
      assert.equal(error.statusCode, 404);
      assert.equal(error.retryable, false);
      assert.equal(transport.health().metrics.retries, 0);
      assert.equal(calls, 0);
    },
  },

  {
    name: 'retry: an idempotent call that fails twice with 503 succeeds on the third attempt',
    async run(f) {
      let describeCalls = 0;
      let describeFailures = 2;
      let resetCalls = 0;
      const answer: StateResult = {
        operation: 'describe',
        scope: 'agent',
        session_id: null,
        state: { answered: true },
        changed: false,
      };
      const endpoints = new Map<string, Endpoint>();
      const add = (endpoint: Endpoint) => endpoints.set(routeKey(endpoint.spec.method, endpoint.spec.path), endpoint);
      add({
        spec: agentOperations.describeState,
        unary: async () => {
          describeCalls++;
          if (describeFailures > 0) {
            describeFailures--;
            throw new EndpointError('unavailable', 'warming up');
          }
          return answer;
        },
      });
      add({
        spec: agentOperations.resetState,
        unary: async () => {
          resetCalls++;
          throw new EndpointError('unavailable', 'warming up');
        },
      });
      let streamCalls = 0;
      add({
        spec: agentOperations.streamTask,
        // biome-ignore lint/correctness/useYield: the test needs a stream that fails before it yields anything.
        async *stream() {
          streamCalls++;
          throw new EndpointError('unavailable', 'warming up');
        },
      });
      const server = await f.raw(endpoints);

      // One attempt that succeeds, to know what one attempt sends.
      describeFailures = 0;
      const single = f.client(server.url, { retry: FAST_RETRY });
      assert.deepEqual(await single.describeState({}), answer);
      const oneAttempt = (await single.transport()).health().metrics.bytes_sent;
      describeFailures = 2;
      describeCalls = 0;

      const client = f.client(server.url, { retry: FAST_RETRY });
      assert.deepEqual(await client.describeState({}), answer);
      assert.equal(describeCalls, 3);
      const metrics = (await client.transport()).health().metrics;
      assert.equal(metrics.retries, 2);
      assert.equal(metrics.requests_started, 1, 'one logical request');
      assert.equal(metrics.requests_succeeded, 1);
      assert.equal(metrics.requests_failed, 0);
      // Spec (Health payload): bytes_sent counts retried attempts again.
      assert.equal(metrics.bytes_sent, 3 * oneAttempt);

      // Out of attempts: the last failure comes back as it is, still marked retryable.
      describeFailures = 2;
      describeCalls = 0;
      const short = f.client(server.url, { retry: { ...FAST_RETRY, maxAttempts: 2 } });
      const error = await failure(short.describeState({}));
      assertError(error, TransportRemoteError, 'unavailable');
      assert.equal(error.statusCode, 503);
      assert.equal(error.retryable, true);
      assert.equal(describeCalls, 2);
      assert.equal((await short.transport()).health().metrics.retries, 1);

      // State reset is not idempotent (spec: Idempotency and correlation): never retried.
      const reset = await failure(client.resetState({}));
      assertError(reset, TransportRemoteError, 'unavailable');
      assert.equal(resetCalls, 1);
      assert.equal((await client.transport()).health().metrics.retries, 2);

      // Streams never retry, even for a retryable error (spec: Events, Transport error taxonomy).
      // Plain http has no stream to try (spec: Events): its client refuses before sending.
      if (f.kind !== 'http') {
        const streamed = await failure(collect(client.streamTask(userTask(uniqueId(), 'x'))));
        assertError(streamed, TransportRemoteError, 'unavailable');
        assert.equal(streamed.retryable, true);
        assert.equal(streamCalls, 1);
        assert.equal((await client.transport()).health().metrics.retries, 2);
      }
    },
  },

  {
    name: 'concurrency: a request over max_concurrent_requests waits for a slot instead of being rejected',
    async run(f) {
      const release = deferred();
      const firstStarted = deferred();
      let released = false;
      const order: string[] = [];
      const handler: AgentHandler = async ({ input }) => {
        order.push(released ? `${input} after release` : input);
        if (input === 'first') {
          firstStarted.resolve();
          await release.promise;
        }
        return { text: input };
      };
      let tasksRouted = 0;
      const agent = await f.agent({
        handler,
        transportOptions: { limits: { maxConcurrentRequests: 1 } },
        onRoute: (method, path) => {
          if (method === 'POST' && path === '/tasks/') tasksRouted++;
        },
      });
      // Two callers, so nothing on the client side (a connection lock, a pool) does the waiting.
      const first = f.client(agent.url);
      const second = f.client(agent.url);
      const one = first.sendTask(userTask(uniqueId(), 'first'));
      await firstStarted.promise;
      const two = second.sendTask(userTask(uniqueId(), 'second'));
      // The first is released only once the server holds the second request, so the second
      // really arrives while the only slot is taken. The dispatcher counts a request on arrival,
      // before its slot; grpc waits for the slot earlier, in the gRPC server itself (spec:
      // Limits, per-transport mapping: `maximum_concurrent_rpcs`, default
      // max_concurrent_requests), where the sign of arrival is the endpoint lookup it does first.
      const arrived = f.kind === 'grpc' ? () => tasksRouted >= 2 : () => agent.transport.health().metrics.requests_started >= 2;
      await until(arrived, f.signal);
      assert.deepEqual(order, ['first'], 'the second request waits for the only slot');
      released = true;
      release.resolve();
      const [a, b] = await Promise.all([one, two]);
      assert.equal(a.state, 'completed');
      assert.equal(b.state, 'completed', 'waited, not rejected');
      assert.deepEqual(texts(b.artifacts![0]!.parts), ['second']);
      assert.deepEqual(order, ['first', 'second after release']);
    },
  },

  {
    name: 'stream abandoned: a client that stops reading makes the handler see its signal abort',
    skip: { http: 'plain http has no task stream (spec: Events)' },
    // A hang guard only: with the handler never told, nothing else would end the wait.
    timeout: 30_000,
    async run(f) {
      const requestGone = deferred<unknown>();
      const sawAbort = deferred<unknown>();
      const handler: AgentHandler = async function* ({ signal, request }) {
        request.signal.addEventListener('abort', () => requestGone.resolve(request.signal.reason), { once: true });
        signal.addEventListener('abort', () => sawAbort.resolve(signal.reason), { once: true });
        yield { type: 'task_llm_stream', delta: 'thinking', final: false, model: 'm' };
        await untilAborted(signal);
      };
      const agent = await f.agent({ handler });
      const client = f.client(agent.url);
      const seen: string[] = [];
      for await (const event of client.streamTask(userTask(uniqueId(), 'x'))) {
        seen.push(event.type);
        if (event.type === 'task_llm_stream') break;
      }
      assert.deepEqual(seen, ['task_status', 'task_llm_stream']);
      assert.equal((await client.transport()).health().metrics.active_streams, 0, 'the client let go of its stream');
      // The transport noticed the caller leave (the request's signal aborted; on runtime the
      // stream's generator is closed instead, so there is no request signal to wait for)...
      if (f.kind !== 'runtime') await requestGone.promise;
      // ...and the task's signal aborts: handler API, "aborted when the task is cancelled or
      // its stream's client goes away"; spec (Events): a stream holds its slot for its lifetime.
      const reason = (await sawAbort.promise) as Error;
      assert.equal(reason.name, 'TaskCanceledError');
      await until(() => agent.transport.health().metrics.active_streams === 0, f.signal);
    },
  },

  {
    name: 'health and readiness: same content but metrics, valid health payloads, right transport, ready',
    async run(f) {
      const agent = await f.agent();
      const client = f.client(agent.url);
      const health = await client.health();
      const ready = await client.readiness();
      assertValid('health', health);
      assertValid('health', ready);
      const { metrics: healthMetrics, ...healthRest } = health;
      const { metrics: readyMetrics, ...readyRest } = ready;
      assert.deepEqual(readyRest, healthRest);
      assert.equal(health.status, 'ready');
      assert.equal(health.ready, true);
      assert.equal(health.transport, f.kind);
      assert.equal(health.url, agent.url);
      assert.deepEqual(health.capabilities, SPEC_CAPABILITIES[f.kind]);
      for (const metrics of [healthMetrics, readyMetrics]) {
        assert.deepEqual(Object.keys(metrics).sort(), SPEC_METRIC_NAMES);
        for (const [name, value] of Object.entries(metrics)) {
          if (name === 'total_latency_ms') assert.ok(typeof value === 'number' && value >= 0, `${name} = ${value}`);
          else assert.ok(Number.isInteger(value) && (value as number) >= 0, `${name} = ${value}`);
        }
      }
      // Per transport instance, starting at zero: the server counted both calls.
      assert.ok(readyMetrics.requests_started > healthMetrics.requests_started, 'readyz counts the healthz call before it');
      assert.ok(healthMetrics.requests_started >= 1);
    },
  },

  {
    name: 'capabilities: the exact row of the spec table, on server, client and remote health',
    async run(f) {
      const agent = await f.agent();
      const client = f.client(agent.url);
      const row = SPEC_CAPABILITIES[f.kind];
      assert.deepEqual(agent.transport.capabilities, row);
      assert.deepEqual(agent.transport.health().capabilities, row);
      const clientTransport = await client.transport();
      assert.equal(clientTransport.name, f.kind);
      assert.deepEqual(clientTransport.health().capabilities, row);
      assert.deepEqual((await client.health()).capabilities, row);
    },
  },

  {
    name: 'lifecycle: ready after start, second start a no-op, stopped after stop, repeated stop safe, calls fail after stop',
    async run(f) {
      const idle = await createTransport(f.kind, listenUrl(f.kind));
      assert.equal(idle.health().status, 'stopped');
      assert.equal(idle.health().ready, false);
      await idle.stop();

      const agent = await f.agent();
      const transport = agent.transport;
      const url = agent.url;
      assert.equal(agent.isRunning, true);
      assert.deepEqual([transport.health().status, transport.health().ready], ['ready', true]);

      // A second start while running is a no-op, on the agent and on its transport: same
      // transport, same address, the same endpoint table still served.
      await agent.start();
      await transport.start(new Map());
      assert.equal(agent.transport, transport);
      assert.equal(agent.url, url);
      const before = f.client(url);
      assert.equal((await before.sendTask(userTask(uniqueId(), 'still here'))).state, 'completed');

      await agent.stop();
      assert.equal(agent.isRunning, false);
      assert.deepEqual([transport.health().status, transport.health().ready], ['stopped', false]);
      await agent.stop();
      await transport.stop();
      assert.equal(transport.health().status, 'stopped');

      // A fresh client finds nobody there: connection refused (http, sse, websocket), gRPC
      // UNAVAILABLE (grpc), no started runtime target (runtime): all TransportConnectionError.
      const fresh = f.client(url);
      const refused = await failure(fresh.sendTask(userTask(uniqueId(), 'anyone?')));
      assertError(refused, TransportConnectionError);
      assert.equal(refused.retryable, true);

      // A client that had a connection: the server closed it on stop. See STALE_CLIENT_ERRORS.
      const stale = await failure(before.sendTask(userTask(uniqueId(), 'anyone?')));
      assert.ok(
        STALE_CLIENT_ERRORS[f.kind].some((type) => stale instanceof type),
        `expected ${STALE_CLIENT_ERRORS[f.kind].map((type) => type.name).join(' or ')}, got ${stale.name}: ${stale.message}`,
      );

      // stopped -> start() -> ready again (spec: Transport lifecycle), and it serves.
      await agent.start();
      assert.equal(agent.isRunning, true);
      assert.deepEqual([agent.transport.health().status, agent.transport.health().ready], ['ready', true]);
      const again = f.client(agent.url);
      assert.equal((await again.sendTask(userTask(uniqueId(), 'back'))).state, 'completed');
    },
  },
];

for (const scenario of scenarios) {
  describe(scenario.name, () => {
    for (const kind of TRANSPORTS) {
      // The timeout only turns a hang (the failure mode of a waiting scenario) into a failure.
      test(kind, { skip: scenario.skip?.[kind] ?? false, timeout: scenario.timeout ?? 60_000 }, async (t) => {
        const fixture = new Fixture(kind, t.signal);
        t.after(() => fixture.close());
        await scenario.run(fixture);
      });
    }
  });
}
