// Graceful shutdown on every transport: with a request (and, where there are streams, a stream)
// in flight, stop() turns readiness off first (readyz answers 503, over the wire where there is
// one), lets the work in flight finish with its real answer, and only then closes. A call made
// once stop is done is refused the way that transport refuses a server that is gone.
//
// The unary call, the stream and the readyz probe each come from a client of their own, as they
// would in production (a load balancer probes on its own connection). A websocket client carries
// one data call at a time on its connection (the spec's lock; a stream holds it until its final
// event), so on one websocket client the second call would wait for the first, which waits for
// the drain: that, not the drain, is why this row once had to leave its stream and probe out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentOperationsClient } from '../../generated/clients/agent.js';
import { agentOperations } from '../../generated/operations/agent.js';
import type { StreamEvent, Task } from '../../generated/types/index.js';
import { AgentServer } from '../../src/agent/agent-server.js';
import { TransportConnectionError } from '../../src/transport/errors.js';
import { createTransport } from '../../src/transport/factory.js';
import { rejectsWithStatus } from '../support/agent-harness.js';
import { deferred } from '../support/async.js';

const LISTEN: Record<string, string> = {
  http: 'http://127.0.0.1:0',
  sse: 'http://127.0.0.1:0',
  websocket: 'ws://127.0.0.1:0',
  grpc: 'grpc://127.0.0.1:0',
  runtime: 'runtime://draining',
};

function task(id: string): Task {
  return { id, messages: [{ role: 'user', parts: [{ type: 'text', content: id }] }] };
}

for (const transport of Object.keys(LISTEN)) {
  test(`${transport}: stop drains the requests and streams in flight, unready first`, async (t) => {
    const gate = deferred();
    let entered = 0;
    const allEntered = deferred();
    const streams = transport !== 'http';
    const agent = new AgentServer({
      name: 'draining',
      transport,
      url: LISTEN[transport],
      handler: async (context) => {
        if (++entered === (streams ? 2 : 1)) allEntered.resolve();
        await gate.promise;
        return { text: `done ${context.task.id}` };
      },
    });
    await agent.start();
    t.after(() => agent.stop());
    const connect = async () => {
      // One attempt: a 503 is retryable, and the test wants to see it.
      const client = await createTransport(transport, agent.url, { retry: { maxAttempts: 1 } });
      t.after(() => client.stop());
      return client;
    };
    const [caller, streamer, probe] = [await connect(), await connect(), await connect()];
    const unary = new AgentOperationsClient(caller).sendTask(task('unary'), { timeoutMs: 10_000 });
    const streamed = streams
      ? (async () => {
          const events: StreamEvent[] = [];
          for await (const event of new AgentOperationsClient(streamer).streamTask(task('streamed'))) events.push(event);
          return events;
        })()
      : null;
    await allEntered.promise;
    const stopped = agent.stop();
    let stopDone = false;
    void stopped.then(() => (stopDone = true));
    // Draining: readiness is off while the work in flight is still being served, asked over the
    // wire as a probe would, on a connection opened during the drain (still accepted).
    await rejectsWithStatus(probe.unary(agentOperations.readyz, undefined, { timeoutMs: 5000 }), 503, 'unavailable');
    assert.equal(stopDone, false, 'stop waits for the work in flight');
    gate.resolve();
    const answered = await unary;
    assert.equal(answered.state, 'completed');
    if (streamed) {
      const events = await streamed;
      const last = events.at(-1) as { type?: string; task?: Task } | undefined;
      assert.equal(last?.type, 'task_completed', JSON.stringify(last));
      assert.equal(last?.task?.state, 'completed');
    }
    await stopped;
    assert.equal(agent.transport.health().status, 'stopped');
    if (transport === 'runtime') {
      // Nothing is registered under the URL any more: the call is refused before it reaches a server.
      await assert.rejects(
        new AgentOperationsClient(caller).sendTask(task('late')),
        (error: unknown) => error instanceof TransportConnectionError && /no runtime transport is started/.test(error.message),
      );
    }
  });
}
