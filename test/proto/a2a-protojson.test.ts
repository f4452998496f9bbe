// A2A 1.0 messages generated from proto/lf/a2a/v1/a2a.proto must produce the JSON
// that A2A's JSON-RPC binding uses: camelCase names, enum names as strings, RFC 3339
// UTC timestamps, base64 bytes, and the published gRPC method paths.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, fromJson, toBinary, toJson, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate, ValueSchema } from '@bufbuild/protobuf/wkt';
import {
  A2AService,
  file_lf_a2a_v1_a2a,
  ListTasksResponseSchema,
  MessageSchema,
  Role,
  SendMessageRequestSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
} from '../../generated/proto/lf/a2a/v1/a2a_pb.js';

function buildTask() {
  return create(TaskSchema, {
    id: 'task-1',
    contextId: 'ctx-1',
    status: {
      state: TaskState.COMPLETED,
      timestamp: timestampFromDate(new Date('2025-03-04T05:06:07.250Z')),
      message: {
        messageId: 'msg-2',
        role: Role.AGENT,
        parts: [{ content: { case: 'text', value: 'done' } }],
      },
    },
    history: [
      {
        messageId: 'msg-1',
        contextId: 'ctx-1',
        taskId: 'task-1',
        role: Role.USER,
        parts: [{ content: { case: 'text', value: 'summarize this' }, mediaType: 'text/plain' }],
        referenceTaskIds: ['task-0'],
      },
    ],
    artifacts: [
      {
        artifactId: 'art-1',
        name: 'summary',
        parts: [
          { content: { case: 'data', value: fromJson(ValueSchema, { words: 3, tags: ['a'] }) } },
          { content: { case: 'raw', value: new Uint8Array([0xde, 0xad, 0xbe, 0xef]) }, filename: 'x.bin' },
        ],
      },
    ],
    metadata: { source: 'test' },
  });
}

describe('A2A 1.0 ProtoJSON', () => {
  it('uses camelCase names, enum strings, RFC 3339 Z timestamps and base64 bytes', () => {
    const json = toJson(TaskSchema, buildTask()) as JsonObject;
    assert.deepEqual(json, {
      id: 'task-1',
      contextId: 'ctx-1',
      status: {
        state: 'TASK_STATE_COMPLETED',
        message: { messageId: 'msg-2', role: 'ROLE_AGENT', parts: [{ text: 'done' }] },
        timestamp: '2025-03-04T05:06:07.250Z',
      },
      artifacts: [
        {
          artifactId: 'art-1',
          name: 'summary',
          parts: [{ data: { words: 3, tags: ['a'] } }, { raw: '3q2+7w==', filename: 'x.bin' }],
        },
      ],
      history: [
        {
          messageId: 'msg-1',
          contextId: 'ctx-1',
          taskId: 'task-1',
          role: 'ROLE_USER',
          parts: [{ text: 'summarize this', mediaType: 'text/plain' }],
          referenceTaskIds: ['task-0'],
        },
      ],
      metadata: { source: 'test' },
    });
    const timestamp = (json.status as JsonObject).timestamp as string;
    assert.match(timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('whole-second timestamps are written without fractional digits', () => {
    const task = create(TaskSchema, {
      id: 't',
      status: { state: TaskState.WORKING, timestamp: timestampFromDate(new Date('2025-01-01T00:00:00Z')) },
    });
    assert.deepEqual(toJson(TaskSchema, task), {
      id: 't',
      status: { state: 'TASK_STATE_WORKING', timestamp: '2025-01-01T00:00:00Z' },
    });
  });

  it('parses a hand-written SendMessageRequest and writes it back identically', () => {
    const request: JsonObject = {
      tenant: 'acme',
      message: {
        messageId: 'b8f0c3c2-1d5e-4c1e-9f3a-5a2e7c6d1f00',
        contextId: 'ctx-9',
        role: 'ROLE_USER',
        parts: [
          { text: 'What is the weather in Lisbon?' },
          { url: 'https://example.com/forecast.json', mediaType: 'application/json' },
        ],
        metadata: { locale: 'pt-PT' },
        extensions: ['https://example.com/ext/geo/v1'],
      },
      configuration: {
        acceptedOutputModes: ['text/plain', 'application/json'],
        historyLength: 0,
        returnImmediately: true,
      },
    };
    const message = fromJson(SendMessageRequestSchema, request);
    assert.equal(message.message?.role, Role.USER);
    assert.equal(message.configuration?.historyLength, 0);
    assert.equal(message.message?.parts[1]?.content.case, 'url');
    // historyLength is proto3 `optional`, so an explicit 0 survives.
    assert.deepEqual(
      toJson(SendMessageRequestSchema, fromBinary(SendMessageRequestSchema, toBinary(SendMessageRequestSchema, message))),
      request,
    );
  });

  it('accepts enum numbers and proto field names on input, as ProtoJSON requires', () => {
    const message = fromJson(MessageSchema, { message_id: 'm', role: 1, parts: [{ text: 'x' }] });
    assert.equal(message.messageId, 'm');
    assert.equal(message.role, Role.USER);
    assert.deepEqual(toJson(MessageSchema, message), { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] });
  });

  it('rejects unknown enum names and a second member of a oneof', () => {
    assert.throws(() => fromJson(MessageSchema, { messageId: 'm', role: 'USER', parts: [] }));
    assert.throws(() => fromJson(TaskSchema, { id: 't', status: { state: 'COMPLETED' } }));
    assert.throws(() => fromJson(MessageSchema, { messageId: 'm', parts: [{ text: 'a', url: 'https://x' }] }));
  });

  it('streaming events carry the payload under its camelCase oneof member name', () => {
    const event = create(StreamResponseSchema, {
      payload: {
        case: 'statusUpdate',
        value: { taskId: 't', contextId: 'c', status: { state: TaskState.INPUT_REQUIRED } },
      },
    });
    assert.deepEqual(toJson(StreamResponseSchema, event), {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } },
    });
  });

  it('zero-valued implicit fields are omitted by default and kept with alwaysEmitImplicit', () => {
    const lastPage = create(ListTasksResponseSchema, { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    assert.deepEqual(toJson(ListTasksResponseSchema, lastPage), { pageSize: 50 });
    assert.deepEqual(toJson(ListTasksResponseSchema, lastPage, { alwaysEmitImplicit: true }), {
      tasks: [],
      nextPageToken: '',
      pageSize: 50,
      totalSize: 0,
    });
  });

  it('declares package lf.a2a.v1 and the A2A 1.0 methods', () => {
    assert.equal(file_lf_a2a_v1_a2a.proto.package, 'lf.a2a.v1');
    assert.equal(A2AService.typeName, 'lf.a2a.v1.A2AService');
    const methods = A2AService.methods.map((m) => `${m.name}:${m.methodKind}:${m.input.name}->${m.output.name}`);
    assert.deepEqual(methods, [
      'SendMessage:unary:SendMessageRequest->SendMessageResponse',
      'SendStreamingMessage:server_streaming:SendMessageRequest->StreamResponse',
      'GetTask:unary:GetTaskRequest->Task',
      'ListTasks:unary:ListTasksRequest->ListTasksResponse',
      'CancelTask:unary:CancelTaskRequest->Task',
      'SubscribeToTask:server_streaming:SubscribeToTaskRequest->StreamResponse',
      'CreateTaskPushNotificationConfig:unary:TaskPushNotificationConfig->TaskPushNotificationConfig',
      'GetTaskPushNotificationConfig:unary:GetTaskPushNotificationConfigRequest->TaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs:unary:ListTaskPushNotificationConfigsRequest->ListTaskPushNotificationConfigsResponse',
      'GetExtendedAgentCard:unary:GetExtendedAgentCardRequest->AgentCard',
      'DeleteTaskPushNotificationConfig:unary:DeleteTaskPushNotificationConfigRequest->Empty',
    ]);
  });

  it('keeps the published field numbers of a few interop-critical fields', () => {
    const numbers = (schema: { fields: readonly { name: string; number: number }[] }) =>
      Object.fromEntries(schema.fields.map((f) => [f.name, f.number]));
    assert.deepEqual(numbers(MessageSchema), {
      message_id: 1,
      context_id: 2,
      task_id: 3,
      role: 4,
      parts: 5,
      metadata: 6,
      extensions: 7,
      reference_task_ids: 8,
    });
    const listConfigs = file_lf_a2a_v1_a2a.messages.find((m) => m.name === 'ListTaskPushNotificationConfigsRequest');
    assert.ok(listConfigs);
    assert.deepEqual(numbers(listConfigs), { tenant: 4, task_id: 1, page_size: 2, page_token: 3 });
  });
});
