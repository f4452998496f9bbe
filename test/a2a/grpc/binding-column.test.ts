// The gRPC column of the binding-equivalence table reports what the binding answered in the
// table's binding-neutral form (test/a2a/grpc/binding-column.ts): the answer in ProtoJSON, or
// the ErrorInfo reason and the field from the request message; a request binary protobuf
// cannot carry is refused before anything is sent.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { grpcColumn, NotExpressible } from './binding-column.js';

const message = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

describe('A2A binding table: the gRPC column', () => {
  test('answers and errors in the table form', async (t) => {
    const call = await grpcColumn.open(t, ({ input }) => `echo: ${input}`);
    const sent: any = await call('SendMessage', { tenant: 'acme', message: message('one') });
    assert.equal(sent.ok.task.artifacts[0].parts[0].text, 'echo: one');
    assert.deepEqual(await call('ListTasks', { tenant: 'other' }), { ok: { tasks: [], nextPageToken: '', pageSize: 50 } });
    assert.deepEqual(await call('GetTask', { tenant: 'acme', id: 'nope' }), { error: { reason: 'TASK_NOT_FOUND' } });
    assert.deepEqual(await call('SendMessage', { message: message('x', { parts: [] }) }), {
      error: { reason: 'INVALID_PARAMS', field: '/message/parts' },
    });
    await assert.rejects(call('SendMessage', { message: message('x', { bogus: true }) }), NotExpressible);
  });
});
