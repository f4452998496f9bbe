// Reading an A2A TaskPushNotificationConfig from a request: each bad field is -32602 naming it
// by its JSON pointer (under the place the config sits in the params); a missing id is made;
// the stored config is written back as ProtoJSON with the A2A 1.0 field names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { TaskPushNotificationConfigSchema } from '../../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { A2aError } from '../../../src/a2a/errors/a2a-error.js';
import { DestinationPolicy } from '../../../src/a2a/push/destination-policy.js';
import { configFromA2a, configToA2a } from '../../../src/a2a/push/push-config.js';

const scope = { tenant: 't1', principal: 'alice' };
const policy = new DestinationPolicy();

function read(fields: Record<string, unknown>, pointer = '') {
  return configFromA2a(create(TaskPushNotificationConfigSchema, fields as never), scope, 'task-1', policy, pointer);
}

test('a full config is stored for the scope and task, and written back with the A2A field names', () => {
  const stored = read({
    id: 'cfg-1',
    url: 'https://hooks.example/a2a?x=1',
    token: 'tok',
    authentication: { scheme: 'Bearer', credentials: 'abc.def' },
  });
  assert.deepEqual(stored, {
    tenant: 't1',
    owner: 'alice',
    taskId: 'task-1',
    id: 'cfg-1',
    url: 'https://hooks.example/a2a?x=1',
    token: 'tok',
    authentication: { scheme: 'Bearer', credentials: 'abc.def' },
  });
  assert.deepEqual(configToA2a(stored), {
    tenant: 't1',
    id: 'cfg-1',
    taskId: 'task-1',
    url: 'https://hooks.example/a2a?x=1',
    token: 'tok',
    authentication: { scheme: 'Bearer', credentials: 'abc.def' },
  });
});

test('an empty id gets a new one; token and authentication may be left out', () => {
  const stored = read({ url: 'https://hooks.example/' });
  assert.match(stored.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual([stored.token, stored.authentication], ['', null]);
  assert.deepEqual(Object.keys(configToA2a(stored)).sort(), ['id', 'taskId', 'tenant', 'url']);
});

const BAD: readonly [string, Record<string, unknown>, string, RegExp][] = [
  ['no url', {}, '/url', /is required/],
  ['a relative url', { url: '/hook' }, '/url', /absolute URL/],
  ['a long url', { url: `https://hooks.example/${'a'.repeat(2048)}` }, '/url', /at most 2048/],
  ['an http url', { url: 'http://hooks.example/' }, '/url', /https URL/],
  ['credentials in the url', { url: 'https://u:p@hooks.example/' }, '/url', /credentials/],
  ['a loopback literal', { url: 'https://127.0.0.1:8080/' }, '/url', /loopback/],
  ['a metadata-service literal', { url: 'https://169.254.169.254/' }, '/url', /link-local/],
  ['an id with a space', { url: 'https://h.example/', id: 'a b' }, '/id', /printable/],
  ['a long id', { url: 'https://h.example/', id: 'x'.repeat(129) }, '/id', /1 to 128/],
  ['a token with a line break', { url: 'https://h.example/', token: 'a\r\nX-Evil: 1' }, '/token', /printable ASCII/],
  ['a token with non-ASCII', { url: 'https://h.example/', token: 'tökén' }, '/token', /printable ASCII/],
  [
    'a scheme that is not a token',
    { url: 'https://h.example/', authentication: { scheme: 'Bear er', credentials: 'x' } },
    '/authentication/scheme',
    /authentication scheme/,
  ],
  [
    'a scheme without credentials',
    { url: 'https://h.example/', authentication: { scheme: 'Bearer' } },
    '/authentication/credentials',
    /is required/,
  ],
  [
    'credentials with a line break',
    { url: 'https://h.example/', authentication: { scheme: 'Bearer', credentials: 'x\ny' } },
    '/authentication/credentials',
    /printable ASCII/,
  ],
];

for (const [name, fields, field, message] of BAD) {
  test(`refused as invalid params: ${name}`, () => {
    for (const pointer of ['', '/configuration/taskPushNotificationConfig']) {
      assert.throws(
        () => read(fields, pointer),
        (error: unknown) =>
          error instanceof A2aError &&
          error.kind === 'invalidParams' &&
          error.metadata?.field === `/params${pointer}${field}` &&
          message.test(error.message),
      );
    }
  });
}

test('http urls are accepted when the policy allows them', () => {
  const stored = configFromA2a(
    create(TaskPushNotificationConfigSchema, { url: 'http://hooks.example/' }),
    scope,
    'task-1',
    new DestinationPolicy({ allowHttp: true }),
  );
  assert.equal(stored.url, 'http://hooks.example/');
});
