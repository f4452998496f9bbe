// The Anthropic messages provider against a local server speaking that API on a real socket,
// through the official `@anthropic-ai/sdk`: streamed text, tool_use blocks with their JSON
// input in pieces, system turns and tool results as the API wants them, usage, and the error
// paths (429 with retry-after, 529 overloaded, an error event mid-stream, a stream cut
// mid-answer, malformed tool input, cancel).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.js';
import type { ChatTurn } from '../../../src/llm/language-model.js';
import { AnthropicMessagesModel, type AnthropicMessagesOptions } from '../../../src/llm/providers/anthropic-messages.js';
import { anthropicError, startAnthropicServer, type AnthropicTurn } from '../fake-anthropic-server.js';
import type { ScriptedServer } from '../scripted-server.js';
import { collect, failureOf, FAST_RETRY, hello } from './provider-checks.js';

const KEY = 'sk-ant-test-secret-0123456789';

function model(server: ScriptedServer<AnthropicTurn>, options: Partial<AnthropicMessagesOptions> = {}): AnthropicMessagesModel {
  return new AnthropicMessagesModel({
    model: 'claude-test',
    apiKey: KEY,
    baseUrl: server.baseUrl,
    retry: FAST_RETRY,
    ...options,
  });
}

describe('anthropic provider', () => {
  test('streams the text, then the end with the stop reason as finish reason and usage', async (t) => {
    const server = await startAnthropicServer(t);
    server.script({ text: ['Hel', 'lo'], usage: { input_tokens: 30, output_tokens: 4 } });
    const events = await collect(model(server, { maxOutputTokens: 256 }).step({ turns: hello }));
    assert.deepEqual(events, [
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo' },
      { type: 'end', finishReason: 'stop', usage: { input_tokens: 30, output_tokens: 4, total_tokens: 34 } },
    ]);
    const request = server.requests[0]!;
    assert.equal(request.path, '/v1/messages');
    // The SDK sends the key as x-api-key or as a bearer token, depending on its version.
    assert.ok(request.headers['x-api-key'] === KEY || request.headers.authorization === `Bearer ${KEY}`, 'the key is sent');
    assert.ok(request.headers['anthropic-version']);
    assert.equal(request.body.model, 'claude-test');
    assert.equal(request.body.max_tokens, 256);
    assert.equal(request.body.stream, true);
    assert.equal(request.body.system, 'Be brief.');
    assert.deepEqual(request.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }]);
  });

  test('tool_use blocks come back as whole calls with their input; tools go out with input_schema', async (t) => {
    const server = await startAnthropicServer(t);
    server.script({
      text: ['Let me look.'],
      toolUses: [
        { id: 'toolu_1', name: 'get_weather', input: '{"city":"Porto"}' },
        { id: 'toolu_2', name: 'get_weather', input: '{"city": Po' },
      ],
    });
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const events = await collect(
      model(server).step({ turns: hello, tools: [{ name: 'get_weather', description: 'Weather', parameters }] }),
    );
    assert.deepEqual(events.slice(0, 2), [
      { type: 'text', delta: 'Let me look.' },
      { type: 'tool_call', call: { call_id: 'toolu_1', name: 'get_weather', arguments: { city: 'Porto' } } },
    ]);
    const bad = events[2]!;
    assert.equal(bad.type, 'tool_call');
    assert.deepEqual(bad.type === 'tool_call' && bad.call.arguments, {});
    assert.match((bad.type === 'tool_call' && bad.call.argumentsError) || '', /not valid JSON/);
    assert.deepEqual(events[3], {
      type: 'end',
      finishReason: 'tool_calls',
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    });
    assert.deepEqual(server.requests[0]!.body.tools, [{ name: 'get_weather', description: 'Weather', input_schema: parameters }]);
  });

  test('tool turns go back as tool_use blocks and one user turn of tool_result blocks', async (t) => {
    const server = await startAnthropicServer(t);
    server.script({ text: ['Both sunny.'] });
    const turns: ChatTurn[] = [
      { role: 'user', content: 'Weather in Porto and Faro?' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [
          { call_id: 'toolu_1', name: 'get_weather', arguments: { city: 'Porto' } },
          { call_id: 'toolu_2', name: 'get_weather', arguments: { city: 'Faro' } },
        ],
      },
      { role: 'tool', callId: 'toolu_1', content: '"sunny"' },
      { role: 'tool', callId: 'toolu_2', content: 'no station', isError: true },
    ];
    await collect(model(server).step({ turns }));
    assert.deepEqual(server.requests[0]!.body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Porto and Faro?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Porto' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Faro' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '"sunny"', is_error: false },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'no station', is_error: true },
        ],
      },
    ]);
  });

  test('429 (retry-after) and 529 (overloaded) are retried', async (t) => {
    const server = await startAnthropicServer(t);
    server.script(
      { status: 429, headers: { 'retry-after': '0' }, body: anthropicError('slow down', 'rate_limit_error') },
      { status: 529, body: anthropicError('Overloaded', 'overloaded_error') },
      { text: ['fine'] },
    );
    assert.equal(await model(server).complete(hello), 'fine');
    assert.equal(server.requests.length, 3);
  });

  test('5xx past the attempts fails as model_unavailable; 400 is not retried', async (t) => {
    const server = await startAnthropicServer(t);
    server.script(
      { status: 500, body: anthropicError('x') },
      { status: 500, body: anthropicError('x') },
      { status: 500, body: anthropicError('x') },
    );
    assert.equal((await failureOf(model(server).complete(hello))).code, 'model_unavailable');
    server.script({ status: 400, body: anthropicError('max_tokens too large', 'invalid_request_error') });
    const error = await failureOf(model(server).complete(hello));
    assert.equal(error.code, 'model_request_rejected');
    assert.match(error.message, /max_tokens too large/);
    assert.equal(server.requests.length, 3 + 1);
  });

  test('an error event mid-stream and a cut stream fail the step', async (t) => {
    const server = await startAnthropicServer(t);
    server.script({ text: ['par'], errorEvent: 'Overloaded' });
    assert.equal((await failureOf(model(server).complete(hello))).code, 'model_unavailable');
    server.script({ text: ['one ', 'two'], cutAfter: 1 });
    assert.equal((await failureOf(model(server).complete(hello))).code, 'model_stream_interrupted');
    assert.equal(server.requests.length, 1 + 1);
  });

  test('cancel during a step aborts the request with the caller reason', async (t) => {
    const server = await startAnthropicServer(t);
    server.script({ hang: true, before: ['hmm'] });
    const controller = new AbortController();
    const reason = new Error('canceled by the test');
    const steps = model(server).step({ turns: hello, signal: controller.signal });
    assert.deepEqual((await steps.next()).value, { type: 'text', delta: 'hmm' });
    controller.abort(reason);
    await assert.rejects(steps.next(), (error) => error === reason);
    await server.untilClosedEarly(1);
  });

  test('a silent server fails the step at the first-byte deadline; a stalled answer at the idle one', async (t) => {
    const server = await startAnthropicServer(t);
    server.script({ hang: true, silent: true });
    const silent = await failureOf(model(server, { firstByteTimeoutMs: 1_000, retry: { maxAttempts: 1 } }).complete(hello));
    assert.equal(silent.code, 'model_timeout');
    assert.match(silent.message, /within 1000 ms \(first-byte timeout\)/);
    server.script({ hang: true, before: ['hmm'] });
    const stalled = await failureOf(model(server, { idleTimeoutMs: 500 }).complete(hello));
    assert.equal(stalled.code, 'model_timeout');
    assert.match(stalled.message, /nothing for 500 ms \(idle timeout\)/);
  });

  test('no key is a configuration error naming the variable', () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      assert.throws(
        () => new AnthropicMessagesModel({ model: 'claude-test' }),
        (error: unknown) => {
          return error instanceof ConfigError && /ANTHROPIC_API_KEY/.test(error.message);
        },
      );
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});
