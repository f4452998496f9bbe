// Task, Message, Part and Artifact: one case per row of the spec's resource tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clone, errorsFor, isValid } from '../support/schema-helpers.js';

/** A task shaped exactly like the spec's Task, Message, Part and Artifact tables. */
const specTask = {
  id: 'task-1',
  state: 'working',
  messages: [
    {
      id: 'msg-1',
      role: 'user',
      parts: [{ type: 'text', content: 'hello' }],
      timestamp: '2025-01-02T03:04:05Z',
    },
  ],
  artifacts: [
    {
      id: 'art-1',
      parts: [{ type: 'text', content: 'result text' }],
      metadata: { source: 'engine' },
      timestamp: '2025-01-02T03:04:06.123Z',
      kind: 'result',
      name: 'out.txt',
      uri: 'https://example.com/out.txt',
      media_type: 'text/plain',
      action_id: 'act-9',
    },
  ],
  metadata: {
    state_history: [
      { state: 'submitted', timestamp: '2025-01-02T03:04:05Z' },
      { state: 'working', timestamp: '2025-01-02T03:04:05.5Z', reason: 'picked up' },
    ],
    a2a_inbound: true,
    framework: { anything: [1, 2, 3] },
  },
  created_at: '2025-01-02T03:04:05Z',
};

type Mutation = (task: any) => void;

test('the spec-shaped task is valid', () => {
  assert.deepEqual(errorsFor('task', specTask), []);
});

test('a task with only an id, or only id and messages, is valid', () => {
  assert.ok(isValid('task', { id: 't' }));
  assert.ok(isValid('task', { id: 't', messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] }));
});

for (const state of ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled']) {
  test(`task state ${state} is accepted`, () => {
    assert.ok(isValid('task', { ...clone(specTask), state }));
    assert.ok(isValid('task-state', state));
  });
}

for (const role of ['user', 'agent', 'assistant', 'system']) {
  test(`message role ${role} is accepted`, () => {
    const task = clone(specTask);
    task.messages[0]!.role = role;
    assert.ok(isValid('task', task));
  });
}

const rejected: Array<[string, Mutation]> = [
  ['missing id', (t) => delete t.id],
  ['numeric id', (t) => (t.id = 42)],
  ['empty id', (t) => (t.id = '')],
  ['unknown state "running"', (t) => (t.state = 'running')],
  ['state in upper case', (t) => (t.state = 'COMPLETED')],
  ['messages not a list', (t) => (t.messages = { 0: t.messages[0] })],
  ['artifacts not a list', (t) => (t.artifacts = 'none')],
  ['metadata not an object', (t) => (t.metadata = [])],
  ['created_at "yesterday"', (t) => (t.created_at = 'yesterday')],
  ['created_at out of range', (t) => (t.created_at = '2024-13-40T00:00:00Z')],
  ['created_at without time zone', (t) => (t.created_at = '2024-01-01T00:00:00')],
  ['created_at as a number', (t) => (t.created_at = 1735787045)],
  ['state_history not a list', (t) => (t.metadata.state_history = 'submitted')],
  ['state_history entry with unknown state', (t) => (t.metadata.state_history[0].state = 'running')],
  ['state_history entry without timestamp', (t) => delete t.metadata.state_history[0].timestamp],
  ['message with unknown role', (t) => (t.messages[0].role = 'bot')],
  ['message without parts', (t) => delete t.messages[0].parts],
  ['message without role', (t) => delete t.messages[0].role],
  ['message with a bad timestamp', (t) => (t.messages[0].timestamp = 'now')],
  ['text part with non-string content', (t) => (t.messages[0].parts[0].content = { text: 'hello' })],
  ['text part with numeric content', (t) => (t.messages[0].parts[0].content = 7)],
  ['part without type', (t) => delete t.messages[0].parts[0].type],
  ['part without content', (t) => delete t.messages[0].parts[0].content],
  ['part type not a string', (t) => (t.messages[0].parts[0].type = 1)],
  ['tool_call part with string content', (t) => (t.messages[0].parts[0] = { type: 'tool_call', content: 'search()' })],
  ['tool_call part without name', (t) => (t.messages[0].parts[0] = { type: 'tool_call', content: { call_id: 'c1' } })],
  [
    'tool_call part with string arguments',
    (t) => (t.messages[0].parts[0] = { type: 'tool_call', content: { call_id: 'c1', name: 'x', arguments: '{}' } }),
  ],
  ['flow_state part with list content', (t) => (t.messages[0].parts[0] = { type: 'flow_state', content: [] })],
  ['flow_state part with numeric step', (t) => (t.messages[0].parts[0] = { type: 'flow_state', content: { step: 3 } })],
  ['artifact with a number name', (t) => (t.artifacts[0].name = 5)],
  ['artifact without id', (t) => delete t.artifacts[0].id],
  ['artifact with a bad timestamp', (t) => (t.artifacts[0].timestamp = '2024-02-30')],
];

for (const [label, mutate] of rejected) {
  test(`task rejected: ${label}`, () => {
    const task = clone(specTask) as any;
    mutate(task);
    assert.equal(isValid('task', task), false);
  });
}

const acceptedParts: Array<[string, unknown]> = [
  ['text', { type: 'text', content: '' }],
  ['tool_call', { type: 'tool_call', content: { call_id: 'c1', name: 'search', arguments: { q: 'x' } } }],
  ['tool_call without arguments', { type: 'tool_call', content: { call_id: 'c1', name: 'search' } }],
  ['flow_state, empty', { type: 'flow_state', content: {} }],
  ['flow_state, full', { type: 'flow_state', content: { flow_id: null, step: 's1', status: 'running', data: { k: 1 } } }],
  ['unknown type with object content', { type: 'data', content: { a: 1 } }],
  ['unknown type with null content', { type: 'image', content: null }],
  ['tool_result type', { type: 'tool_result', content: { call_id: 'c1', result: 3, error: null } }],
  ['extra keys', { type: 'text', content: 'x', metadata: { lang: 'en' } }],
];

for (const [label, part] of acceptedParts) {
  test(`part accepted: ${label}`, () => {
    assert.deepEqual(errorsFor('part', part), []);
  });
}

test('a tool_result part holds a tool result', () => {
  assert.equal(isValid('part', { type: 'tool_result', content: { result: 3, error: null } }), false);
  assert.equal(isValid('part', { type: 'tool_result', content: { call_id: 'c1', error: { message: 'x' } } }), false);
  assert.equal(isValid('part', { type: 'tool_result', content: 'done' }), false);
});

test('artifact with every optional descriptor null is accepted', () => {
  const artifact = { ...clone(specTask.artifacts[0]!), name: null, uri: null, media_type: null, action_id: null };
  assert.deepEqual(errorsFor('artifact', artifact), []);
});

test('artifact with only id and parts is accepted', () => {
  assert.ok(isValid('artifact', { id: 'a', parts: [] }));
});

for (const field of ['name', 'uri', 'media_type', 'action_id'] as const) {
  test(`artifact ${field} must be a string or null`, () => {
    assert.equal(isValid('artifact', { ...clone(specTask.artifacts[0]!), [field]: 5 }), false);
  });
}

test('forward compatibility: unknown top-level keys are kept valid', () => {
  assert.ok(isValid('task', { ...clone(specTask), priority: 'high' }));
  assert.ok(isValid('message', { ...clone(specTask.messages[0]!), reply_to: 'msg-0' }));
  assert.ok(isValid('artifact', { ...clone(specTask.artifacts[0]!), size: 10 }));
});
