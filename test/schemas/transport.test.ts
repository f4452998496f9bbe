// Health payload, request/response envelopes, SSE frames, error bodies and stream events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clone, errorsFor, isValid } from '../support/schema-helpers.js';

const metricNames = [
  'requests_started',
  'requests_succeeded',
  'requests_failed',
  'retries',
  'streams_started',
  'streams_completed',
  'streams_failed',
  'active_requests',
  'active_streams',
  'bytes_sent',
  'bytes_received',
  'total_latency_ms',
] as const;
const capabilityNames = ['networked', 'streaming', 'tls', 'bidirectional', 'persistent_connections'] as const;

const health = {
  status: 'ready',
  ready: true,
  transport: 'grpc',
  url: 'grpc://127.0.0.1:50051',
  capabilities: { networked: true, streaming: true, tls: true, bidirectional: false, persistent_connections: true },
  metrics: Object.fromEntries(metricNames.map((m) => [m, m === 'total_latency_ms' ? 1.25 : 0])),
};

test('health payload of a running transport is valid', () => {
  assert.deepEqual(errorsFor('health', health), []);
});

test('health payload of a stopped transport is valid', () => {
  assert.ok(isValid('health', { ...clone(health), status: 'stopped', ready: false }));
});

// The spec's capability table, one row per transport.
const capabilityRows: Array<[string, boolean[]]> = [
  ['http', [true, false, true, false, true]],
  ['sse', [true, true, true, false, true]],
  ['websocket', [true, true, true, true, true]],
  ['grpc', [true, true, true, false, true]],
  ['runtime', [false, true, false, false, false]],
];
for (const [transport, flags] of capabilityRows) {
  test(`health payload for ${transport} with its capability row`, () => {
    const capabilities = Object.fromEntries(capabilityNames.map((c, i) => [c, flags[i]]));
    assert.ok(isValid('health', { ...clone(health), transport, capabilities }));
  });
}

for (const metric of metricNames) {
  test(`health rejected without metric ${metric}`, () => {
    const value = clone(health) as any;
    delete value.metrics[metric];
    assert.equal(isValid('health', value), false);
  });
  test(`health rejected with negative ${metric}`, () => {
    const value = clone(health) as any;
    value.metrics[metric] = -1;
    assert.equal(isValid('health', value), false);
  });
}

for (const metric of metricNames.filter((m) => m !== 'total_latency_ms')) {
  test(`health rejected with fractional ${metric}`, () => {
    const value = clone(health) as any;
    value.metrics[metric] = 1.5;
    assert.equal(isValid('health', value), false);
  });
}

for (const capability of capabilityNames) {
  test(`health rejected without capability ${capability}`, () => {
    const value = clone(health) as any;
    delete value.capabilities[capability];
    assert.equal(isValid('health', value), false);
  });
}

const rejectedHealth: Array<[string, (h: any) => void]> = [
  ['unknown status', (h) => (h.status = 'starting')],
  ['ready not a boolean', (h) => (h.ready = 'true')],
  ['unknown transport', (h) => (h.transport = 'tcp')],
  ['missing url', (h) => delete h.url],
  ['missing metrics', (h) => delete h.metrics],
];
for (const [label, mutate] of rejectedHealth) {
  test(`health rejected: ${label}`, () => {
    const value = clone(health) as any;
    mutate(value);
    assert.equal(isValid('health', value), false);
  });
}

const request = {
  id: 'req-1',
  method: 'POST',
  path: '/tasks/',
  data: { id: 't1' },
  params: {},
  idempotency_key: 't1',
};

test('request envelope: full and minimal forms are valid', () => {
  assert.deepEqual(errorsFor('request-envelope', request), []);
  assert.ok(isValid('request-envelope', { id: 'r', method: 'GET', path: '/healthz' }));
  assert.ok(isValid('request-envelope', { ...request, idempotency_key: null, extra: 1 }));
});

const rejectedRequests: Array<[string, (r: any) => void]> = [
  ['missing method', (r) => delete r.method],
  ['missing path', (r) => delete r.path],
  ['missing id', (r) => delete r.id],
  ['numeric id', (r) => (r.id = 1)],
  ['path without leading slash', (r) => (r.path = 'tasks/')],
  ['lower-case method', (r) => (r.method = 'post')],
  ['params as a list', (r) => (r.params = [])],
  ['numeric idempotency key', (r) => (r.idempotency_key = 5)],
];
for (const [label, mutate] of rejectedRequests) {
  test(`request envelope rejected: ${label}`, () => {
    const value = clone(request) as any;
    mutate(value);
    assert.equal(isValid('request-envelope', value), false);
  });
}

const wireError = { code: 'not_found', message: 'no such endpoint', status: 404, request_id: 'req-1' };
const success = { id: 'req-1', ok: true, result: { any: 'thing' }, error: null, final: true };
const failure = { id: 'req-1', ok: false, result: null, error: wireError, final: true };

test('response envelope: success and failure are valid', () => {
  assert.deepEqual(errorsFor('response-envelope', success), []);
  assert.deepEqual(errorsFor('response-envelope', failure), []);
  assert.ok(isValid('response-envelope', { id: null, ok: true, result: null, final: false }));
});

const rejectedResponses: Array<[string, unknown]> = [
  ['missing ok', { id: 'r', result: 1, final: true }],
  ['missing final', { id: 'r', ok: true, result: 1 }],
  ['missing id', { ok: true, result: 1, final: true }],
  ['ok false without error', { id: 'r', ok: false, result: null, final: true }],
  ['ok false with null error', { id: 'r', ok: false, result: null, error: null, final: true }],
  ['ok true with an error', { ...success, error: wireError }],
  ['error without code', { ...failure, error: { message: 'x', status: 500 } }],
  ['error with a non-integer status', { ...failure, error: { ...wireError, status: '404' } }],
  ['ok as a string', { ...success, ok: 'true' }],
];
for (const [label, value] of rejectedResponses) {
  test(`response envelope rejected: ${label}`, () => {
    assert.equal(isValid('response-envelope', value), false);
  });
}

test('SSE frame needs jsonrpc "2.0" on top of the envelope', () => {
  assert.ok(isValid('sse-frame', { jsonrpc: '2.0', ...success }));
  assert.ok(isValid('sse-frame', { jsonrpc: '2.0', ...failure }));
  assert.equal(isValid('sse-frame', success), false);
  assert.equal(isValid('sse-frame', { jsonrpc: '1.0', ...success }), false);
  assert.equal(isValid('sse-frame', { jsonrpc: '2.0', ...success, final: undefined }), false);
});

test('error body wraps one wire error', () => {
  assert.ok(isValid('error-body', { error: wireError }));
  assert.ok(isValid('error-body', { error: { code: 'unauthenticated', message: 'missing credentials', status: 401 } }));
  assert.ok(isValid('error-body', { error: { code: 'my_app_code', message: 'custom', status: 422, details: [1] } }));
  assert.equal(isValid('error-body', wireError), false);
  assert.equal(isValid('error-body', { error: { ...wireError, code: 'Not Found' } }), false);
  assert.equal(isValid('error-body', { error: { ...wireError, status: 42 } }), false);
});

const task = { id: 't1', state: 'working', messages: [], artifacts: [], metadata: {}, created_at: '2025-01-01T00:00:00Z' };
const base = { task_id: 't1', timestamp: '2025-01-01T00:00:01Z' };
const events: Array<[string, Record<string, unknown>]> = [
  ['task_status', { state: 'working', task }],
  [
    'task_message',
    { message: { id: 'm', role: 'agent', parts: [{ type: 'text', content: 'hi' }], timestamp: '2025-01-01T00:00:01Z' } },
  ],
  [
    'task_artifact',
    { artifact: { id: 'a', parts: [], metadata: {}, kind: 'result', name: null, uri: null, media_type: null, action_id: null } },
  ],
  ['task_llm_stream', { delta: 'Hel', final: false }],
  ['task_tool_call', { tool_call: { call_id: 'c1', name: 'search', arguments: { q: 'x' } } }],
  ['task_tool_result', { tool_result: { call_id: 'c1', result: ['r'], error: null } }],
  ['task_completed', { state: 'completed', task: { ...task, state: 'completed' } }],
];

for (const [type, fields] of events) {
  test(`stream event ${type} is valid`, () => {
    assert.deepEqual(errorsFor('stream-event', { type, ...base, ...fields }), []);
    assert.ok(isValid('stream-event-type', type));
  });
  test(`stream event ${type} needs task_id and timestamp`, () => {
    assert.equal(isValid('stream-event', { type, timestamp: base.timestamp, ...fields }), false);
    assert.equal(isValid('stream-event', { type, task_id: 't1', ...fields }), false);
  });
  test(`stream event ${type} needs its own fields`, () => {
    assert.equal(isValid('stream-event', { type, ...base }), false);
  });
}

test('stream event rejects an unknown type', () => {
  assert.equal(isValid('stream-event', { type: 'task_progress', ...base, state: 'working', task }), false);
});

test('LLM sub-event final flag must be boolean and does not need the task', () => {
  assert.ok(isValid('stream-event', { type: 'task_llm_stream', ...base, delta: '', final: true }));
  assert.equal(isValid('stream-event', { type: 'task_llm_stream', ...base, delta: 'x', final: 'yes' }), false);
});

test('the final chunk of a model step carries its step, finish reason and usage', () => {
  const usage = { input_tokens: 12, output_tokens: 3, total_tokens: 15 };
  const final = {
    type: 'task_llm_stream',
    ...base,
    delta: '',
    final: true,
    model: 'm',
    step: 1,
    finish_reason: 'tool_calls',
    usage,
  };
  assert.deepEqual(errorsFor('stream-event', final), []);
  assert.ok(isValid('stream-event', { ...final, usage: null, finish_reason: null, step: null }));
  assert.equal(isValid('stream-event', { ...final, step: 0 }), false);
  assert.equal(isValid('stream-event', { ...final, usage: { input_tokens: 12 } }), false);
  assert.equal(isValid('stream-event', { ...final, usage: { ...usage, output_tokens: -1 } }), false);
});

test('a model run summary names the model, its steps, tool calls and usage', () => {
  const usage = { input_tokens: 12, output_tokens: 3, total_tokens: 15 };
  assert.deepEqual(errorsFor('llm-run', { model: 'm', steps: 2, tool_calls: 1, usage, compactions: 0 }), []);
  assert.equal(isValid('llm-run', { model: 'm', steps: 2, usage }), false);
  assert.equal(isValid('llm-run', { model: 'm', steps: 2, tool_calls: 1.5, usage }), false);
});

test('tool result serializes as call_id, result, error', () => {
  assert.ok(isValid('tool-result', { call_id: 'c', result: null, error: 'boom' }));
  assert.equal(isValid('tool-result', { result: 1, error: null }), false);
  assert.equal(isValid('tool-result', { call_id: 'c', result: 1, error: { message: 'x' } }), false);
});

test('a stream envelope carrying an event is a valid SSE frame', () => {
  const frame = {
    jsonrpc: '2.0',
    id: 'req-9',
    ok: true,
    result: { type: 'task_llm_stream', ...base, delta: 'x', final: false },
    final: false,
  };
  assert.ok(isValid('sse-frame', frame));
  assert.ok(isValid('stream-event', frame.result));
});
