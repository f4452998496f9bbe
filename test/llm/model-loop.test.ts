// An agent with a model and tools, end to end: AgentServer on a real transport, the OpenAI
// provider against the local wire server, tasks and streams through the generated client.
// The loop's rows: the call/result loop and what the task keeps of it, the stream's order,
// bad calls answered as tool errors (a tool that throws, input failing its schema, malformed
// arguments, an unknown tool), each budget limit, a cancel during a model step, a model that
// fails, compaction above the model's context, a handler running the model itself, /chat.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LlmRun, Task } from '../../generated/types/index.js';
import type { AgentServerOptions } from '../../src/agent/agent-server.js';
import { AnthropicMessagesModel } from '../../src/llm/providers/anthropic-messages.js';
import type { LanguageModel } from '../../src/llm/language-model.js';
import { OpenAIChatModel } from '../../src/llm/providers/openai-chat.js';
import { tool } from '../../src/llm/tool.js';
import {
  aborted,
  assertValid,
  collect,
  rawHttp,
  startAgent,
  uniqueId,
  userTask,
  type Harness,
  type TransportKind,
} from '../support/agent-harness.js';
import { eventShape, streamShape, WEATHER_STREAM } from './event-shape.js';
import { startAnthropicServer } from './fake-anthropic-server.js';
import { startOpenAIServer, openaiError, type OpenAITurn } from './fake-openai-server.js';
import type { ScriptedServer, TestScope } from './scripted-server.js';
import { weatherTool, weatherTurns, type WeatherArgs } from './weather-fixture.js';

interface ModelSetup {
  /** The test's own model server: its script ends with the test, and must be used up by then. */
  readonly server: ScriptedServer<OpenAITurn>;
  /** The OpenAI provider against that server. */
  openai(options?: { contextTokens?: number }): OpenAIChatModel;
  /** An agent (the OpenAI provider its model unless `options` name another), closed when the test ends. */
  agent(options?: Omit<AgentServerOptions, 'name'>, kind?: TransportKind): Promise<Harness>;
}

async function setup(t: TestScope): Promise<ModelSetup> {
  const server = await startOpenAIServer(t);
  const openai = (options: { contextTokens?: number } = {}) =>
    new OpenAIChatModel({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      baseUrl: `${server.baseUrl}/v1`,
      retry: { maxAttempts: 2, initialBackoff: 0.001, maxBackoff: 0.001, jitter: 0 },
      ...options,
    });
  const agent = async (options: Omit<AgentServerOptions, 'name'> = {}, kind: TransportKind = 'runtime') => {
    const h = await startAgent(kind, { llm: openai(), ...options });
    t.after(() => h.close());
    return h;
  };
  return { server, openai, agent };
}

function llmRun(task: Task): LlmRun {
  const run = task.metadata?.llm as LlmRun;
  assertValid('llm-run', run);
  return run;
}

/** A turn that asks for get_weather again and again. */
function callAgain(n: number): OpenAITurn {
  return { toolCalls: [{ id: `call_${n}`, name: 'get_weather', arguments: '{"city":"Lisbon"}' }] };
}

describe('the model loop in an agent', () => {
  test('a task runs the call/result loop; the task keeps the calls, results, answer and usage', async (t) => {
    const calls: WeatherArgs[] = [];
    const { server, agent } = await setup(t);
    const h = await agent({ tools: [weatherTool(calls)], instructions: 'You report the weather.' });
    server.script(...weatherTurns());
    const task = await h.client.sendTask(userTask(uniqueId(), 'Weather in Lisbon?'));
    assertValid('task', task);
    assert.equal(task.state, 'completed');
    assert.deepEqual(calls, [{ city: 'Lisbon' }]);
    const [user, asked, results, answer] = task.messages!;
    assert.equal(user!.role, 'user');
    assert.equal(asked!.role, 'assistant');
    assert.deepEqual(asked!.parts, [
      { type: 'text', content: 'Let me check.' },
      { type: 'tool_call', content: { call_id: 'call_w1', name: 'get_weather', arguments: { city: 'Lisbon' } } },
    ]);
    assert.equal(results!.role, 'agent');
    assert.deepEqual(results!.parts, [
      {
        type: 'tool_result',
        content: { call_id: 'call_w1', result: { city: 'Lisbon', sky: 'clear', celsius: 21 }, error: null },
      },
    ]);
    assert.equal(answer!.role, 'assistant');
    assert.deepEqual(answer!.parts, [{ type: 'text', content: 'Sunny, 21 degrees.' }]);
    assert.deepEqual(
      task.artifacts!.map((artifact) => [artifact.kind, artifact.parts[0]!.content]),
      [['result', 'Sunny, 21 degrees.']],
    );
    assert.deepEqual(llmRun(task), {
      model: 'gpt-4o-mini',
      steps: 2,
      tool_calls: 1,
      usage: { input_tokens: 110, output_tokens: 18, total_tokens: 128 },
      compactions: 0,
    });
    // The second step read the instructions, the question, the call and its result.
    const second = server.requests[1]!.body;
    assert.deepEqual(
      second.messages.map((message: { role: string }) => message.role),
      ['system', 'user', 'assistant', 'tool'],
    );
    assert.equal(second.messages[0].content, 'You report the weather.');
    assert.deepEqual(JSON.parse(second.messages[3].content), { city: 'Lisbon', sky: 'clear', celsius: 21 });
    assert.equal(second.tools[0].function.name, 'get_weather');
  });

  test('the stream carries status, text chunks, step finals, messages, tool events, artifact, completion in order', async (t) => {
    const { server, agent } = await setup(t);
    const h = await agent({ tools: [weatherTool()] });
    server.script(...weatherTurns());
    const events = await collect(h.client.streamTask(userTask(uniqueId(), 'Weather in Lisbon?')));
    for (const event of events) assertValid('stream-event', event);
    assert.deepEqual(streamShape(events), WEATHER_STREAM);
    const finals = events.filter((event) => event.type === 'task_llm_stream' && event.final);
    assert.deepEqual(
      finals.map((event) => event.type === 'task_llm_stream' && event.usage),
      [
        { input_tokens: 40, output_tokens: 12, total_tokens: 52 },
        { input_tokens: 70, output_tokens: 6, total_tokens: 76 },
      ],
    );
    // The chunks of the answer name the message they became.
    const answerChunks = events.filter((event) => event.type === 'task_llm_stream' && event.step === 2);
    const completed = events.at(-1)!;
    assert.equal(completed.type, 'task_completed');
    const answerId = completed.type === 'task_completed' ? completed.task.messages!.at(-1)!.id : null;
    for (const chunk of answerChunks) assert.equal(chunk.type === 'task_llm_stream' && chunk.message_id, answerId);
  });

  test('bad calls become tool errors the model reads, and the run goes on', async (t) => {
    let thrown = 0;
    const calls: WeatherArgs[] = [];
    const failing = tool({
      name: 'explode',
      description: 'Always fails',
      input: { type: 'object', properties: {} },
      run: () => {
        thrown++;
        throw new Error('the sensor is offline');
      },
    });
    const { server, agent } = await setup(t);
    const h = await agent({ tools: [weatherTool(calls), failing] });
    server.script(
      {
        toolCalls: [
          { id: 'c_throw', name: 'explode', arguments: '{}' },
          { id: 'c_schema', name: 'get_weather', arguments: '{"town":"Lisbon"}' },
          { id: 'c_malformed', name: 'get_weather', arguments: '{"city": "Lis' },
          { id: 'c_unknown', name: 'get_stock', arguments: '{}' },
        ],
      },
      { text: ['Nothing worked.'] },
    );
    const events = await collect(h.client.streamTask(userTask(uniqueId(), 'try things')));
    const completed = events.at(-1)!;
    assert.equal(completed.type === 'task_completed' && completed.state, 'completed');
    assert.equal(thrown, 1);
    assert.deepEqual(calls, [], 'input that fails the schema never reaches the tool');
    const results = events.flatMap((event) => (event.type === 'task_tool_result' ? [event.tool_result] : []));
    assert.deepEqual(
      results.map((result) => [result.call_id, result.result]),
      [
        ['c_throw', null],
        ['c_schema', null],
        ['c_malformed', null],
        ['c_unknown', null],
      ],
    );
    assert.equal(results[0]!.error, 'the sensor is offline');
    assert.match(results[1]!.error!, /do not match the tool's input schema/);
    assert.match(results[2]!.error!, /not valid JSON/);
    assert.match(results[3]!.error!, /no tool named "get_stock"/);
    const malformedCall = events.find((event) => event.type === 'task_tool_call' && event.tool_call.call_id === 'c_malformed');
    assert.ok(malformedCall?.type === 'task_tool_call');
    assert.deepEqual(malformedCall.tool_call.arguments, {});
    assert.match(String(malformedCall.tool_call.arguments_error), /not valid JSON/);
    // The model read every error as its call's output.
    const toolMessages = server.requests[1]!.body.messages.filter((message: { role: string }) => message.role === 'tool');
    assert.deepEqual(
      toolMessages.map((message: { tool_call_id: string; content: string }) => [message.tool_call_id, message.content]),
      results.map((result) => [result.call_id, result.error]),
    );
  });

  test('budget: more model steps than allowed fails the task with run_budget_exceeded (steps)', async (t) => {
    const { server, agent } = await setup(t);
    const h = await agent({ tools: [weatherTool()], runBudget: { maxSteps: 2 } });
    server.script(callAgain(1), callAgain(2));
    const task = await h.client.sendTask(userTask(uniqueId(), 'loop forever'));
    assert.equal(task.state, 'failed');
    assert.equal((task.metadata!.error as { code: string }).code, 'run_budget_exceeded');
    assert.match((task.metadata!.error as { message: string }).message, /steps/);
    assert.equal(llmRun(task).steps, 2);
    assert.equal(server.pending, 0);
  });

  test('budget: tool calls and tokens', async (t) => {
    const { server, agent } = await setup(t);
    const h = await agent({ tools: [weatherTool()], runBudget: { maxToolCalls: 1 } });
    server.script({
      toolCalls: [
        { id: 'a', name: 'get_weather', arguments: '{"city":"A"}' },
        { id: 'b', name: 'get_weather', arguments: '{"city":"B"}' },
      ],
    });
    const tooMany = await h.client.sendTask(userTask(uniqueId(), 'two cities'));
    assert.equal(tooMany.state, 'failed');
    assert.match((tooMany.metadata!.error as { message: string }).message, /tool_calls/);
    assert.equal(llmRun(tooMany).tool_calls, 1);

    const tokens = await agent({ tools: [weatherTool()], runBudget: { maxTokens: 20 } });
    server.script(callAgain(1), callAgain(2));
    const tooLong = await tokens.client.sendTask(userTask(uniqueId(), 'spend'));
    assert.equal(tooLong.state, 'failed');
    assert.equal((tooLong.metadata!.error as { code: string }).code, 'run_budget_exceeded');
    assert.match((tooLong.metadata!.error as { message: string }).message, /tokens/);
    assert.equal(llmRun(tooLong).usage.total_tokens, 30);
  });

  test('budget: a run past its time fails the task, and the model request is dropped', async (t) => {
    const { server, openai, agent } = await setup(t);
    // On a slow machine the run's 50 ms can pass before the request leaves: the provider
    // hears of the run's end only once the server has the request, so the drop is seen always.
    const provider = openai();
    const llm: LanguageModel = {
      name: provider.name,
      complete: (turns, options) => provider.complete(turns, options),
      step: (request) => {
        const held = new AbortController();
        void aborted(request.signal!).then(async (reason) => {
          await server.untilRequests(1);
          held.abort(reason);
        });
        return provider.step({ ...request, signal: held.signal });
      },
    };
    const h = await agent({ llm, runBudget: { maxTimeMs: 50 } });
    server.script({ hang: true });
    const task = await h.client.sendTask(userTask(uniqueId(), 'take forever'));
    assert.equal(task.state, 'failed');
    assert.equal((task.metadata!.error as { code: string }).code, 'run_budget_exceeded');
    assert.match((task.metadata!.error as { message: string }).message, /time/);
    await server.untilClosedEarly(1);
  });

  test('cancel during a model step cancels the task and drops the model request', async (t) => {
    const { server, agent } = await setup(t);
    const h = await agent();
    server.script({ hang: true, before: ['thinking'] });
    const id = uniqueId();
    const stream = h.client.streamTask(userTask(id, 'think hard'))[Symbol.asyncIterator]();
    // A failing assertion must leave nothing open: the model's answer (the server's stop drops it), the stream.
    t.after(() => stream.return?.());
    const seen: string[] = [];
    for (;;) {
      const { value } = await stream.next();
      seen.push(eventShape(value!));
      if (value!.type === 'task_llm_stream') break;
    }
    assert.deepEqual(seen, ['status:working', 'llm:1:thinking']);
    const canceled = await h.client.cancelTask({ id, metadata: { reason: 'changed my mind' } });
    assert.equal(canceled.state, 'canceled');
    const rest: string[] = [];
    for (;;) {
      const { value, done } = await stream.next();
      if (done) break;
      rest.push(eventShape(value));
    }
    assert.deepEqual(rest, ['completed:canceled']);
    await server.untilClosedEarly(1);
  });

  test('a model that keeps failing fails the task with the model error code', async (t) => {
    const { server, agent } = await setup(t);
    const h = await agent();
    server.script({ status: 500, body: openaiError('boom') }, { status: 500, body: openaiError('boom') });
    const task = await h.client.sendTask(userTask(uniqueId(), 'hello'));
    assert.equal(task.state, 'failed');
    assert.deepEqual(task.metadata!.error, {
      name: 'ModelError',
      code: 'model_unavailable',
      message: 'openai answered 500: boom',
    });
    assert.equal(llmRun(task).steps, 1);
  });

  test('above the model context the history is compacted before the step', async (t) => {
    const { server, openai, agent } = await setup(t);
    const h = await agent({ llm: openai({ contextTokens: 60 }) });
    const session = uniqueId('session');
    const long = 'word '.repeat(40);
    server.script({ text: ['first'] }, { text: ['second'] });
    const first = await h.client.sendTask(userTask(uniqueId(), long, { metadata: { session_id: session } }));
    assert.equal(first.messages!.at(-1)!.parts[0]!.content, 'first');
    assert.equal(llmRun(first).compactions, 0);
    // 40 tokens, 1, and 40 more: above the 60 the model reads.
    const task = await h.client.sendTask(userTask(uniqueId(), `${long}again`, { metadata: { session_id: session } }));
    assert.equal(task.state, 'completed');
    assert.equal(task.messages!.at(-1)!.parts[0]!.content, 'second');
    assert.equal(llmRun(task).compactions, 1);
    const sent = server.requests[1]!.body.messages as Array<{ role: string; content: string }>;
    assert.deepEqual(
      sent.map((message) => message.role),
      ['assistant', 'user'],
      'the oldest turn went, the new question stayed',
    );
    assert.equal(sent.at(-1)!.content, `${long}again`);
  });

  test('a handler runs the model itself, with its own prompt and tools', async (t) => {
    const calls: WeatherArgs[] = [];
    const { server, agent } = await setup(t);
    const h = await agent({
      handler: async (context) => {
        const answer = await context.runModel({
          prompt: `Weather for: ${context.input}`,
          tools: [weatherTool(calls)],
          remember: false,
        });
        return { text: answer.text.toUpperCase() };
      },
    });
    server.script(...weatherTurns());
    const task = await h.client.sendTask(userTask(uniqueId(), 'Lisbon'));
    assert.equal(task.state, 'completed');
    assert.equal(task.messages!.at(-1)!.parts[0]!.content, 'SUNNY, 21 DEGREES.');
    assert.deepEqual(calls, [{ city: 'Lisbon' }]);
    assert.equal(server.requests[0]!.body.messages[0].content, 'Weather for: Lisbon');
    assert.equal(llmRun(task).steps, 2);
  });

  test('the same loop over the Anthropic provider: tool_use in, tool_result back, the answer out', async (t) => {
    const anthropic = await startAnthropicServer(t);
    const calls: WeatherArgs[] = [];
    const llm = new AnthropicMessagesModel({ model: 'claude-test', apiKey: 'sk-ant-test', baseUrl: anthropic.baseUrl });
    const { agent } = await setup(t);
    const h = await agent({ llm, tools: [weatherTool(calls)], instructions: 'Report the weather.' });
    anthropic.script(
      { text: ['Let me check.'], toolUses: [{ id: 'toolu_1', name: 'get_weather', input: '{"city":"Lisbon"}' }] },
      { text: ['Sunny, ', '21 degrees.'] },
    );
    const events = await collect(h.client.streamTask(userTask(uniqueId(), 'Weather in Lisbon?')));
    assert.deepEqual(streamShape(events), WEATHER_STREAM);
    assert.deepEqual(calls, [{ city: 'Lisbon' }]);
    const second = anthropic.requests.at(-1)!.body;
    assert.equal(second.system, 'Report the weather.');
    assert.deepEqual(second.messages.at(-1), {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"city":"Lisbon","sky":"clear","celsius":21}', is_error: false },
      ],
    });
    const completed = events.at(-1)!;
    assert.ok(completed.type === 'task_completed');
    assert.deepEqual(llmRun(completed.task).usage, { input_tokens: 20, output_tokens: 10, total_tokens: 30 });
  });

  test('POST /chat keeps the conversation per session and answers model failures as 502 and budgets as 422', async (t) => {
    const { server, agent } = await setup(t);
    const h = await agent({ tools: [weatherTool()], runBudget: { maxSteps: 1 } }, 'http');
    server.script({ text: ['Hi there.'] }, { text: ['Still here.'] });
    const first = await rawHttp(h.url, { method: 'POST', path: '/chat', body: JSON.stringify({ message: 'hello' }) });
    assert.equal(first.status, 200);
    const { reply, session_id, model } = first.json();
    assert.deepEqual([reply, model], ['Hi there.', 'gpt-4o-mini']);
    const second = await rawHttp(h.url, {
      method: 'POST',
      path: '/chat',
      body: JSON.stringify({ message: 'still there?', session_id }),
    });
    assert.equal(second.json().reply, 'Still here.');
    assert.deepEqual(
      server.requests[1]!.body.messages.map((message: { content: string }) => message.content),
      ['hello', 'Hi there.', 'still there?'],
    );

    server.script({ status: 500, body: openaiError('down') }, { status: 500, body: openaiError('down') });
    const failed = await rawHttp(h.url, { method: 'POST', path: '/chat', body: JSON.stringify({ message: 'and now?' }) });
    assert.equal(failed.status, 502);
    assert.equal(failed.json().error.code, 'model_unavailable');

    server.script(callAgain(1));
    const budget = await rawHttp(h.url, { method: 'POST', path: '/chat', body: JSON.stringify({ message: 'weather?' }) });
    assert.equal(budget.status, 422);
    assert.equal(budget.json().error.code, 'run_budget_exceeded');
    assert.equal(budget.json().error.details.limit, 'steps');
  });
});
