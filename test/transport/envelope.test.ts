// The envelope rules as tables: the schemas' own examples and bad frames through the shared
// readers, with the generated schema validator as the second opinion wherever the schema
// decides alone, and the text writers checked against the same schemas.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { validate } from '../../generated/validators/index.js';
import { MAX_JSON_DEPTH } from '../../src/core/json/depth.js';
import { EndpointError } from '../../src/transport/endpoint-error.js';
import {
  envelopeHead,
  errorEnvelope,
  okEnvelope,
  readRequestEnvelope,
  readResponseEnvelope,
  resultBytes,
} from '../../src/transport/envelope.js';
import { TransportProtocolError } from '../../src/transport/errors.js';

function examples(name: string): Array<Record<string, unknown>> {
  const schema = JSON.parse(readFileSync(new URL(`../../schemas/native/${name}.schema.json`, import.meta.url), 'utf8'));
  return schema.examples;
}

const context = { url: 'ws://peer', requestId: 'req-1' };

/** Nested objects, `depth` levels in all. */
function nested(depth: number): unknown {
  let value: unknown = {};
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

describe('readResponseEnvelope', () => {
  it('accepts every example of response-envelope.schema.json', () => {
    for (const example of examples('response-envelope')) {
      const event = readResponseEnvelope(example, 100, { url: 'ws://peer', requestId: example.id as string });
      assert.equal(event.ok, example.ok);
      assert.equal(event.final, example.final);
      assert.deepEqual(event.result, example.result);
      assert.deepEqual(event.error, example.error);
      assert.equal(event.bytes, 100);
    }
  });

  const cases: Array<{ name: string; frame: unknown; accepted: boolean }> = [
    { name: 'null id on a success', frame: { id: null, ok: true, result: 1, final: true }, accepted: true },
    {
      name: 'null id on a failure',
      frame: { id: null, ok: false, error: { code: 'invalid_json' }, final: true },
      accepted: true,
    },
    { name: 'ok without result', frame: { id: 'req-1', ok: true, final: false }, accepted: true },
    { name: 'unknown keys', frame: { id: 'req-1', ok: true, result: 1, final: true, extra: 1, jsonrpc: '2.0' }, accepted: true },
    { name: 'no final', frame: { id: 'req-1', ok: true, result: 1 }, accepted: false },
    { name: 'final not a boolean', frame: { id: 'req-1', ok: true, result: 1, final: 'yes' }, accepted: false },
    { name: 'no id', frame: { ok: true, result: 1, final: true }, accepted: false },
    { name: 'numeric id', frame: { id: 7, ok: true, result: 1, final: true }, accepted: false },
    { name: 'no ok', frame: { id: 'req-1', result: 1, final: true }, accepted: false },
    { name: 'ok false without error', frame: { id: 'req-1', ok: false, final: true }, accepted: false },
    { name: 'ok false with a string error', frame: { id: 'req-1', ok: false, error: 'bad', final: true }, accepted: false },
    { name: 'ok true with an error', frame: { id: 'req-1', ok: true, error: { code: 'x' }, final: true }, accepted: false },
    { name: 'an array', frame: [{ id: 'req-1', ok: true, final: true }], accepted: false },
    { name: 'a string', frame: 'req-1', accepted: false },
    { name: 'null', frame: null, accepted: false },
  ];

  for (const { name, frame, accepted } of cases) {
    it(`${name}: ${accepted ? 'accepted' : 'a protocol error'}, as the schema says`, () => {
      // The reader is lenient about the fields of a failure's error object, which the schema is not.
      const { ok, error } = (frame ?? {}) as { ok?: unknown; error?: unknown };
      const lenient = ok === false && error !== null && typeof error === 'object';
      if (!lenient) assert.equal(validate('response-envelope', frame).valid, accepted);
      if (accepted) {
        assert.equal(readResponseEnvelope(frame, 1, context).ok, (frame as { ok: boolean }).ok);
      } else {
        assert.throws(
          () => readResponseEnvelope(frame, 1, context),
          (error: unknown) => error instanceof TransportProtocolError && error.retryable === false && error.requestId === 'req-1',
        );
      }
    });
  }

  it('a valid envelope for another request is a protocol error (the one rule the schema cannot state)', () => {
    const frame = { id: 'req-2', ok: true, result: 1, final: true };
    assert.equal(validate('response-envelope', frame).valid, true);
    assert.throws(() => readResponseEnvelope(frame, 1, context), TransportProtocolError);
  });

  it('resultBytes: the frame size while within the limit, else the result measured alone', () => {
    assert.equal(resultBytes({ bytes: 90, result: 'x'.repeat(200) }, 100), 90);
    assert.equal(resultBytes({ bytes: 300, result: 'x'.repeat(200) }, 100), 202);
    assert.equal(resultBytes({ bytes: 300 }, 100), 4);
  });
});

describe('envelope writers', () => {
  it('write envelopes the schemas accept, splicing the result text in as it is', () => {
    const ok = JSON.parse(okEnvelope(envelopeHead('req-1'), '{"b":2,"a":1}', false));
    assert.deepEqual(ok, { id: 'req-1', ok: true, result: { b: 2, a: 1 }, error: null, final: false });
    assert.equal(validate('response-envelope', ok).valid, true);
    const wireError = new EndpointError('not_found', 'no endpoint').toObject('req-1');
    const failure = JSON.parse(errorEnvelope(envelopeHead(null), wireError));
    assert.deepEqual(failure, { id: null, ok: false, result: null, error: wireError, final: true });
    assert.equal(validate('response-envelope', failure).valid, true);
    const sse = JSON.parse(okEnvelope(envelopeHead('req-"1"', true), 'null', true));
    assert.equal(validate('sse-frame', sse).valid, true);
    assert.equal(sse.id, 'req-"1"');
    assert.deepEqual(readResponseEnvelope(sse, 1, { url: 'http://peer', requestId: 'req-"1"' }).final, true);
  });
});

describe('readRequestEnvelope', () => {
  it('accepts every example of request-envelope.schema.json', () => {
    for (const example of examples('request-envelope')) {
      const read = readRequestEnvelope(example);
      assert.ok(read.ok, JSON.stringify(example));
      assert.equal(read.envelope.id, example.id);
      assert.equal(read.envelope.method, example.method);
      assert.deepEqual(read.envelope.data, example.data);
      assert.equal(read.envelope.idempotencyKey, example.idempotency_key);
    }
  });

  const base = { id: 'r', method: 'POST', path: '/tasks/', data: { id: 't' }, params: {}, idempotency_key: null };
  const refused: Array<{ name: string; envelope: unknown; id: string | null }> = [
    { name: 'no id', envelope: { ...base, id: undefined }, id: null },
    { name: 'an empty id', envelope: { ...base, id: '' }, id: null },
    { name: 'a numeric id', envelope: { ...base, id: 5 }, id: null },
    { name: 'a lower-case method', envelope: { ...base, method: 'post' }, id: 'r' },
    { name: 'no path', envelope: { ...base, path: undefined }, id: 'r' },
    { name: 'a relative path', envelope: { ...base, path: 'tasks/' }, id: 'r' },
    { name: 'a query string in the path', envelope: { ...base, path: '/agents/?role=x' }, id: 'r' },
    { name: 'params that are a list', envelope: { ...base, params: ['a'] }, id: 'r' },
    { name: 'a numeric idempotency key', envelope: { ...base, idempotency_key: 3 }, id: 'r' },
    { name: 'a trace that is a string', envelope: { ...base, trace: '00-abc' }, id: 'r' },
    { name: 'a numeric traceparent', envelope: { ...base, trace: { traceparent: 5 } }, id: 'r' },
    { name: 'a tracestate that is a list', envelope: { ...base, trace: { tracestate: ['a=b'] } }, id: 'r' },
    { name: 'not an object', envelope: [base], id: null },
  ];

  for (const { name, envelope, id } of refused) {
    it(`refuses an envelope with ${name} as invalid_request, as the schema does`, () => {
      assert.equal(validate('request-envelope', envelope).valid, false);
      const read = readRequestEnvelope(envelope);
      assert.equal(read.ok, false);
      if (read.ok) return;
      assert.equal(read.error.code, 'invalid_request');
      assert.equal(read.error.status, 400);
      assert.equal(read.id, id);
      assert.equal(read.tooDeep, false);
    });
  }

  it(`data and params may nest ${MAX_JSON_DEPTH} levels; one more is refused before the schema is checked`, () => {
    for (const field of ['data', 'params']) {
      assert.equal(readRequestEnvelope({ ...base, [field]: nested(MAX_JSON_DEPTH) }).ok, true, field);
      const read = readRequestEnvelope({ ...base, [field]: nested(MAX_JSON_DEPTH + 1) });
      assert.equal(read.ok, false, field);
      if (read.ok) continue;
      assert.equal(read.tooDeep, true);
      assert.equal(read.id, 'r');
      assert.equal(read.error.code, 'invalid_request');
      assert.deepEqual(read.error.details, { limit: MAX_JSON_DEPTH });
    }
  });
});
