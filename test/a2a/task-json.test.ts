// The A2A Task as parley answers it (taskToA2aJson) and the events of its streams
// (StreamResponses) are written straight as ProtoJSON, not built as protobuf-es messages first.
// These rows hold them to what protobuf-es writes for the same values built the long way
// (create, then toJson), part kinds, roles, metadata, history lengths, states and time forms
// included, so the shortcut cannot drift from the wire format.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { create, toJson, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { StreamResponseSchema, TaskSchema, TaskState } from '../../generated/proto/lf/a2a/v1/a2a_pb.js';
import type { Message, StreamEvent, Task } from '../../generated/types/index.js';
import { artifactToA2a } from '../../src/a2a/model/artifacts.js';
import { messageToA2a } from '../../src/a2a/model/messages.js';
import { artifactResponses, StreamResponses } from '../../src/a2a/model/stream-responses.js';
import { stateToA2a } from '../../src/a2a/model/task-states.js';
import { taskToA2aJson, type TaskView } from '../../src/a2a/model/tasks.js';
import { statusTime } from '../../src/stores/task-entries.js';

/** The same task through protobuf-es messages and toJson. */
function longWay(task: Task, view: TaskView): JsonObject {
  const state = stateToA2a(task.state ?? 'submitted');
  const messages = task.messages ?? [];
  const limit = view.historyLength;
  const shown = limit === undefined ? messages : limit <= 0 ? [] : messages.slice(-limit);
  const reply =
    state === TaskState.SUBMITTED || state === TaskState.WORKING ? undefined : messages.findLast((m) => m.role !== 'user');
  const json = toJson(
    TaskSchema,
    create(TaskSchema, {
      id: task.id,
      contextId: view.contextId,
      status: {
        state,
        timestamp: timestampFromMs(statusTime(task)),
        message: reply ? messageToA2a(reply, task.id, view.contextId) : undefined,
      },
      history: shown.map((message) => messageToA2a(message, task.id, view.contextId)),
      artifacts: view.includeArtifacts ? (task.artifacts ?? []).map(artifactToA2a) : [],
      metadata: (task.metadata ?? {}) as JsonObject,
    }),
  ) as JsonObject;
  if (view.includeArtifacts && json.artifacts === undefined) json.artifacts = [];
  return json;
}

const user: Message = { id: 'm1', role: 'user', parts: [{ type: 'text', content: 'hi' }], timestamp: '2026-11-28T01:00:00Z' };
const reply: Message = {
  id: 'm2',
  role: 'agent',
  parts: [{ type: 'text', content: 'hi back' }],
  timestamp: '2026-11-28T01:00:01Z',
};

const inbound = { a2a_inbound: { context_id: 'c1', tenant: '', message_id: 'm1' } };
const base = (over: Partial<Task>, statusAt = '2026-11-28T01:00:01.250Z'): Task =>
  ({
    id: 't1',
    state: 'completed',
    messages: [user, reply],
    metadata: { ...inbound, state_history: [{ state: 'completed', timestamp: statusAt }] },
    ...over,
  }) as Task;

const rows: [string, Task, TaskView][] = [
  [
    'a completed echo with its artifact',
    base({
      artifacts: [
        {
          id: 'a1',
          kind: 'result',
          name: 'result',
          parts: [{ type: 'text', content: 'hi back' }],
          timestamp: '2026-11-28T01:00:01Z',
          metadata: {},
        } as never,
      ],
    }),
    { contextId: 'c1', includeArtifacts: true },
  ],
  ['no artifacts, asked for: an empty list', base({}), { contextId: 'c1', includeArtifacts: true }],
  ['artifacts not asked for', base({}), { contextId: 'c1', includeArtifacts: false }],
  ['historyLength 0 and 1', base({}), { contextId: 'c1', historyLength: 1, includeArtifacts: false }],
  ['historyLength 0', base({}), { contextId: 'c1', historyLength: 0, includeArtifacts: true }],
  ['a working task: no status message', base({ state: 'working' }), { contextId: 'c1', includeArtifacts: true }],
  ['a status time on a whole second', base({}, '2026-11-28T01:00:01Z'), { contextId: 'c1', includeArtifacts: true }],
  [
    'no metadata, no messages, empty context',
    base({ metadata: undefined, messages: [] }),
    { contextId: '', includeArtifacts: true },
  ],
  [
    'assistant and system roles, message metadata',
    base({
      messages: [
        { ...user, role: 'system', metadata: { k: 1 } } as never,
        { ...reply, role: 'assistant', metadata: { trace: { deep: [1, 'two'] } } } as never,
      ],
    }),
    { contextId: 'c1', includeArtifacts: true },
  ],
  [
    'text parts with metadata, media type and file name',
    base({
      messages: [
        {
          ...reply,
          parts: [{ type: 'text', content: '', metadata: { x: true }, media_type: 'text/markdown', filename: 'a.md' } as never],
        },
      ],
    }),
    { contextId: 'c1', includeArtifacts: true },
  ],
  [
    'data, file and application parts',
    base({
      messages: [
        {
          ...reply,
          parts: [
            { type: 'data', content: { a: [1, null, 'x'] } },
            { type: 'file', content: { bytes: 'aGk=', media_type: 'text/plain', name: 'hi.txt' } },
            { type: 'file', content: { uri: 'https://example.com/x' } },
            { type: 'tool_call', content: { name: 'f', arguments: {} } },
          ] as never,
        },
      ],
      artifacts: [
        {
          id: 'a2',
          kind: 'file',
          name: null,
          uri: 'https://example.com/y',
          media_type: 'image/png',
          parts: [{ type: 'data', content: 7 }],
          timestamp: '2026-11-28T01:00:01Z',
        } as never,
      ],
    }),
    { contextId: 'c1', includeArtifacts: true },
  ],
  ['a status time with an offset', base({}, '2026-11-28T02:00:01.5+01:00'), { contextId: 'c1', includeArtifacts: true }],
  ['a status time with microseconds', base({}, '2026-11-28T01:00:01.123456Z'), { contextId: 'c1', includeArtifacts: true }],
  ['no status time at all', base({ metadata: {} }), { contextId: 'c1', includeArtifacts: true }],
  ['failed and canceled states', base({ state: 'failed' }), { contextId: 'c1', includeArtifacts: true }],
  ['input-required', base({ state: 'input-required' }), { contextId: 'c1', includeArtifacts: false }],
];

describe('taskToA2aJson: the same ProtoJSON protobuf-es writes', () => {
  for (const [name, task, view] of rows) {
    test(name, () => {
      assert.deepEqual(taskToA2aJson(task, view), longWay(task, view));
    });
  }
});

/** A StreamResponse through protobuf-es messages and toJson. */
const streamLongWay = (payload: unknown) =>
  toJson(StreamResponseSchema, create(StreamResponseSchema, { payload } as never)) as JsonObject;
const stamp = (iso: string) => timestampFromMs(Date.parse(iso));

describe('StreamResponses: the same ProtoJSON protobuf-es writes', () => {
  const artifact = {
    id: 'a1',
    kind: 'result',
    name: 'result',
    parts: [
      { type: 'text', content: 'x' },
      { type: 'data', content: { n: 1 } },
    ],
    timestamp: '2026-11-28T01:00:01Z',
    metadata: { k: 'v' },
  } as never;
  const eventRows: [string, StreamEvent[], (taskId: string, contextId: string) => unknown][] = [
    [
      'a working status',
      [{ type: 'task_status', task_id: 't1', state: 'working', timestamp: '2026-11-28T01:00:00.007Z' } as never],
      (taskId, contextId) => ({
        case: 'statusUpdate',
        value: { taskId, contextId, status: { state: TaskState.WORKING, timestamp: stamp('2026-11-28T01:00:00.007Z') } },
      }),
    ],
    [
      'an agent message, at a whole second',
      [{ type: 'task_message', task_id: 't1', message: reply, timestamp: '2026-11-28T01:00:01.000Z' } as never],
      (taskId, contextId) => ({
        case: 'statusUpdate',
        value: {
          taskId,
          contextId,
          status: {
            state: TaskState.WORKING,
            timestamp: stamp('2026-11-28T01:00:01Z'),
            message: messageToA2a(reply, taskId, contextId),
          },
        },
      }),
    ],
    [
      'an artifact',
      [{ type: 'task_artifact', task_id: 't1', artifact, timestamp: '2026-11-28T01:00:01Z' } as never],
      (taskId, contextId) => ({
        case: 'artifactUpdate',
        value: { taskId, contextId, artifact: artifactToA2a(artifact), append: false, lastChunk: true },
      }),
    ],
    [
      'model text: a first chunk, then an appended last one',
      [
        { type: 'task_llm_stream', task_id: 't1', delta: 'he', message_id: 'm9', timestamp: '2026-11-28T01:00:01Z' } as never,
        {
          type: 'task_llm_stream',
          task_id: 't1',
          delta: 'llo',
          message_id: 'm9',
          final: true,
          timestamp: '2026-11-28T01:00:01Z',
        } as never,
      ],
      (taskId, contextId) => ({
        case: 'artifactUpdate',
        value: {
          taskId,
          contextId,
          artifact: { artifactId: 'model-text-m9', name: 'model text', parts: [{ content: { case: 'text', value: 'llo' } }] },
          append: true,
          lastChunk: true,
        },
      }),
    ],
  ];
  for (const [name, events, expected] of eventRows) {
    test(name, () => {
      const responses = new StreamResponses('t1', 'c1');
      // The first task_status of a stream is the task itself; these rows read what follows it.
      responses.of({ type: 'task_status', task_id: 't1', state: 'submitted', task: base({}), timestamp: '' } as never);
      const written = events.map((event) => responses.of(event));
      assert.deepEqual(written.at(-1), streamLongWay(expected('t1', 'c1')));
    });
  }

  test("a finished task's artifacts for a late subscriber", () => {
    const task = base({ artifacts: [artifact] });
    assert.deepEqual(artifactResponses(task, 'c1'), [
      streamLongWay({
        case: 'artifactUpdate',
        value: { taskId: 't1', contextId: 'c1', artifact: artifactToA2a(artifact), append: false, lastChunk: true },
      }),
    ]);
  });
});
