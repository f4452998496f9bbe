// The task stream of an agent with a model and a tool, over every stream transport (sse,
// websocket, grpc, runtime; plain http has no stream): the same events in the same order —
// status, the text chunks of step 1, its final chunk, the assistant's tool_call message, the
// tool call and result, the tool_result message, step 2's chunks and final, the answer, the
// artifact, the completion — each a valid stream event; and a cancel during a model step ends
// the stream with the canceled task. The model is the OpenAI provider against a local server
// speaking that API.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAIChatModel } from '../../src/llm/providers/openai-chat.js';
import { eventShape, streamShape, WEATHER_STREAM } from '../llm/event-shape.js';
import { startOpenAIServer, type OpenAITurn } from '../llm/fake-openai-server.js';
import type { ScriptedServer } from '../llm/scripted-server.js';
import { weatherTool, weatherTurns } from '../llm/weather-fixture.js';
import { Fixture, assertValid, collect, uniqueId, userTask, type TransportKind } from '../support/cross-transport.js';

const STREAMING: readonly TransportKind[] = ['sse', 'websocket', 'grpc', 'runtime'];

function openai(server: ScriptedServer<OpenAITurn>): OpenAIChatModel {
  return new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseUrl: `${server.baseUrl}/v1` });
}

describe('llm task stream on every stream transport', () => {
  for (const kind of STREAMING) {
    test(`${kind}: a tool-using answer streams its events in order`, { timeout: 60_000 }, async (t) => {
      const server = await startOpenAIServer(t);
      const fixture = new Fixture(kind, t.signal);
      t.after(() => fixture.close());
      const agent = await fixture.agent({ llm: openai(server), tools: [weatherTool()] });
      server.script(...weatherTurns(`call_${kind}`));
      const events = await collect(fixture.client(agent.url).streamTask(userTask(uniqueId(), 'Weather in Lisbon?')));
      for (const event of events) assertValid('stream-event', event);
      assert.deepEqual(streamShape(events), WEATHER_STREAM);
      const call = events.find((event) => event.type === 'task_tool_call');
      assert.deepEqual(call?.type === 'task_tool_call' && call.tool_call, {
        call_id: `call_${kind}`,
        name: 'get_weather',
        arguments: { city: 'Lisbon' },
      });
      const result = events.find((event) => event.type === 'task_tool_result');
      assert.deepEqual(result?.type === 'task_tool_result' && result.tool_result, {
        call_id: `call_${kind}`,
        result: { city: 'Lisbon', sky: 'clear', celsius: 21 },
        error: null,
      });
    });

    test(`${kind}: a cancel during a model step ends the stream with the canceled task`, { timeout: 60_000 }, async (t) => {
      // Stopped first when the test ends: a failing assertion must not leave the agent's stop
      // waiting on the model forever.
      const server = await startOpenAIServer(t);
      const fixture = new Fixture(kind, t.signal);
      t.after(() => fixture.close());
      const agent = await fixture.agent({ llm: openai(server) });
      server.script({ hang: true, before: ['hmm'] });
      const id = uniqueId();
      const client = fixture.client(agent.url);
      const stream = client.streamTask(userTask(id, 'think'))[Symbol.asyncIterator]();
      // Left open by a failing assertion, the stream's client deadline would hold the process.
      t.after(() => stream.return?.());
      assert.equal(eventShape((await stream.next()).value!), 'status:working');
      assert.equal(eventShape((await stream.next()).value!), 'llm:1:hmm');
      await fixture.client(agent.url).cancel(id, 'stop');
      const rest: string[] = [];
      for (let item = await stream.next(); !item.done; item = await stream.next()) rest.push(eventShape(item.value));
      assert.deepEqual(rest, ['completed:canceled']);
      await server.untilClosedEarly(1);
    });
  }
});
