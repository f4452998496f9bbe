// The error kinds of the A2A boundary and what each binding makes of them: every kind has an
// ErrorInfo reason, a JSON-RPC code, an HTTP status and a gRPC status, and the rows follow the
// A2A 1.0 specification's error mapping table (section 5.4 of docs/specification.md in
// a2aproject/A2A: JSON-RPC -32001 to -32009, gRPC and HTTP beside).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2aError } from '../../src/a2a/errors/a2a-error.js';
import { A2A_ERROR_KINDS, GRPC_CODE_OF_KIND, HTTP_STATUS_OF_KIND, type A2aErrorKind } from '../../src/a2a/errors/kinds.js';
import { RPC_CODES, rpcErrorObject } from '../../src/a2a/jsonrpc/errors.js';

// kind, JSON-RPC code, HTTP status, gRPC status code (3 INVALID_ARGUMENT, 5 NOT_FOUND,
// 9 FAILED_PRECONDITION, 12 UNIMPLEMENTED, 13 INTERNAL).
const ROWS: [A2aErrorKind, number, number, number][] = [
  ['parseError', -32700, 400, 3],
  ['invalidRequest', -32600, 400, 3],
  ['methodNotFound', -32601, 404, 12],
  ['invalidParams', -32602, 400, 3],
  ['internalError', -32603, 500, 13],
  ['taskNotFound', -32001, 404, 5],
  ['taskNotCancelable', -32002, 400, 9],
  ['pushNotificationNotSupported', -32003, 400, 9],
  ['unsupportedOperation', -32004, 400, 9],
  ['contentTypeNotSupported', -32005, 400, 3],
  ['invalidAgentResponse', -32006, 500, 13],
  ['extendedAgentCardNotConfigured', -32007, 400, 9],
  ['extensionSupportRequired', -32008, 400, 9],
  ['versionNotSupported', -32009, 400, 9],
];

describe('A2A error kinds', () => {
  test('the table names every kind once', () => {
    assert.deepEqual(
      ROWS.map(([kind]) => kind),
      [...A2A_ERROR_KINDS],
    );
  });
  for (const [kind, code, http, grpc] of ROWS) {
    test(`${kind}: JSON-RPC ${code}, HTTP ${http}, gRPC ${grpc}`, () => {
      assert.equal(RPC_CODES[kind], code);
      assert.equal(HTTP_STATUS_OF_KIND[kind], http);
      assert.equal(GRPC_CODE_OF_KIND[kind], grpc);
    });
  }
  test('the JSON-RPC error object carries the code, the message and an ErrorInfo', () => {
    const object = rpcErrorObject(new A2aError('taskNotFound', 'task t1 not found', { taskId: 't1' }));
    assert.deepEqual(object, {
      code: -32001,
      message: 'task t1 not found',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't1' },
        },
      ],
    });
  });
});
