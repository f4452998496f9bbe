// The A2A JSON Schemas in generated/schemas/a2a/ are derived from proto/lf/a2a/v1/a2a.proto
// by codegen/protoc-gen-a2a-jsonschema.ts. They must compile with ajv (draft 2020-12,
// strict), accept real ProtoJSON payloads, reject malformed ones, cover exactly the
// messages of the A2A file, and be reproduced byte for byte by the plugin.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { create, fromBinary, getOption, toBinary, toJson, type DescMessage, type JsonObject } from '@bufbuild/protobuf';
import {
  CodeGeneratorRequestSchema,
  CodeGeneratorResponseSchema,
  FileDescriptorSetSchema,
  timestampFromDate,
} from '@bufbuild/protobuf/wkt';
import { field_behavior, FieldBehavior } from '../../generated/proto/google/api/field_behavior_pb.js';
import {
  file_lf_a2a_v1_a2a,
  ListTasksResponseSchema,
  Role,
  TaskSchema,
  TaskState,
} from '../../generated/proto/lf/a2a/v1/a2a_pb.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCHEMA_DIR = join(ROOT, 'generated/schemas/a2a');
const ID_BASE = 'https://parley.dev/schemas/a2a/';
const SUFFIX = '.schema.json';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

type SchemaDoc = { $id: string; title: string; required?: string[]; properties: Record<string, unknown> } & JsonObject;

const schemaFiles = readdirSync(SCHEMA_DIR)
  .filter((f) => f.endsWith(SUFFIX))
  .sort();
const schemas = new Map<string, SchemaDoc>(
  schemaFiles.map((f) => [f.slice(0, -SUFFIX.length), JSON.parse(readFileSync(join(SCHEMA_DIR, f), 'utf8')) as SchemaDoc]),
);

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
for (const schema of schemas.values()) ajv.addSchema(schema);

function validator(name: string) {
  const validate = ajv.getSchema(`${ID_BASE}${name}${SUFFIX}`);
  assert.ok(validate, `schema ${name} is registered`);
  return validate;
}

function assertValid(name: string, payload: unknown): void {
  const validate = validator(name);
  assert.equal(validate(payload), true, JSON.stringify(validate.errors, null, 2));
}

function assertInvalid(name: string, payload: unknown, why: string): void {
  assert.equal(validator(name)(payload), false, `${name} should reject: ${why}`);
}

/** All non-map-entry messages declared in the A2A file, nested ones included. */
function a2aMessages(): DescMessage[] {
  const out: DescMessage[] = [];
  const walk = (messages: readonly DescMessage[]) => {
    for (const m of messages) {
      if (m.proto.options?.mapEntry) continue;
      out.push(m);
      walk(m.nestedMessages);
    }
  };
  walk(file_lf_a2a_v1_a2a.messages);
  return out;
}

const validSendMessageRequest = {
  tenant: 'acme',
  message: {
    messageId: '9b2d1c6e-0f4a-4e59-8f0e-3d1c2b4a5e6f',
    contextId: 'ctx-1',
    role: 'ROLE_USER',
    parts: [
      { text: 'Plan a trip to Porto', mediaType: 'text/plain' },
      { data: { budget: 1200, currency: 'EUR', dates: ['2025-06-01', '2025-06-05'] } },
      { raw: 'iVBORw0KGgo=', filename: 'map.png', mediaType: 'image/png' },
    ],
    metadata: { channel: 'cli' },
    referenceTaskIds: ['task-0'],
  },
  configuration: {
    acceptedOutputModes: ['text/plain', 'application/json'],
    historyLength: 10,
    returnImmediately: false,
    taskPushNotificationConfig: {
      url: 'https://client.example.com/hooks/a2a',
      token: 'opaque',
      authentication: { scheme: 'Bearer', credentials: 'abc' },
    },
  },
};

const validTask = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: {
    state: 'TASK_STATE_COMPLETED',
    timestamp: '2025-03-04T05:06:07Z',
    message: { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ text: 'Here is the plan.' }] },
  },
  artifacts: [{ artifactId: 'a-1', name: 'itinerary', parts: [{ data: [{ day: 1, city: 'Porto' }] }] }],
  history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'Plan a trip' }] }],
  metadata: {},
};

describe('A2A JSON Schemas', () => {
  it('there is exactly one schema file per message of lf/a2a/v1/a2a.proto', () => {
    const messageNames = a2aMessages()
      .map((m) => m.typeName.slice('lf.a2a.v1.'.length))
      .sort();
    assert.ok(messageNames.length >= 40);
    assert.deepEqual([...schemas.keys()].sort(), messageNames);
  });

  it('every schema compiles (ajv 2020-12, strict) and is marked as generated', () => {
    for (const [name, schema] of schemas) {
      assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(schema.$id, `${ID_BASE}${name}${SUFFIX}`);
      assert.equal(schema.title, name);
      assert.equal(typeof schema.description, 'string', `${name} has a description`);
      assert.match(String(schema.$comment), /^Generated by codegen\/protoc-gen-a2a-jsonschema\.ts/);
      assert.equal(schema.additionalProperties, undefined, `${name} allows additional properties`);
      assert.equal(typeof validator(name), 'function');
    }
  });

  it('required lists exactly the fields annotated REQUIRED in the proto', () => {
    for (const message of a2aMessages()) {
      const expected = message.fields
        .filter((f) => getOption(f, field_behavior).includes(FieldBehavior.REQUIRED))
        .map((f) => f.jsonName)
        .sort();
      const schema = schemas.get(message.name)!;
      assert.deepEqual([...(schema.required ?? [])].sort(), expected, message.name);
    }
    assert.deepEqual(schemas.get('Message')!.required, ['messageId', 'role', 'parts']);
  });

  it('property names are the camelCase JSON names', () => {
    assert.deepEqual(Object.keys(schemas.get('Message')!.properties).sort(), [
      'contextId',
      'extensions',
      'messageId',
      'metadata',
      'parts',
      'referenceTaskIds',
      'role',
      'taskId',
    ]);
  });

  it('accepts a valid SendMessageRequest and Task', () => {
    assertValid('SendMessageRequest', validSendMessageRequest);
    assertValid('Task', validTask);
    // Enum numbers are valid ProtoJSON too.
    assertValid('Task', { ...validTask, status: { state: 3 } });
    // Unknown members are allowed for forward compatibility.
    assertValid('Task', { ...validTask, addedInA2A2: { anything: true } });
  });

  it('rejects malformed SendMessageRequest payloads', () => {
    const withMessage = (message: object) => ({ ...validSendMessageRequest, message });
    const msg = validSendMessageRequest.message;
    assertInvalid('SendMessageRequest', withMessage({ ...msg, role: 'USER' }), 'unknown enum name');
    assertInvalid('SendMessageRequest', withMessage({ ...msg, role: 7 }), 'unknown enum number');
    assertInvalid('SendMessageRequest', withMessage({ ...msg, parts: 'hello' }), 'parts is not an array');
    assertInvalid('SendMessageRequest', withMessage({ ...msg, messageId: 42 }), 'messageId is not a string');
    const { messageId: _dropped, ...withoutId } = msg;
    assertInvalid('SendMessageRequest', withMessage(withoutId), 'messageId is required');
    assertInvalid('SendMessageRequest', withMessage({ ...msg, parts: [{ text: 'a', url: 'https://x' }] }), 'two oneof members');
    assertInvalid('SendMessageRequest', withMessage({ ...msg, parts: [{ raw: 'not base64!' }] }), 'bytes not base64');
    assertInvalid('SendMessageRequest', { tenant: 'acme' }, 'message is required');
    assertInvalid(
      'SendMessageRequest',
      { ...validSendMessageRequest, configuration: { historyLength: 1.5 } },
      'historyLength is not an integer',
    );
    assertInvalid(
      'SendMessageRequest',
      { ...validSendMessageRequest, configuration: { returnImmediately: 'yes' } },
      'returnImmediately is not a boolean',
    );
  });

  it('rejects malformed Task payloads', () => {
    assertInvalid('Task', { ...validTask, status: { state: 'COMPLETED' } }, 'enum without prefix');
    assertInvalid('Task', { ...validTask, status: { state: 'TASK_STATE_COMPLETED', timestamp: 'yesterday' } }, 'timestamp');
    assertInvalid('Task', { ...validTask, artifacts: {} }, 'artifacts is not an array');
    assertInvalid('Task', { ...validTask, metadata: [] }, 'metadata is not an object');
    assertInvalid('Task', { contextId: 'c', status: { state: 'TASK_STATE_WORKING' } }, 'id is required');
    assertInvalid('Task', { ...validTask, history: [{ messageId: 'm', role: 'ROLE_USER' }] }, 'nested required parts');
  });

  it('validates the ProtoJSON that protobuf-es writes', () => {
    const task = create(TaskSchema, {
      id: 't',
      contextId: 'c',
      status: { state: TaskState.WORKING, timestamp: timestampFromDate(new Date('2025-05-06T07:08:09.123Z')) },
      history: [{ messageId: 'm', role: Role.USER, parts: [{ content: { case: 'raw', value: new Uint8Array([255, 254]) } }] }],
    });
    assertValid('Task', toJson(TaskSchema, task));
    // REQUIRED implicit fields holding zero values need alwaysEmitImplicit to appear.
    const lastPage = create(ListTasksResponseSchema, { pageSize: 50 });
    assertInvalid('ListTasksResponse', toJson(ListTasksResponseSchema, lastPage), 'zero values omitted by default');
    assertValid('ListTasksResponse', toJson(ListTasksResponseSchema, lastPage, { alwaysEmitImplicit: true }));
  });

  it('map fields validate their values', () => {
    const scheme = { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } };
    const card = {
      name: 'Trip planner',
      description: 'Plans trips',
      supportedInterfaces: [{ url: 'https://agent.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '1.2.3',
      capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
      securitySchemes: { bearer: scheme },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'plan', name: 'Plan', description: 'Plans a trip', tags: ['travel'] }],
    };
    assertValid('AgentCard', card);
    assertInvalid('AgentCard', { ...card, securitySchemes: { bearer: 'Bearer' } }, 'map value is not an object');
    assertInvalid(
      'AgentCard',
      { ...card, securitySchemes: { bearer: { ...scheme, mtlsSecurityScheme: {} } } },
      'two members of the scheme oneof',
    );
  });
});

describe('protoc-gen-a2a-jsonschema', () => {
  it('is deterministic and reproduces the checked-in schemas', () => {
    const buf = join(ROOT, 'node_modules/.bin/buf');
    const built = spawnSync(buf, ['build', '-o', '-'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    assert.equal(built.status, 0, built.stderr?.toString());
    // A buf image is wire-compatible with google.protobuf.FileDescriptorSet.
    const set = fromBinary(FileDescriptorSetSchema, built.stdout);
    const request = create(CodeGeneratorRequestSchema, {
      fileToGenerate: ['lf/a2a/v1/a2a.proto', 'svc/transport/v1/transport.proto'],
      parameter: 'package=lf.a2a.v1',
      protoFile: set.file,
    });
    const input = toBinary(CodeGeneratorRequestSchema, request);
    const runPlugin = () => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'codegen/protoc-gen-a2a-jsonschema.ts')], {
        cwd: ROOT,
        input,
        maxBuffer: 64 * 1024 * 1024,
      });
      assert.equal(run.status, 0, run.stderr?.toString());
      return run.stdout;
    };
    const first = runPlugin();
    const second = runPlugin();
    assert.ok(first.length > 0);
    assert.ok(Buffer.compare(first, second) === 0, 'two runs produce identical bytes');
    const response = fromBinary(CodeGeneratorResponseSchema, first);
    assert.equal(response.error ?? '', '');
    assert.deepEqual(response.file.map((f) => f.name).sort(), schemaFiles, 'only A2A messages produce files');
    for (const file of response.file) {
      assert.ok(file.content.endsWith('}\n'));
      assert.equal(file.content, readFileSync(join(SCHEMA_DIR, file.name), 'utf8'), `${file.name} is up to date`);
    }
  });
});
