// The OpenAI chat completions provider against a local server speaking that API on a real
// socket, through the official `openai` SDK: streamed text, tool calls assembled from their
// pieces, the conversation and tools as the API wants them, usage, and the error paths (429
// with retry-after, 5xx, refused requests, a bad key, a stream cut mid-answer, malformed tool
// arguments, cancel and the step deadline).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.js';
import { estimateTokens, type ChatTurn, type ModelRequest } from '../../../src/llm/language-model.js';
import { OpenAIChatModel, type OpenAIChatOptions } from '../../../src/llm/providers/openai-chat.js';
import { openaiError, startOpenAIServer, type OpenAITurn } from '../fake-openai-server.js';
import type { ScriptedServer } from '../scripted-server.js';
import { collect, failureOf, FAST_RETRY, hello } from './provider-checks.js';

const KEY = 'sk-test-secret-key-0123456789';

function model(server: ScriptedServer<OpenAITurn>, options: Partial<OpenAIChatOptions> = {}): OpenAIChatModel {
  return new OpenAIChatModel({
    model: 'gpt-4o-mini',
    apiKey: KEY,
    baseUrl: `${server.baseUrl}/v1`,
    retry: FAST_RETRY,
    ...options,
  });
}

describe('openai provider', () => {
  test('streams the text, then the end with the finish reason and usage', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ text: ['Hel', 'lo', '!'], usage: { prompt_tokens: 21, completion_tokens: 3 } });
    const events = await collect(model(server).step({ turns: hello }));
    assert.deepEqual(events, [
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo' },
      { type: 'text', delta: '!' },
      { type: 'end', finishReason: 'stop', usage: { input_tokens: 21, output_tokens: 3, total_tokens: 24 } },
    ]);
    const request = server.requests[0]!;
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    assert.equal(request.body.model, 'gpt-4o-mini');
    assert.equal(request.body.stream, true);
    assert.deepEqual(request.body.stream_options, { include_usage: true });
    assert.deepEqual(request.body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ]);
    assert.equal(request.body.tools, undefined);
  });

  test('the answer limit goes out as max_tokens to a server at a base URL', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ text: ['ok'] });
    await model(server, { maxOutputTokens: 64, temperature: 0.2 }).complete(hello);
    const body = server.requests.at(-1)!.body;
    assert.equal(body.max_tokens, 64);
    assert.equal(body.max_completion_tokens, undefined);
    assert.equal(body.temperature, 0.2);
  });

  test('complete() and stream() give the same text', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ text: ['a', 'b'] }, { text: ['c', 'd'] });
    assert.equal(await model(server).complete(hello), 'ab');
    const pieces: string[] = [];
    for await (const piece of model(server).stream(hello)) pieces.push(piece);
    assert.deepEqual(pieces, ['c', 'd']);
  });

  test('tool definitions go out as functions; calls come back whole, in order, after the text', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({
      text: ['Checking.'],
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' },
        { id: 'call_2', name: 'get_time', arguments: '' },
      ],
    });
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const request: ModelRequest = { turns: hello, tools: [{ name: 'get_weather', description: 'Weather now', parameters }] };
    const events = await collect(model(server).step(request));
    assert.deepEqual(events, [
      { type: 'text', delta: 'Checking.' },
      { type: 'tool_call', call: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'Lisbon' } } },
      { type: 'tool_call', call: { call_id: 'call_2', name: 'get_time', arguments: {} } },
      { type: 'end', finishReason: 'tool_calls', usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } },
    ]);
    assert.deepEqual(server.requests[0]!.body.tools, [
      { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters } },
    ]);
  });

  test('a conversation with tool turns goes out as assistant tool_calls and tool messages', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ text: ['Sunny.'] });
    const turns: ChatTurn[] = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: '', toolCalls: [{ call_id: 'call_1', name: 'get_weather', arguments: { city: 'Lisbon' } }] },
      { role: 'tool', callId: 'call_1', content: '{"sky":"clear"}' },
    ];
    await collect(model(server).step({ turns }));
    assert.deepEqual(server.requests[0]!.body.messages, [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"clear"}' },
    ]);
  });

  test('malformed tool arguments arrive as {} with the reason', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: '{"city": Lis' },
        { id: 'call_2', name: 'get_weather', arguments: '["Lisbon"]' },
      ],
    });
    const calls = (await collect(model(server).step({ turns: hello }))).filter((event) => event.type === 'tool_call');
    assert.equal(calls.length, 2);
    for (const event of calls) {
      assert.deepEqual(event.call.arguments, {});
      assert.match(event.call.argumentsError ?? '', /not (valid JSON|a JSON object)/);
    }
  });

  test('429 is retried; the answer after it streams as usual', async (t) => {
    const server = await startOpenAIServer(t);
    server.script(
      { status: 429, headers: { 'retry-after': '0' }, body: openaiError('slow down', 'rate_limit_error') },
      { text: ['ok'] },
    );
    assert.equal(await model(server).complete(hello), 'ok');
    assert.equal(server.requests.length, 2);
  });

  test('a retry-after beyond the wait limit fails at once with the rate limit', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ status: 429, headers: { 'retry-after': '120' }, body: openaiError('slow down', 'rate_limit_error') });
    const error = await failureOf(model(server).complete(hello));
    assert.equal(error.code, 'model_rate_limited');
    assert.equal(error.statusCode, 429);
    assert.equal(error.retryAfterMs, 120_000);
    assert.equal(error.retryable, true);
    assert.equal(server.requests.length, 1);
  });

  test('5xx is retried up to the policy, then fails as model_unavailable', async (t) => {
    const server = await startOpenAIServer(t);
    server.script(
      { status: 500, body: openaiError('boom') },
      { status: 503, body: openaiError('down') },
      { status: 502, body: {} },
    );
    const error = await failureOf(model(server).complete(hello));
    assert.equal(error.code, 'model_unavailable');
    assert.equal(error.statusCode, 502);
    assert.equal(server.requests.length, 3);
  });

  test('a refused request (400) is not retried', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ status: 400, body: openaiError('bad tools', 'invalid_request_error') });
    const error = await failureOf(model(server).complete(hello));
    assert.equal(error.code, 'model_request_rejected');
    assert.match(error.message, /bad tools/);
    assert.equal(server.requests.length, 1);
  });

  test('a rejected key is model_auth_failed and the key appears nowhere in the error', async (t) => {
    const server = await startOpenAIServer(t);
    // A server that echoes the key it refused.
    server.script({ status: 401, body: openaiError(`Incorrect API key provided: ${KEY}`, 'invalid_request_error') });
    const error = await failureOf(model(server).complete(hello));
    assert.equal(error.code, 'model_auth_failed');
    assert.match(error.message, /Incorrect API key provided: \[key\]/);
    assert.ok(!JSON.stringify({ message: error.message, stack: error.stack }).includes(KEY));
  });

  test('a stream cut mid-answer fails as model_stream_interrupted after the text so far, and is not retried', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ text: ['one ', 'two ', 'three'], cutAfter: 2 });
    const seen: string[] = [];
    const error = await failureOf(
      (async () => {
        for await (const event of model(server).step({ turns: hello })) if (event.type === 'text') seen.push(event.delta);
      })(),
    );
    assert.equal(error.code, 'model_stream_interrupted');
    assert.deepEqual(seen, ['one ', 'two ']);
    assert.equal(server.requests.length, 1);
  });

  test('cancel during a step aborts the request to the model server with the caller reason', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ hang: true, before: ['thinking'] });
    const controller = new AbortController();
    const reason = new Error('canceled by the test');
    const steps = model(server).step({ turns: hello, signal: controller.signal });
    const first = await steps.next();
    assert.deepEqual(first.value, { type: 'text', delta: 'thinking' });
    controller.abort(reason);
    await assert.rejects(steps.next(), (error) => error === reason);
    await server.untilClosedEarly(1);
  });

  test('a step past its deadline fails as model_timeout', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ hang: true });
    // Long enough for the request to reach the server on a loaded machine (the test waits it
    // out): a deadline that passed before the request left would leave nothing to drop.
    const error = await failureOf(model(server, { timeoutMs: 2_000 }).complete(hello));
    assert.equal(error.code, 'model_timeout');
    await server.untilClosedEarly(1);
  });

  test('a server that accepts the request and never answers fails the step at the first-byte deadline', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ hang: true, silent: true }, { hang: true, silent: true });
    const closed = server.closedEarly;
    const retry = { maxAttempts: 2, initialBackoff: 0.001, maxBackoff: 0.001, jitter: 0 };
    const error = await failureOf(model(server, { firstByteTimeoutMs: 1_000, retry }).complete(hello));
    assert.equal(error.code, 'model_timeout');
    assert.match(error.message, /did not begin its answer within 1000 ms \(first-byte timeout\)/);
    // Each attempt waited on its own and was given up.
    await server.untilClosedEarly(closed + 2);
  });

  test('an answer that stalls mid-stream fails the step at the idle deadline, after the text that came', async (t) => {
    const server = await startOpenAIServer(t);
    server.script({ hang: true, before: ['one ', 'two '] });
    const closed = server.closedEarly;
    const seen: string[] = [];
    const error = await failureOf(
      (async () => {
        for await (const delta of model(server, { idleTimeoutMs: 500 }).stream(hello)) seen.push(delta);
      })(),
    );
    assert.equal(error.code, 'model_timeout');
    assert.match(error.message, /stalled: nothing for 500 ms \(idle timeout\)/);
    assert.deepEqual(seen, ['one ', 'two ']);
    await server.untilClosedEarly(closed + 1);
  });

  test('the deadlines refuse what is not a positive number of milliseconds', async (t) => {
    const server = await startOpenAIServer(t);
    for (const options of [{ firstByteTimeoutMs: 0 }, { idleTimeoutMs: -1 }, { timeoutMs: Number.NaN }]) {
      assert.throws(() => model(server, options), ConfigError, JSON.stringify(options));
    }
  });

  test('no key and no base URL is a configuration error naming the variable', () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
    try {
      assert.throws(
        () => new OpenAIChatModel({ model: 'gpt-4o-mini' }),
        (error: unknown) => {
          return error instanceof ConfigError && error.field === 'apiKey' && /OPENAI_API_KEY/.test(error.message);
        },
      );
      // A local server needs no key (none is asked for here).
      assert.ok(new OpenAIChatModel({ model: 'llama3.2', baseUrl: 'http://127.0.0.1:1/v1' }));
    } finally {
      if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
      if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
    }
  });

  test('token counts use the model encoding for OpenAI models and the estimate for others', async () => {
    const text = 'internationalization is a long word; 1234567890 digits too';
    const exact = await new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: KEY }).tokenCounter();
    assert.notEqual(exact(text), estimateTokens(text));
    assert.ok(exact(text) > 0);
    const other = await new OpenAIChatModel({ model: 'llama3.2', apiKey: KEY }).tokenCounter();
    assert.equal(other(text), estimateTokens(text));
  });
});
