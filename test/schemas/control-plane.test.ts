// Bodies of the control calls (cancel, compact history, state) and of chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isValid } from '../support/schema-helpers.js';

type Row = [label: string, value: unknown, valid: boolean];

function table(schema: string, rows: Row[]): void {
  for (const [label, value, valid] of rows) {
    test(`${schema}: ${label} is ${valid ? 'accepted' : 'rejected'}`, () => {
      assert.equal(isValid(schema, value), valid);
    });
  }
}

table('cancel-request', [
  ['id with a reason', { id: 't1', metadata: { reason: 'stop' } }, true],
  ['id only', { id: 't1' }, true],
  ['extra metadata', { id: 't1', metadata: { reason: 'stop', by: 'alice' } }, true],
  ['missing id', { metadata: {} }, false],
  ['numeric reason', { id: 't1', metadata: { reason: 5 } }, false],
  ['metadata as a string', { id: 't1', metadata: 'stop' }, false],
]);

table('compact-history-request', [
  ['all fields', { strategy: 'tokens', max_tokens: 1000, preserve_recent: 2, session_id: 's' }, true],
  ['messages strategy', { strategy: 'messages', preserve_recent: 10, session_id: 's' }, true],
  ['summary strategy', { strategy: 'summary', max_tokens: 200, session_id: 's' }, true],
  ['session only', { session_id: 's' }, true],
  ['preserve_recent zero', { session_id: 's', preserve_recent: 0 }, true],
  ['missing session_id', { strategy: 'tokens' }, false],
  ['unknown strategy', { strategy: 'random', session_id: 's' }, false],
  ['max_tokens zero', { max_tokens: 0, session_id: 's' }, false],
  ['fractional max_tokens', { max_tokens: 10.5, session_id: 's' }, false],
  ['negative preserve_recent', { preserve_recent: -1, session_id: 's' }, false],
]);

const compactResult = {
  session_id: 's',
  strategy: 'tokens',
  messages_before: 10,
  messages_after: 4,
  tokens_before: 900,
  tokens_after: 300,
  removed: 6,
  summary: null,
  metadata: {},
};
table('compact-history-result', [
  ['full result', compactResult, true],
  ['summary text', { ...compactResult, strategy: 'summary', summary: 'The user asked about X.' }, true],
  ['negative count', { ...compactResult, messages_after: -1 }, false],
  ['missing tokens_after', { ...compactResult, tokens_after: undefined }, false],
]);

table('state-request', [
  ['empty body', {}, true],
  ['session scope', { session_id: 's', scope: 'session', reason: 'start over' }, true],
  ['agent scope with keys', { scope: 'agent', keys: ['memory'] }, true],
  ['null session', { session_id: null }, true],
  ['unknown scope', { scope: 'global' }, false],
  ['session scope without a session', { scope: 'session' }, false],
  ['session scope with a null session', { scope: 'session', session_id: null }, false],
  ['duplicate keys', { keys: ['a', 'a'] }, false],
  ['keys as a string', { keys: 'memory' }, false],
]);

for (const operation of ['describe', 'reset', 'compact']) {
  table('state-result', [
    [`operation ${operation}`, { operation, session_id: null, state: {}, changed: operation !== 'describe' }, true],
  ]);
}
table('state-result', [
  ['unknown operation', { operation: 'delete', state: {}, changed: true }, false],
  ['missing state', { operation: 'describe', changed: false }, false],
  ['changed not boolean', { operation: 'describe', state: {}, changed: 'no' }, false],
]);

table('chat-request', [
  ['message and session', { message: 'hi', session_id: 's' }, true],
  ['message only', { message: 'hi' }, true],
  ['empty message', { message: '', session_id: 's' }, false],
  ['missing message', { session_id: 's' }, false],
  ['numeric session', { message: 'hi', session_id: 1 }, false],
]);

table('chat-response', [
  ['reply and session', { reply: 'hello', session_id: 's' }, true],
  ['extra string keys', { reply: 'hello', session_id: 's', model: 'm' }, true],
  ['non-string value', { reply: 'hello', session_id: 's', tokens: 5 }, false],
  ['missing reply', { session_id: 's' }, false],
]);
